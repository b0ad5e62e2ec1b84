import { defineConfig } from 'vitest/config';

// The differential suite against the reference opm: `OPM_REFERENCE=/path/to/opm npm run test:reference`.
export default defineConfig({
  test: {
    include: ['test/reference/**/*.test.ts'],
    testTimeout: 120_000,
    env: { FORCE_COLOR: '0', NO_COLOR: '1' },
  },
});
