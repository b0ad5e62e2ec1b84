import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = path.dirname(fileURLToPath(import.meta.url));

// Test files declare what they need in their leading comment lines:
//   `// needs-corpus: …`  they build on ../shared/corpus (or $OPM_CORPUS);
//   `// needs-build: …`   they run what `npm run build` writes to dist/ (bin/opm.js, the worker).
// Files that need the build form the `built` project, whose set-up builds dist/ when it is older
// than the sources; everything else is the `unit` project and runs from the sources, no build.
function markers(file: string): string[] {
  const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
  const lead = lines.slice(
    0,
    lines.findIndex((l) => !l.startsWith('//')),
  );
  return lead.flatMap((l) => /^\/\/ (needs-[a-z]+):/.exec(l)?.[1] ?? []);
}
const testFiles = ['src', 'test'].flatMap((dir) =>
  readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => path.posix.join(dir, f.split(path.sep).join('/'))),
);
const marked = (m: string) => testFiles.filter((f) => markers(f).includes(m));
const needsCorpus = marked('needs-corpus');
const needsBuild = marked('needs-build');

// Without the corpus, the files that need it are left out with one loud line each and the rest
// still runs; in CI, which always has the corpus, its absence is an error.
const corpus = [process.env.OPM_CORPUS, path.resolve(root, '../shared/corpus')].some(
  (c) => c !== undefined && c !== '' && existsSync(c),
);
if (!corpus) {
  if (process.env.CI === 'true') {
    throw new Error('CI runs the conformance suites: ../shared/corpus (or $OPM_CORPUS) must be present');
  }
  for (const f of needsCorpus)
    // eslint-disable-next-line no-console -- the loud line is the point
    console.warn(`*** SKIPPED ${f}: it needs ../shared/corpus (or $OPM_CORPUS) ***`);
}
const leftOut = ['**/node_modules/**', ...(corpus ? [] : needsCorpus)];
const reference = ['test/reference/**'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: { FORCE_COLOR: '0', NO_COLOR: '1' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...leftOut, ...reference, ...needsBuild],
        },
      },
      {
        extends: true,
        test: {
          name: 'built',
          include: needsBuild,
          exclude: leftOut,
          globalSetup: ['test/build-once.ts'],
        },
      },
      // The differential suite against the reference opm (`npm run test:reference`, with
      // OPM_REFERENCE naming its binary; scripts/build-reference-opm.sh builds one).
      ...(process.env.OPM_REFERENCE
        ? [
            {
              extends: true as const,
              test: {
                name: 'reference',
                include: ['test/reference/**/*.test.ts'],
                testTimeout: 120_000,
                globalSetup: ['test/build-once.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
