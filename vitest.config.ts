import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The differential suite needs the reference opm: `npm run test:reference` (vitest.reference.config.ts).
    exclude: ['test/reference/**', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: { FORCE_COLOR: '0', NO_COLOR: '1' },
  },
});
