// `opm serve` through the real clients: the reference opm on our fixture, operator-registry's test
// catalogs and a real community catalog, every Registry RPC (test/serve/harness.ts, collectAll)
// and the OLM client's walk (opm-serve-client olm), checked for what the server must answer; then
// opm-ts on the same catalogs, which must answer the same. Also the tools themselves: grpcurl's
// list/describe through reflection and grpc_health_probe.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath, haveCorpus } from '../corpus.js';
import {
  buildCache,
  collectAll,
  differences,
  grpcurl,
  grpcurlCall,
  missingTools,
  olmWalk,
  oursKind,
  oursServes,
  probe,
  referenceKind,
  startServer,
  type CallResult,
  type Server,
  type ServeRecord,
  type ServerKind,
} from '../serve/harness.js';
import { reference } from './reference-opm.js';

if (!haveCorpus()) throw new Error('the differential suite needs the corpus');
const missing = missingTools();
if (missing.length > 0) {
  // CI builds them before this suite (.ci/run); elsewhere their absence is said loudly.
  if (process.env.CI === 'true') throw new Error(`the serve tests need ${missing.join(', ')}`);
  console.warn(`\n*** SKIPPED the opm serve tests: missing ${missing.join(', ')} ***\n`);
}
const haveTools = missing.length === 0;
// Until `opm serve` lands in opm-ts only the reference is checked (said loudly below).
const compare = haveTools && oursServes();
if (haveTools && !compare) {
  console.warn(
    '\n*** SKIPPED the opm serve comparison: `bin/opm.js serve --help` fails (no serve command yet); ' +
      'only the reference server is checked ***\n',
  );
}

const refKind = referenceKind(reference);
const FIXTURE = 'testdata/serve-clients';
const opmTestdata = corpusPath('opm-testdata');
const catalogs: { name: string; dir: string; timeout: number }[] = [
  { name: 'serve-clients fixture', dir: path.join(FIXTURE, 'catalog'), timeout: 120_000 },
  ...['foo-index-v0.2.0-declcfg', 'list-index'].map((d) => ({
    name: `opm-testdata/${d}`,
    dir: path.join(opmTestdata, d),
    timeout: 120_000,
  })),
  ...readdirSync(path.join(opmTestdata, 'index-declcfgs'))
    .sort()
    .map((d) => ({
      name: `opm-testdata/index-declcfgs/${d}`,
      dir: path.join(opmTestdata, 'index-declcfgs', d),
      timeout: 120_000,
    })),
  { name: 'community-catalog-v4.21', dir: corpusPath('community-catalog-v4.21'), timeout: 900_000 },
];

interface Observed {
  record: ServeRecord;
  olm: Record<string, unknown>;
  exit: { code: number | null; signal: NodeJS.Signals | null; stdout: string };
}

/** Serve `dir` with `kind`, make every call and the OLM walk, stop with SIGTERM. */
async function observe(kind: ServerKind, dir: string): Promise<Observed> {
  const server = await startServer(kind, dir);
  try {
    const record = await collectAll(server.address, dir);
    const olm = await olmWalk(server.address);
    return { record, olm, exit: await server.stop() };
  } catch (e) {
    await server.stop();
    throw e;
  }
}

const calls = (r: ServeRecord, method: string): CallResult[] => r.calls.filter((c) => c.method === method);
const notFound = (r: CallResult): string => `${r.error?.code ?? 'OK'}: ${r.error?.message ?? ''}`;

