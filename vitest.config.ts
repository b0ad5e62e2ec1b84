import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { PATIENCE_MS } from './test/patience.js';

const root = path.dirname(fileURLToPath(import.meta.url));

// Test files declare what they need in their leading comment lines (docs/architecture.md, "Tests"):
//   `// needs-build: …`     they run what `npm run build` writes to dist/ (bin/opm.js, the workers);
//   `// needs-corpus: …`    they build on ../shared/corpus (or $OPM_CORPUS);
//   `// needs-registry: …`  they start real registry servers on 127.0.0.1;
//   `// needs-browser: …`   they drive chromium (/usr/bin/chromium, or $OPM_CHROMIUM);
//   `// integration: …`     they are long or run many processes, for another reason given there;
//   `// bench: …`           they measure, on a machine left to them (`npm run test:bench`).
// Files that need the build form the `built` project, whose set-up builds dist/ when it is older
// than the sources. Files that need the corpus, registries or a browser, or say `integration`, form
// the `integration` project; files that say `bench`, the `bench` project, which runs only when asked
// for. Everything else is the `unit` project: from the sources, no network, no browser, few
// processes, quick enough to run while working (`npm run test:unit`).
function markers(file: string): string[] {
  const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
  const lead = lines.slice(
    0,
    lines.findIndex((l) => !l.startsWith('//')),
  );
  return lead.flatMap((l) => /^\/\/ (needs-[a-z]+|integration|bench):/.exec(l)?.[1] ?? []);
}
const testFiles = ['src', 'test'].flatMap((dir) =>
  readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => path.posix.join(dir, f.split(path.sep).join('/'))),
);
const marked = (...m: string[]) => testFiles.filter((f) => markers(f).some((x) => m.includes(x)));
const needsCorpus = marked('needs-corpus');
const needsBrowser = marked('needs-browser');
const bench = marked('bench');
// The differential suite (test/reference/) is a project of its own, whatever its files' markers say.
const isReference = (f: string): boolean => f.startsWith('test/reference/');
const needsBuild = marked('needs-build').filter((f) => !bench.includes(f) && !isReference(f));
const integration = marked('needs-corpus', 'needs-registry', 'needs-browser', 'integration').filter(
  (f) => !needsBuild.includes(f) && !bench.includes(f) && !isReference(f),
);

// Without the corpus, or without chromium, the files that need it are left out with one loud line
// each and the rest still runs; in CI, which always has both, their absence is an error.
const corpus = [process.env.OPM_CORPUS, path.resolve(root, '../shared/corpus')].some(
  (c) => c !== undefined && c !== '' && existsSync(c),
);
const chromium = process.env.OPM_CHROMIUM ?? '/usr/bin/chromium';
const browser = existsSync(chromium);
const absent = [
  ...(corpus ? [] : [{ files: needsCorpus, what: '../shared/corpus (or $OPM_CORPUS)' }]),
  ...(browser
    ? []
    : [
        {
          files: needsBrowser,
          what: `chromium at ${chromium} (apt-get install chromium, or set OPM_CHROMIUM)`,
        },
      ]),
];
for (const { files, what } of absent) {
  if (process.env.CI === 'true') {
    throw new Error(`CI runs every suite: ${what} must be present`);
  }
  for (const f of files)
    // eslint-disable-next-line no-console -- the loud line is the point
    console.warn(`*** SKIPPED ${f}: it needs ${what} ***`);
}
const leftOut = ['**/node_modules/**', ...absent.flatMap((a) => a.files)];
const reference = ['test/reference/**'];

// Time-outs are there to end a test that hangs, not to judge speed: on two cores at a load
// average of 20 a test gets a tenth of a core and takes ten times its idle time, and the heaviest
// (a 100,000-bundle graph drawn twice, the layer check over every source file, a registry fixture
// of seven servers) do 10-20 s of CPU work. No test sets a shorter one; a test of the product's
// own time-outs gives the product short ones instead.

export default defineConfig({
  test: {
    testTimeout: PATIENCE_MS,
    hookTimeout: PATIENCE_MS,
    env: { FORCE_COLOR: '0', NO_COLOR: '1' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...leftOut, ...reference, ...needsBuild, ...integration, ...bench],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: integration,
          exclude: leftOut,
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
      // Measurements (`npm run test:bench`, which sets OPM_TEST_BENCH=1): left out of `npm test`.
      ...(process.env.OPM_TEST_BENCH === '1'
        ? [
            {
              extends: true as const,
              test: { name: 'bench', include: bench, exclude: leftOut },
            },
          ]
        : []),
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
