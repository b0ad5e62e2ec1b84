// Run by scripts/bundle.js: compiles a bundle (the argument: opm.cjs, the default, opm-short.cjs or
// opm-render-bundle.cjs) the way bin/opm.js does, runs the commands people run most with it on the
// example data in testdata/ (output thrown away), and writes the V8 code cache of everything that
// was compiled to dist/<bundle>.cache. V8 takes a cache only under the flags it was made with: this
// process first sets the V8 flags bin/opm.js sets at every start, read from its `V8_FLAGS` line.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import {
  compileCli,
  compileRenderBundle,
  runtimeStamp,
  shippedCacheFile,
  shippedStampFile,
  writeAtomically,
} from '../dist/cli/launch.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const launcherFlags = /^const V8_FLAGS = '([^']*)';$/m.exec(
  readFileSync(path.join(root, 'bin', 'opm.js'), 'utf8'),
)?.[1];
if (launcherFlags === undefined) throw new Error("bin/opm.js: no `const V8_FLAGS = '…';` line");
v8.setFlagsFromString(launcherFlags);
const bundleName = process.argv[2] ?? 'opm.cjs';
const bundleFile = path.join(root, 'dist', bundleName);
const catalog = path.join(root, 'testdata', 'examples', 'catalog');
const bundle = path.join(root, 'testdata', 'render', 'good', 'properties-and-dependencies');
const home = mkdtempSync(path.join(os.tmpdir(), 'opm-code-cache-'));

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

// The short bundle's cache holds what its commands use most, and no more (V8 takes the whole cache at
// every start): `generate dockerfile`, which validates the catalog, compiles that code as it runs. The whole bundle's holds the catalog commands and what a catalog image's two
// steps of `serve` run: the cache built, then served from it (the fingerprint checked, the server
// started), and a start without a cache; each server stopped as SIGTERM stops it once it logs
// that it serves.
const runs =
  bundleName === 'opm-short.cjs'
    ? [
        ['--help'],
        ['render', '--help'],
        ['init', 'warm-up'],
        ['render', catalog, '-o', 'json'],
        ['render', catalog, '-o', 'yaml'],
        ['render', bundle, '-o', 'json'],
        ['render', bundle, '-o', 'yaml', '--migrate-level', 'bundle-object-to-csv-metadata'],
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
        ['serve', catalog, '--cache-dir', path.join(home, 'serve-cache'), '--cache-only'],
        ['serve', catalog, '--cache-dir', path.join(home, 'serve-cache'), '-p', '0'],
        ['serve', catalog, '-p', '0'],
      ];

try {
  let script;
  if (bundleName === 'opm-render-bundle.cjs') {
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
  writeAtomically(shippedCacheFile(bundleFile), script.createCachedData());
  writeAtomically(shippedStampFile(bundleFile), Buffer.from(`${runtimeStamp()}\n`));
} finally {
  rmSync(home, { recursive: true, force: true });
}
