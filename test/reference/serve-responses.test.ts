// needs-build: it starts `bin/opm.js serve` beside the reference opm's `serve`.
// The catalog server against the reference opm: both serve the same catalog on 127.0.0.1 and a
// @grpc/grpc-js client asks every RPC (test/serve/probe.ts) of each; the decoded answers must be
// equal (streams other than ListBundles compared as sets, as opm leaves their order to Go's maps).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusPath, haveCorpus, projectRoot } from '../corpus.js';
import { answering, freePort, OPM, registryClient, startServe } from '../serve/client.js';
import { probe, type ProbeOptions } from '../serve/probe.js';
import { reference } from './reference-opm.js';

if (!haveCorpus()) throw new Error('the differential suite needs the corpus');

async function answers(
  catalog: string,
  opts: ProbeOptions,
  binary?: string,
  cacheDir?: string,
): Promise<Record<string, unknown>> {
  const s = await startServe(catalog, {
    timeoutMs: 110_000,
    ...(binary === undefined ? {} : { binary }),
    ...(cacheDir === undefined ? {} : { extra: ['--cache-dir', cacheDir] }),
  });
  const c = registryClient(s.port);
  try {
    return await probe(c, opts);
  } finally {
    c.close();
    expect(await s.stop()).toBe(0);
  }
}

const cases: [string, ProbeOptions][] = [
  [
    'testdata/serve/mixed/catalog',
    {
      customSchemas: [
        { schema: 'acme.note', packageName: 'alpha-op' },
        { schema: 'acme.note', packageName: '' },
      ],
    },
  ],
  ...[
    'foo-index-v0.2.0-declcfg',
    'index-declcfgs/latest',
    'index-declcfgs/old',
    'index-declcfgs/exp-headsonly',
    'list-index',
  ].map((c): [string, ProbeOptions] => [corpusPath(path.join('opm-testdata', c)), {}]),
  [corpusPath('cool-catalog/catalog'), {}],
  // The per-bundle RPCs on a spread of 60 of its 781 bundles (the reference takes ~10 s to start).
  [corpusPath('community-catalog-v4.21'), { maxBundles: 60 }],
];

// Ours twice: loaded into memory (no --cache-dir), and from the on-disk cache `--cache-only` built
// (integrity enforced), which reads bundles from the database per call.
describe('opm serve: the same answers as the reference opm', () => {
  // Three servers start on the community catalog, the reference's taking ~10 s alone: on a loaded
  // 2-core machine the project's 120 s is too short for that case.
  it.each(cases)('%s', { timeout: 600_000 }, async (catalog, opts) => {
    const ours = await answers(catalog, opts);
    const cacheDir = mkdtempSync(path.join(tmpdir(), 'opm-serve-cache-'));
    let cached;
    try {
      const built = spawnSync(
        process.execPath,
        [OPM, 'serve', catalog, '--cache-dir', cacheDir, '--cache-only', '-t', '/dev/null'],
        { encoding: 'utf8' },
      );
      expect(built.status, built.stderr).toBe(0);
      cached = await answers(catalog, opts, undefined, cacheDir);
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
    const theirs = await answers(catalog, opts, reference);
    for (const k of new Set([...Object.keys(ours), ...Object.keys(theirs)])) {
      expect(ours[k], k).toEqual(theirs[k]);
      expect(cached[k], `${k} (from the cache)`).toEqual(theirs[k]);
    }
  });
});

// grpcurl reads the descriptors reflection serves: `list` and `describe` of every service and
// message must print the same text for both servers.
const grpcurl = [process.env.GRPCURL, path.join(projectRoot(), '.tools/bin/grpcurl')].find(
  (p): p is string => p !== undefined && p !== '' && existsSync(p),
);
if (grpcurl === undefined) {
  console.warn(
    '*** SKIPPED the grpcurl describe comparison: build grpcurl with scripts/build-grpc-tools.sh ***',
  );
}

describe.runIf(grpcurl !== undefined)('opm serve: what grpcurl describes through reflection', () => {
  it('is the same text for every service and message', async () => {
    const symbols = (port: number): string[] => {
      const run = (...args: string[]) =>
        spawnSync(grpcurl as string, ['-plaintext', `127.0.0.1:${port}`, ...args], { encoding: 'utf8' });
      const services = run('list').stdout.trim().split('\n');
      const out = [run('list').stdout];
      for (const s of services) {
        const d = run('describe', s).stdout;
        out.push(d);
        // Every message a method names, described too.
        for (const m of d.matchAll(/\( (?:stream )?\.([\w.]+) \)/g))
          out.push(run('describe', m[1] ?? '').stdout);
      }
      for (const m of [
        'api.Bundle',
        'google.protobuf.Value',
        'google.protobuf.NullValue',
        'grpc.health.v1.HealthListResponse',
      ])
        out.push(run('describe', m).stdout);
      return out;
    };
    const catalog = 'testdata/serve/mixed/catalog';
    const ours = await startServe(catalog);
    const theirs = await startServe(catalog, { binary: reference });
    try {
      expect(symbols(ours.port)).toEqual(symbols(theirs.port));
    } finally {
      expect(await ours.stop()).toBe(0);
      expect(await theirs.stop()).toBe(0);
    }
  });
});

/** How a start-up ends: `serving`, or the fatal line without its time. */
async function startup(catalog: string, binary?: string): Promise<string> {
  const port = await freePort();
  const args = ['serve', catalog, '-p', String(port), '-t', '/dev/null'];
  const child =
    binary === undefined
      ? spawn(process.execPath, [OPM, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
      : spawn(binary, [...args, '--pprof-addr='], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  let serving = false;
  child.stderr.setEncoding('utf8');
  return new Promise((resolve) => {
    child.stderr.on('data', (d: string) => {
      err += d;
      if (!serving && err.includes('msg="serving registry"')) {
        serving = true;
        void answering(port).finally(() => child.kill('SIGTERM'));
      }
    });
    child.on('exit', () => {
      const fatal = /level=fatal msg=.*/.exec(err)?.[0];
      resolve(fatal ?? (err.includes('msg="serving registry"') ? 'serving' : `no outcome: ${err}`));
    });
  });
}

const startupCases = [
  ...readdirSync('testdata/validate').map((c) => path.join('testdata/validate', c, 'catalog')),
  ...readdirSync('testdata/serve').map((c) => path.join('testdata/serve', c, 'catalog')),
].filter(
  // Several packages fail there: which one opm reports depends on its workers (compatibility row S5).
  (c) => existsSync(c) && !c.includes('/multi-file/') && !c.includes('/channel-order-in-tree/'),
);

describe('opm serve: the same start-up outcome as the reference opm (serving, or the same fatal line)', () => {
  it.each(startupCases)('%s', async (catalog) => {
    expect(await startup(catalog)).toBe(await startup(catalog, reference));
  });
});