describe.skipIf(!haveTools)('opm serve: every RPC through operator-registry’s client', () => {
  describe.each(catalogs)('$name', ({ dir, timeout }) => {
    let ref: Observed | undefined;

    it('the reference answers every RPC as the contract says', { timeout }, async () => {
      ref = await observe(refKind, dir);
      const { record, olm, exit } = ref;
      // SIGTERM is a clean stop; stdout carries nothing.
      expect(exit).toEqual({ code: 0, signal: null, stdout: '' });

      const packageNames = (calls(record, 'ListPackages')[0]?.stream ?? []).map(
        (p) => (p as { name: string }).name,
      );
      const gets = calls(record, 'GetPackage').filter((c) => c.response !== undefined);
      expect(packageNames.length).toBeGreaterThan(0);
      expect(gets.map((c) => c.request.name)).toEqual(packageNames);
      for (const c of gets) {
        const pkg = c.response as {
          channels: { name: string; csvName: string }[];
          defaultChannelName: string;
        };
        const names = pkg.channels.map((ch) => ch.name);
        expect(names).toEqual([...names].sort());
        expect(names).toContain(pkg.defaultChannelName);
        // Each channel's head is what GetBundleForChannel answers.
        for (const ch of pkg.channels) {
          const head = calls(record, 'GetBundleForChannel').find(
            (h) => h.request.pkgName === c.request.name && h.request.channelName === ch.name,
          );
          expect((head?.response as { csvName?: string } | undefined)?.csvName).toBe(ch.csvName);
        }
      }

      // ListBundles: one message per channel entry, sorted by channel, package, bundle name.
      const listed = (calls(record, 'ListBundles')[0]?.stream ?? []) as Record<string, unknown>[];
      const entries = calls(record, 'GetBundle').filter((c) => c.response !== undefined);
      expect(listed.length).toBe(entries.length);
      const order = listed.map((b) => [b.channelName, b.packageName, b.csvName].join('\u0000'));
      expect(order).toEqual([...order].sort());
      for (const b of listed) {
        // Bundles with an image are listed without their manifests.
        if (b.bundlePath !== undefined) expect(b.csvJson ?? b.object).toBeUndefined();
      }
      // GetBundle: the asked bundle, with replaces and skips trimmed.
      for (const c of entries) {
        const b = c.response as Record<string, unknown>;
        expect([b.packageName, b.channelName, b.csvName]).toEqual([
          c.request.pkgName,
          c.request.channelName,
          c.request.csvName,
        ]);
        expect(b.replaces ?? b.skips).toBeUndefined();
      }
      // Not-found answers are status Unknown with opm's texts.
      const none = 'opm-serve-test-no-such';
      const missingPackage = calls(record, 'GetPackage').find((c) => c.request.name === none);
      expect(missingPackage && notFound(missingPackage)).toBe(`Unknown: package "${none}" not found`);
      const missingEntries = calls(record, 'GetChannelEntriesThatReplace').find(
        (c) => c.request.csvName === none,
      );
      expect(missingEntries && notFound(missingEntries)).toBe(
        `Unknown: no channel entries found that replace ${none}`,
      );
      const missingProvider = calls(record, 'GetDefaultBundleThatProvides').find(
        (c) => c.request.group === none,
      );
      expect(missingProvider && notFound(missingProvider)).toBe(
        `Unknown: no channel entries found that provide group:"${none}" version:"v1" kind:"Nothing"`,
      );
      // The experimental RPC: an empty stream without the acknowledgement header.
      const experimental = calls(record, 'ExperimentalListPackageCustomSchemas');
      expect(experimental[0]?.error).toBeUndefined();
      expect(experimental[0]?.stream ?? []).toEqual([]);
      expect(experimental[1] && notFound(experimental[1])).toBe('InvalidArgument: schema is required');

      // The OLM client's walk agrees with the RPCs above.
      expect(olm.healthy).toBe(true);
      expect(olm.packageCount).toBe(packageNames.length);
      expect(olm.bundleCount).toBe(listed.length);
      expect(olm.listBundles).toEqual(listed);
      for (const b of Object.values(olm.bundles as Record<string, { error?: unknown }>)) {
        expect(b.error).toBeUndefined();
      }
    });

    it.skipIf(!compare)('opm-ts answers the same', { timeout }, async () => {
      expect(ref, 'the reference run above failed').toBeDefined();
      const ours = await observe(oursKind(), dir);
      expect(ours.exit.code).toBe(0);
      expect(ours.exit.stdout).toBe('');
      expect(differences(ref?.record ?? { catalog: dir, calls: [] }, ours.record)).toEqual([]);
      expect(ours.olm).toEqual(ref?.olm);
    });
  });
});

