// Run by scripts/bundle.js: compiles a bundle of the command line (second argument: opm.cjs, the
// default, or opm-short.cjs) the way bin/opm.js does, runs the commands people run most on the
// example data in testdata/ (output thrown away), and writes the V8 code cache of everything that
// was compiled to dist/<bundle>.cache (first argument `flags`), dist/<bundle>.serve.cache (`serve`:
// runs of `serve` itself, under the flags bin/opm.js gives it), dist/<bundle>.plain.cache (`plain`) or
// dist/<bundle>.generate.cache (`generate`). Its own process, so that the cache is made with the V8
// flags of that start
// (scripts/bundle.js starts it with bin/opm.js's flags for catalogs, or with none).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  compileCli,
  compileRenderBundle,
  runtimeStamp,
  shippedCacheFile,
  shippedStampFile,
  writeAtomically,
} from '../dist/cli/launch.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const which = ['plain', 'generate', 'serve'].includes(process.argv[2] ?? '') ? process.argv[2] : 'flags';
const bundleFile = path.join(root, 'dist', process.argv[3] ?? 'opm.cjs');
const catalog = path.join(root, 'testdata', 'examples', 'catalog');
const bundle = path.join(root, 'testdata', 'render', 'good', 'properties-and-dependencies');
const home = mkdtempSync(path.join(os.tmpdir(), 'opm-code-cache-'));

/** A copy of `dir` in the temporary folder, for a command that writes beside it. */
function copyOf(dir) {
  const copy = path.join(home, path.basename(dir));
  cpSync(dir, copy, { recursive: true });
  return copy;
}

const discard = () => new Writable({ write: (_chunk, _enc, done) => done() });
const io = () => ({
  stdout: discard(),
  stderr: discard(),
  stdin: Readable.from([]),
  env: { HOME: home, OLM_CACHE_DIR: path.join(home, 'cache'), PATH: process.env.PATH },
  cwd: root,
  stderrIsTTY: false,
});

/** The I/O of a `serve` run: its stop, as a signal gives it, once it logs `serving registry`. */
function serveIO() {
  let stop;
  let logged = '';
  const stderr = new Writable({
    write: (chunk, _enc, done) => {
      logged += String(chunk);
      if (logged.includes('serving registry')) stop?.();
      done();
    },
  });
  return { ...io(), stderr, takeSignals: (onStop) => (stop = onStop) };
}

/** A local port nothing listens on (just released), so that a connection is refused at once. */
function closedPort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 9));
    });
  });
}

// The cache for starts without V8 flags serves the commands that read no catalog (bin/opm.js): only
// those run, so that it holds what they use and no more (V8 takes the whole cache at every start).
// `generate dockerfile` validates the catalog: its code has a cache of its own (src/cli/launch.ts).
const runs =
  which === 'plain'
    ? [
        ['--help'],
        ['render', '--help'],
        ['init', 'warm-up'],
        ['render', bundle, '-o', 'json'],
        ['render', bundle, '-o', 'yaml', '--migrate-level', 'bundle-object-to-csv-metadata'],
      ]
    : which === 'generate'
      ? [['generate', 'dockerfile', copyOf(catalog)]]
      : which === 'serve'
        ? // `serve`'s own cache holds what a catalog image's two steps run: the cache built, then served
          // from it (the fingerprint checked, gRPC loaded, the server started), and a start without a
          // cache; each server stopped as SIGTERM stops it once it logs that it serves.
          [
            ['serve', catalog, '--cache-dir', path.join(home, 'serve-cache'), '--cache-only'],
            ['serve', catalog, '--cache-dir', path.join(home, 'serve-cache'), '-p', '0'],
            ['serve', catalog, '-p', '0'],
          ]
        : [
            ['--help'],
            ['render', '--help'],
            ['validate', catalog],
            ['render', catalog, '-o', 'json'],
            ['render', catalog, '-o', 'yaml'],
            ['render', bundle, '-o', 'json'],
            ['render', bundle, '-o', 'yaml', '--migrate-level', 'bundle-object-to-csv-metadata'],
            // An image on a closed local port: reference parsing, credentials, transport, error reporting.
            ['render', '--use-http', `127.0.0.1:${await closedPort()}/opm-ts/warm-up:v1`],
          ];

try {
  let script;
  if (path.basename(bundleFile) === 'opm-render-bundle.cjs') {
    // The render of bundle directories alone (src/cli/render-bundle-fast.ts): what it compiles when
    // it renders a bundle directory to JSON and to YAML, and no more.
    const compiled = compileRenderBundle(bundleFile);
    for (const format of ['json', 'yaml']) {
      if (compiled.exports.renderBundleDirsFast(['render', bundle, '-o', format], root) === undefined)
        throw new Error(`${bundleFile}: declined to render ${bundle} as ${format}`);
    }
    script = compiled.script;
  } else {
    const compiled = compileCli(bundleFile);
    for (const argv of runs) await compiled.cli.runCli(argv, argv[0] === 'serve' ? serveIO() : io());
    script = compiled.script;
  }
  writeAtomically(shippedCacheFile(bundleFile, which), script.createCachedData());
  writeAtomically(shippedStampFile(bundleFile, which), Buffer.from(`${runtimeStamp()}\n`));
} finally {
  rmSync(home, { recursive: true, force: true });
}
