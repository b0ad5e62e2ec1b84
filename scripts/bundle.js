// Run by `npm run build` after tsc: bundles the command line (dist/cli/main.js, what it imports and
// the libraries it uses) into one CommonJS module, dist/opm.cjs (its body wrapped as the launcher
// compiles it, see below) and again without the commands that need most of the code (dist/opm-short.cjs),
// the render of bundle directories alone (dist/opm-render-bundle.cjs), and the launcher that
// bin/opm.js requires (src/cli/launch.ts) into dist/launch.cjs, then has
// scripts/build-code-cache.js write the V8 code cache the launcher loads each bundle with. A file
// and a code cache instead of a hundred ES modules: start-up is most of the time of a short command.
// Left outside: ajv (the precompiled validators require its runtime by path), undici (loaded
// only when a proxy is configured), dagre (loaded only to draw `render-graph -o svg|html`) and
// cli-progress (loaded only when a progress display is shown on a terminal).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

// commander requires node:child_process when it is loaded, for executable subcommands, which opm
// has none of; loading that module (and net, dgram) is several milliseconds of every run.
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.importer.includes(`${path.sep}node_modules${path.sep}commander${path.sep}`)
        ? { path: 'lazy-child-process', namespace: 'opm-lazy' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'opm-lazy' }, () => ({
      contents:
        "let m; module.exports = new Proxy({}, { get: (_, k) => (m ??= require('node:child_process'))[k] });",
      loader: 'js',
    }));
  },
};
// The run modules of the commands the launcher never starts with dist/opm-short.cjs (see below): in
// that bundle each is a module that fails when loaded, which a command of the short bundle never
// does (test/cli/launch.test.ts runs them and compares with the whole bundle).
const LEFT_OUT_OF_SHORT = [
  'validate-run',
  'serve-run',
  'registry-run',
  'registry-add-run',
  'index-add-run',
  'index-edit-run',
  'migrate-run',
  'image-run',
  'filter-run',
  'diff-run',
  'compose-run',
  'list-images-run',
  'alpha-bundle-run',
  'alpha-graph-run',
  'alpha-render-template-run',
  'alpha-convert-template-run',
];
const commandsDir = path.join(root, 'dist', 'cli', 'commands');
const leftOut = {
  name: 'left-out-of-short',
  setup(b) {
    b.onResolve({ filter: /-run\.js$/ }, (args) => {
      const name = path.basename(args.path, '.js');
      return path.dirname(args.importer) === commandsDir && LEFT_OUT_OF_SHORT.includes(name)
        ? { path: name, namespace: 'opm-left-out' }
        : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'opm-left-out' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not in dist/opm-short.cjs: run opm-ts through bin/opm.js`)});`,
      loader: 'js',
    }));
  },
};

const { CLI_WRAPPER_HEAD, CLI_WRAPPER_TAIL } = await import('../dist/cli/launch.js');

/**
 * Bundle the command line (or another entry under dist/cli/) into `outfile`, written as the function
 * the launcher compiles.
 */
async function bundleCli(outfile, plugins, entry = 'main.js') {
  for (const f of ['cache', 'plain.cache', 'generate.cache', 'serve.cache'].flatMap((c) => [c, `${c}.stamp`]))
    rmSync(`${outfile}.${f}`, { force: true });
  await build({
    entryPoints: [path.join(root, 'dist', 'cli', entry)],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['ajv', 'ajv/*', 'undici', '@dagrejs/dagre', 'cli-progress'],
    plugins: [lazyChildProcess, ...plugins],
    // import() becomes require(): the bundle is compiled through node:vm, where a dynamic import
    // has no loader to call.
    supported: { 'dynamic-import': false },
    // Modules find their package (schemas/, package.json) upwards from import.meta.url.
    define: { 'import.meta.url': '__opmModuleUrl' },
    banner: { js: "const __opmModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
    logLevel: 'warning',
  });
  // esbuild writes strings and identifiers as ASCII but keeps comments as they are (js-yaml's hold
  // typographic quotes). Escaping those keeps the whole file ASCII, which the launcher then reads as
  // Latin-1: a byte per character, several times faster than decoding UTF-8 at every start.
  // The file is written as the function expression the launcher compiles (CLI_WRAPPER_HEAD, the
  // module body, CLI_WRAPPER_TAIL): read as it is, its 2.5 MB of text are in memory once, where
  // wrapping it at every start made a second copy (2-3 MiB more at the peak of a short command).
  const bundled = readFileSync(outfile, 'utf8');
  writeFileSync(
    outfile,
    CLI_WRAPPER_HEAD +
      bundled.replace(/[\u0080-\u{10ffff}]/gu, (c) => `\\u{${c.codePointAt(0)?.toString(16) ?? ''}}`) +
      CLI_WRAPPER_TAIL,
  );
}
const outfile = path.join(root, 'dist', 'opm.cjs');
await bundleCli(outfile, []);
// The same command line without the commands that need most of the code (validate, serve, the
// catalog operations, alpha): dist/opm-short.cjs, which the launcher loads for the other commands
// (init, render, generate, version, completion, help; src/cli/launch.ts). A
// process loads one of the two bundles and never both, so every module is there once. Half the
// text to read and a smaller code cache to take: `render <bundle dir>` and `--help` start faster.
await bundleCli(path.join(root, 'dist', 'opm-short.cjs'), [leftOut]);
// The plain render of bundle directories alone (src/cli/render-bundle-fast.ts), without commander or
// any command: dist/opm-render-bundle.cjs, which the launcher tries first for `render <bundle dir>...
// [-o json|yaml]` and which declines to the short bundle on anything but a clean render.
await bundleCli(path.join(root, 'dist', 'opm-render-bundle.cjs'), [], 'render-bundle-fast.js');

// The launcher alone, as CommonJS: bin/opm.js requires it without starting the ES module loader.
await build({
  entryPoints: [path.join(root, 'dist', 'cli', 'launch.js')],
  outfile: path.join(root, 'dist', 'launch.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
// The worker scripts on their own (loading, src/declcfg/load-pool.ts; validating,
// src/action/validate/validate-shards.ts; rendering, src/action/render/render-output.ts; the serve
// cache's integrity check, src/serve-cache/digest.ts): a worker starts faster
// without the code of the command line. src/util/worker-pool.ts finds them as dist/<name>.cjs.
for (const [entry, out] of [
  [['declcfg', 'load-worker.js'], 'load-worker.cjs'],
  [['action', 'validate', 'validate-worker.js'], 'validate-worker.cjs'],
  [['action', 'render', 'render-worker.js'], 'render-worker.cjs'],
  [['serve-cache', 'digest-worker.js'], 'digest-worker.cjs'],
]) {
  await build({
    entryPoints: [path.join(root, 'dist', ...entry)],
    outfile: path.join(root, 'dist', out),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['ajv', 'ajv/*'],
    define: { 'import.meta.url': '__opmModuleUrl' },
    banner: { js: "const __opmModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
    logLevel: 'warning',
  });
}
// One code cache per bundle, each made in a process of its own under the V8 flags bin/opm.js sets
// (scripts/build-code-cache.js). The whole bundle's is made last: build-if-stale.js takes its time
// for the whole build.
for (const bundle of ['opm-short.cjs', 'opm-render-bundle.cjs', 'opm.cjs']) {
  const cache = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-code-cache.js'), bundle], {
    stdio: 'inherit',
  });
  if (cache.status !== 0) process.exit(cache.status ?? 1);
}
