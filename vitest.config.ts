import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = path.dirname(fileURLToPath(import.meta.url));

// Test files marked `needs-corpus` on their first line build on ../shared/corpus (or $OPM_CORPUS).
// Without it they are left out with one loud line each and the rest still runs; in CI, which always
// has the corpus, its absence is an error.
const corpus = [process.env.OPM_CORPUS, path.resolve(root, '../shared/corpus')].some(
  (c) => c !== undefined && c !== '' && existsSync(c),
);
const needsCorpus = ['src', 'test'].flatMap((dir) =>
  readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => path.posix.join(dir, f.split(path.sep).join('/')))
    .filter((f) => readFileSync(path.join(root, f), 'utf8').startsWith('// needs-corpus:')),
);
if (!corpus) {
  if (process.env.CI === 'true') {
    throw new Error('CI runs the conformance suites: ../shared/corpus (or $OPM_CORPUS) must be present');
  }
  for (const f of needsCorpus)
    // eslint-disable-next-line no-console -- the loud line is the point
    console.warn(`*** SKIPPED ${f}: it needs ../shared/corpus (or $OPM_CORPUS) ***`);
}

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The differential suite needs the reference opm: `npm run test:reference` (vitest.reference.config.ts).
    exclude: ['test/reference/**', '**/node_modules/**', ...(corpus ? [] : needsCorpus)],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: { FORCE_COLOR: '0', NO_COLOR: '1' },
  },
});