// The fixture's record as the reference answers it, kept beside the catalog for review and for
// opm-ts's own tests (regenerate with UPDATE_FIXTURES=1, then review the diff).
describe.skipIf(!haveTools)('serve-clients fixture: expected record', () => {
  it('is what the reference answers', async () => {
    const dir = path.join(FIXTURE, 'catalog');
    const expectedFile = path.join(FIXTURE, 'expected.json');
    const server = await startServer(refKind, dir);
    let record: ServeRecord;
    try {
      record = await collectAll(server.address, dir);
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
    const text = `${JSON.stringify(record.calls, null, 2)}\n`;
    if (process.env.UPDATE_FIXTURES === '1') writeFileSync(expectedFile, text);
    expect(existsSync(expectedFile), `${expectedFile} is missing: run with UPDATE_FIXTURES=1`).toBe(true);
    expect(text).toBe(readFileSync(expectedFile, 'utf8'));
  });
});

describe.skipIf(!haveTools)('the tools against the reference', () => {
  let server: Server;
  const dir = corpusPath('opm-testdata', 'foo-index-v0.2.0-declcfg');
  beforeAll(async () => {
    server = await startServer(refKind, dir);
  });
  afterAll(async () => {
    expect((await server.stop()).code).toBe(0);
  });

  it('grpcurl lists the services through reflection', async () => {
    const r = await grpcurl(server.address, ['list']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([
      'api.ExperimentalRegistry',
      'api.Registry',
      'grpc.health.v1.Health',
      'grpc.reflection.v1.ServerReflection',
      'grpc.reflection.v1alpha.ServerReflection',
    ]);
  });

  it('grpcurl describes the Registry and its messages, Struct included', async () => {
    const registry = await grpcurl(server.address, ['describe', 'api.Registry']);
    expect(registry.code).toBe(0);
    for (const rpc of [
      'ListPackages',
      'GetBundleForChannel',
      'ListBundles',
      'GetDefaultBundleThatProvides',
    ]) {
      expect(registry.stdout).toContain(`rpc ${rpc}`);
    }
    const bundle = await grpcurl(server.address, ['describe', 'api.Bundle']);
    expect(bundle.code).toBe(0);
    expect(bundle.stdout).toContain('repeated .api.GroupVersionKind providedApis = 7;');
    const experimental = await grpcurl(server.address, ['describe', 'api.ExperimentalRegistry']);
    expect(experimental.stdout).toContain('stream .google.protobuf.Struct');
  });

  it('grpcurl calls a unary and a streaming RPC and gets opm’s error texts', async () => {
    const pkg = await grpcurlCall(server.address, 'api.Registry/GetPackage', { name: 'foo' });
    expect(pkg.code).toBe(0);
    expect(pkg.messages).toEqual([
      {
        name: 'foo',
        channels: [
          { name: 'beta', csvName: 'foo.v0.2.0' },
          { name: 'stable', csvName: 'foo.v0.2.0' },
        ],
        defaultChannelName: 'beta',
      },
    ]);
    const listed = await grpcurlCall(server.address, 'api.Registry/ListBundles');
    expect(listed.messages.map((b) => (b as { channelName: string }).channelName)).toEqual([
      'beta',
      'beta',
      'stable',
    ]);
    const missingPkg = await grpcurlCall(server.address, 'api.Registry/GetPackage', { name: 'nope' });
    expect(missingPkg.code).not.toBe(0);
    expect(missingPkg.stderr).toContain('Code: Unknown');
    expect(missingPkg.stderr).toContain('Message: package "nope" not found');
  });

  it('grpc_health_probe gets SERVING for any service name; Watch is unimplemented', async () => {
    for (const service of ['', 'Registry', 'whatever']) {
      const r = await probe(server.address, service);
      expect(r.code, `${service}: ${r.stderr}`).toBe(0);
      expect(`${r.stdout}${r.stderr}`).toContain('status: SERVING');
    }
    const check = await grpcurlCall(server.address, 'grpc.health.v1.Health/Check', { service: 'x' });
    expect(check.messages).toEqual([{ status: 'SERVING' }]);
    const watch = await grpcurlCall(server.address, 'grpc.health.v1.Health/Watch', {});
    expect(watch.stderr).toContain('Code: Unimplemented');
  });
});

// The cache the image build step writes (`--cache-only`) is what the enforcing server starts from.
// An image is built by one opm (`--cache-only` in the builder stage) and may be served by another
// (OLM's extractContent runs its own opm on the image's cache), with integrity enforced: each opm
// serves the other's cache.
describe.skipIf(!haveTools)('a prebuilt cache', () => {
  const dir = path.join(FIXTURE, 'catalog');
  const builders: [string, ServerKind, ServerKind, boolean][] = [
    ['the reference serves the reference’s cache', refKind, refKind, true],
    ['opm-ts serves the reference’s cache', refKind, oursKind(), compare],
    ['the reference serves opm-ts’s cache', oursKind(), refKind, compare],
  ];
  for (const [name, builder, server, run] of builders) {
    it.skipIf(!run)(`${name} (--cache-only, then integrity enforced)`, async () => {
      const cache = mkdtempSync(path.join(tmpdir(), 'opm-serve-cache-'));
      try {
        const built = await buildCache(builder, dir, cache);
        expect(built.code, built.stderr).toBe(0);
        // Go opm writes its preferred layout; either of its layouts is one both opms read.
        if (builder === refKind) expect(readdirSync(cache)).toEqual(['pogreb.v1']);
        const s = await startServer(server, dir, { cacheDir: cache });
        const record = await collectAll(s.address, dir);
        expect((await s.stop()).code).toBe(0);
        expect(`${JSON.stringify(record.calls, null, 2)}\n`).toBe(
          readFileSync(path.join(FIXTURE, 'expected.json'), 'utf8'),
        );
      } finally {
        rmSync(cache, { recursive: true, force: true });
      }
    });
  }
});

// What people see through grpcurl depends on the descriptors the server reflects: the same
// invocations against both servers print the same text.
describe.skipIf(!compare)('grpcurl and grpc_health_probe: opm-ts as the reference', () => {
  const dir = corpusPath('opm-testdata', 'foo-index-v0.2.0-declcfg');
  const invocations: { name: string; verb: string[]; flags?: string[] }[] = [
    { name: 'list', verb: ['list'] },
    ...[
      'api.Registry',
      'api.ExperimentalRegistry',
      'api.Bundle',
      'api.Package',
      'api.GetBundleRequest',
      'grpc.health.v1.Health',
      'google.protobuf.Struct',
    ].map((symbol) => ({ name: `describe ${symbol}`, verb: ['describe', symbol] })),
    {
      name: 'GetBundle',
      verb: ['api.Registry/GetBundle'],
      flags: ['-d', '{"pkgName":"foo","channelName":"beta","csvName":"foo.v0.2.0"}'],
    },
    { name: 'ListBundles', verb: ['api.Registry/ListBundles'] },
    { name: 'GetPackage not found', verb: ['api.Registry/GetPackage'], flags: ['-d', '{"name":"nope"}'] },
    {
      name: 'experimental without a schema',
      verb: ['api.ExperimentalRegistry/ExperimentalListPackageCustomSchemas'],
      flags: ['-H', 'x-acknowledge-experimental: true', '-d', '{}'],
    },
    { name: 'Health/Watch', verb: ['grpc.health.v1.Health/Watch'] },
  ];
  let refServer: Server;
  let ourServer: Server;
  beforeAll(async () => {
    refServer = await startServer(refKind, dir);
    ourServer = await startServer(oursKind(), dir);
  });
  afterAll(async () => {
    expect((await refServer.stop()).code).toBe(0);
    expect((await ourServer.stop()).code).toBe(0);
  });

  it.each(invocations)('$name', async ({ verb, flags }) => {
    const a = await grpcurl(refServer.address, verb, flags);
    const b = await grpcurl(ourServer.address, verb, flags);
    expect({ code: b.code, stdout: b.stdout, stderr: b.stderr }).toEqual({
      code: a.code,
      stdout: a.stdout,
      stderr: a.stderr,
    });
  });

  it('grpc_health_probe', async () => {
    for (const service of ['', 'Registry', 'whatever']) {
      const a = await probe(refServer.address, service);
      const b = await probe(ourServer.address, service);
      expect({ code: b.code, out: b.stdout + b.stderr }).toEqual({ code: a.code, out: a.stdout + a.stderr });
    }
  });
});
