// One measured run, in its own process so that peak memory (maxRSS) belongs to it alone.
//   child <mode> <args...>    modes: floor-parse DIR | floor-render-json DIR | floor-render-yaml DIR |
//                             parse-ours DIR | load DIR THREADS WORKER_MIN_BYTES | load-catalog DIR |
//                             opm ARGS... | graph-layout auto|dagre|elk DIR PACKAGE | graph-page DIR PACKAGE OUT.html
// Prints one JSON line: { "ms": wall time of the work, "maxRssMB": peak resident memory, "code": exit code }.
// The graph modes time only their own part (set in `timed`), not the loading of the catalog.
import { closeSync, openSync, readFileSync, writeSync, createWriteStream } from 'node:fs';
import { PassThrough } from 'node:stream';
import { performance } from 'node:perf_hooks';
import jsYaml from 'js-yaml';
import { runCli } from '../src/cli/main.js';
import { renderOutput } from '../src/action/render/render-output.js';
import { parseCatalogBytes } from '../src/declcfg/parse.js';
import { loadCatalogDir, loadCatalogDirOrThrow } from '../src/declcfg/load.js';
import { listFiles } from './catalog-files.js';

/** Parse one file the plain way: JSON.parse per top-level object, or js-yaml loadAll. */
function parseFile(text: string): unknown[] {
  if (text.trimStart().startsWith('{')) {
    // Top-level objects of opm-style JSON start at column 0; nothing else does.
    const blobs: unknown[] = [];
    let start = text.indexOf('{');
    while (start >= 0) {
      const next = text.indexOf('\n{', start + 1);
      blobs.push(JSON.parse(text.slice(start, next < 0 ? undefined : next + 1)));
      start = next < 0 ? -1 : next + 1;
    }
    return blobs;
  }
  return jsYaml.loadAll(text);
}

function floor(dir: string, serialize: ((blob: unknown) => string) | undefined): void {
  const fd = openSync('/dev/null', 'w');
  for (const file of listFiles(dir)) {
    const blobs = parseFile(readFileSync(file, 'utf8'));
    if (serialize) for (const b of blobs) writeSync(fd, serialize(b));
  }
  closeSync(fd);
}

let timed: number | undefined;

async function main(): Promise<number> {
  const [mode, ...args] = process.argv.slice(2);
  const dir = args[0] ?? '';
  switch (mode) {
    case 'floor-parse':
      floor(dir, undefined);
      return 0;
    case 'floor-render-json':
      floor(dir, (b) => JSON.stringify(b, null, 4) + '\n');
      return 0;
    case 'floor-render-yaml':
      floor(dir, (b) => '---\n' + jsYaml.dump(b, { sortKeys: true, lineWidth: 80 }));
      return 0;
    case 'parse-ours':
      // What the loader does with each file, in one thread: read it, split and parse its blobs.
      for (const file of listFiles(dir)) parseCatalogBytes(readFileSync(file));
      return 0;
    case 'load': {
      // loadCatalogDir as validate calls it, on args[1] threads, workers from args[2] bytes on;
      // args[3] `signal`: with a signal that does not fire, as the command line loads.
      const r = await loadCatalogDir(dir, {
        elidePayloads: true,
        threads: Number(args[1] ?? 1),
        workerMinBytes: Number(args[2] ?? 0),
        ...(args[3] === 'signal' ? { signal: new AbortController().signal } : {}),
      });
      return r.findings.some((f) => f.severity === 'error') ? 1 : 0;
    }
    case 'render': {
      // `render <dir> -o args[2]` to /dev/null on args[1] threads, workers whatever the size;
      // args[3] `whole`: loaded whole and then written, not file by file; args[4] `signal`: with a
      // signal that does not fire, as the command line renders.
      const fd = openSync('/dev/null', 'w');
      const chunks = await renderOutput(
        {
          refs: [dir],
          threads: Number(args[1]),
          parallelMinBytes: 0,
          byFile: args[3] !== 'whole',
          ...(args[4] === 'signal' ? { signal: new AbortController().signal } : {}),
        },
        args[2] === 'yaml' ? 'yaml' : 'json',
      );
      for (const c of chunks) writeSync(fd, typeof c === 'string' ? Buffer.from(c) : c);
      closeSync(fd);
      return 0;
    }
    case 'load-catalog':
      // The load floor of commands that read a whole catalog, payloads included, as render does.
      await loadCatalogDirOrThrow(dir);
      return 0;
    case 'opm': {
      const devnull = createWriteStream('/dev/null');
      const stderr = new PassThrough();
      const errText: Buffer[] = [];
      stderr.on('data', (b: Buffer) => errText.push(b));
      const code = await runCli(args, {
        stdout: devnull,
        stderr,
        stdin: process.stdin,
        env: process.env,
        cwd: process.cwd(),
        stderrIsTTY: false,
      });
      await new Promise<void>((resolve) => devnull.end(resolve));
      if (code !== 0) process.stderr.write(Buffer.concat(errText).toString('utf8').slice(0, 2000));
      return code;
    }
    case 'graph-layout': {
      // Imported here, not at the top: ELK and the browser client would weigh on every row's memory.
      // `dagre` forces dagre on every lane; `auto` is what render-graph does.
      const { layoutChannel } = await import('../src/graph/layout.js');
      const { buildUpgradeGraph } = await import('../src/graph/upgrade-graph.js');
      const [engine, catalog, pkg] = args;
      const elk = engine === 'elk' ? await import('./graph-layout-elk.js') : undefined;
      const { cfg } = await loadCatalogDir(catalog ?? '', { elidePayloads: true });
      const graph = buildUpgradeGraph(cfg, { packageName: pkg ?? '' });
      const channels = graph.packages.flatMap((p) => p.channels);
      const t0 = performance.now();
      for (const c of channels) {
        if (elk !== undefined) await elk.layoutChannelElk(c);
        else layoutChannel(c, undefined, engine === 'dagre' ? 'dagre' : 'auto');
      }
      timed = performance.now() - t0;
      return channels.length > 0 ? 0 : 1;
    }
    case 'graph-page': {
      const { graphPage } = await import('./graph-page.js');
      timed = await graphPage(args[0] ?? '', args[1] ?? '', args[2] ?? '');
      return 0;
    }
    default:
      throw new Error(`unknown mode ${mode ?? ''}`);
  }
}

const t0 = performance.now();
const code = await main();
const ms = timed ?? performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, maxRssMB: process.resourceUsage().maxRSS / 1024, code }) + '\n');
