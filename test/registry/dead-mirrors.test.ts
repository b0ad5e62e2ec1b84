// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
// needs-registry: real registry servers on 127.0.0.1 (docker-registry).
// registries.conf with thousands of mirrors that cannot be reached, before a real registry on
// 127.0.0.1 as the source: each dead mirror is dialled at most once in a run, and the pulls fall back
// to the source.
import net from 'node:net';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startPlainRegistry, type RegistryProcess } from './fixture.js';
import { BUNDLE_LABELS, buildImage, pushImage, type BuiltImage } from './image-builder.js';
import { pullError, tempDir, testClient, testdata } from './helpers.js';
import { startFaultProxy, type FaultProxy } from './servers.js';
import { freePort } from './tools.js';

const MIRRORS = 2000;

let tmp: ReturnType<typeof tempDir>;
let source: RegistryProcess;
let src: FaultProxy;
let img: BuiltImage;
let other: BuiltImage;
/** A port nothing listens on. */
let closedPort: number;
let confCount = 0;

/**
 * Mirror hosts that refuse connections: one closed port on distinct loopback addresses
 * (127.0.0.0/8 all answers locally), so each is an endpoint of its own.
 */
const deadHost = (i: number): string => `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}:${closedPort}`;

/** A registries.conf whose `[[registry]]` for the source has these mirrors, in order. */
function conf(mirrors: string[]): string {
  const lines = ['[[registry]]', `location = "${src.host}"`];
  for (const m of mirrors) lines.push('[[registry.mirror]]', `location = "${m}/mirror"`);
  const file = path.join(tmp.dir, `registries-${++confCount}.conf`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** Log lines of failed attempts at `host`. */
const attemptsAt = (logs: string[], host: string): number =>
  logs.filter((l) => l.startsWith(`${host}/mirror/`) && !l.startsWith('trying')).length;

/** Servers that accept each connection and reset it at once, counting them. */
async function resettingServer(): Promise<{ host: string; accepted: number; close(): Promise<void> }> {
  const state = { host: '', accepted: 0, close: () => Promise.resolve() };
  const server = net.createServer((socket) => {
    state.accepted++;
    socket.resetAndDestroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const a = server.address();
  state.host = `127.0.0.1:${typeof a === 'object' && a !== null ? a.port : 0}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}

beforeAll(async () => {
  tmp = tempDir('opm-dead-mirrors-');
  source = await startPlainRegistry(tmp.dir, 'source');
  src = await startFaultProxy(await freePort(), source.port);
  closedPort = await freePort();
  img = await buildImage({ layers: [{ dir: testdata('foo-bundle-v0.3.0') }], labels: BUNDLE_LABELS('foo') });
  other = await buildImage({
    layers: [{ dir: testdata('foo-bundle-v0.3.1') }],
    labels: BUNDLE_LABELS('foo'),
  });
  await pushImage(img, { url: source.url, repo: 'ns/foo', tag: 'v1' });
  await pushImage(other, { url: source.url, repo: 'ns/foo', tag: 'v2' });
});

beforeEach(() => src.reset());

afterAll(async () => {
  // Unassigned when beforeAll failed before reaching them.
  await (src as FaultProxy | undefined)?.close();
  await (source as RegistryProcess | undefined)?.stop();
  (tmp as ReturnType<typeof tempDir> | undefined)?.remove();
});

describe('mirrors that cannot be reached', () => {
  it(`dials each of ${MIRRORS} refusing mirrors once in a run, and pulls from the source`, async () => {
    const hosts = Array.from({ length: MIRRORS }, (_, i) => deadHost(i));
    const c = testClient(tmp.dir, { useHttp: true, env: { CONTAINERS_REGISTRIES_CONF: conf(hosts) } });
    const first = await c.client.pull(`${src.host}/ns/foo:v1`);
    expect(first.digest).toBe(img.top.digest);
    await first.release();
    const afterFirst = c.logs.length;
    const second = await c.client.pull(`${src.host}/ns/foo:v2`);
    expect(second.digest).toBe(other.top.digest);
    await second.release();
    await c.client.close();

    // The first pull tried every mirror once, without retrying any; the second tried none.
    for (const h of [hosts[0] ?? '', hosts[MIRRORS >> 1] ?? '', hosts[MIRRORS - 1] ?? ''])
      expect(attemptsAt(c.logs, h)).toBe(1);
    const failed = c.logs.filter((l) => /^127\.1\.\d+\.\d+:\d+\/mirror\/.*: .*ECONNREFUSED/.test(l));
    expect(failed).toHaveLength(MIRRORS);
    expect(c.logs.filter((l) => l.includes('retrying'))).toEqual([]);
    const secondLogs = c.logs.slice(afterFirst);
    expect(secondLogs.filter((l) => l.includes('(mirror)') || l.startsWith('127.1.'))).toEqual([]);
    expect(secondLogs).toContain(
      `${MIRRORS} mirror(s) not tried: unreachable earlier in this run (ECONNREFUSED)`,
    );
    expect(src.counts.manifest).toBe(2);
  });

  it('gives up on a mirror that resets every connection after one, for the rest of the run', async () => {
    const resetting = await Promise.all([resettingServer(), resettingServer()]);
    try {
      const c = testClient(tmp.dir, {
        useHttp: true,
        env: { CONTAINERS_REGISTRIES_CONF: conf(resetting.map((r) => r.host)) },
      });
      for (const tag of ['v1', 'v2']) {
        const pulled = await c.client.pull(`${src.host}/ns/foo:${tag}`);
        await pulled.release();
      }
      await c.client.close();
      expect(resetting.map((r) => r.accepted)).toEqual([1, 1]);
      expect(c.logs.filter((l) => l.includes('retrying'))).toEqual([]);
      expect(src.counts.manifest).toBe(2);
    } finally {
      await Promise.all(resetting.map((r) => r.close()));
    }
  });

  it('dials a refusing mirror once when several pulls want it at the same time', async () => {
    const resetting = await resettingServer();
    try {
      const c = testClient(tmp.dir, {
        useHttp: true,
        env: { CONTAINERS_REGISTRIES_CONF: conf([resetting.host]) },
      });
      const pulled = await Promise.all(
        ['v1', 'v2', 'v1', 'v2'].map((tag) => c.client.pull(`${src.host}/ns/foo:${tag}`)),
      );
      for (const p of pulled) await p.release();
      await c.client.close();
      expect(pulled.map((p) => p.digest)).toEqual([
        img.top.digest,
        other.top.digest,
        img.top.digest,
        other.top.digest,
      ]);
      expect(resetting.accepted).toBe(1);
    } finally {
      await resetting.close();
    }
  });

  it('stops trying mirrors once unreachable ones used up OPM_REGISTRY_MIRROR_BUDGET', async () => {
    const hosts = Array.from({ length: 50 }, (_, i) => deadHost(i));
    const c = testClient(tmp.dir, {
      useHttp: true,
      env: { CONTAINERS_REGISTRIES_CONF: conf(hosts), OPM_REGISTRY_MIRROR_BUDGET: '0' },
    });
    const pulled = await c.client.pull(`${src.host}/ns/foo:v1`);
    expect(pulled.digest).toBe(img.top.digest);
    await pulled.release();
    await c.client.close();
    // A budget of nothing: the first unreachable mirror spends it; the 49 others are not dialled.
    expect(hosts.map((h) => attemptsAt(c.logs, h))).toEqual([1, ...Array<number>(49).fill(0)]);
    expect(c.logs).toContainEqual(
      expect.stringMatching(
        /^warning: mirrors that could not be reached took 0 s: other mirrors are not tried in this run/,
      ),
    );
    expect(c.logs).toContain('49 mirror(s) not tried: mirrors that could not be reached used up their time');
  });

  it('names what was not tried when the source fails too', async () => {
    const hosts = Array.from({ length: 3 }, (_, i) => deadHost(i));
    const c = testClient(tmp.dir, { useHttp: true, env: { CONTAINERS_REGISTRIES_CONF: conf(hosts) } });
    const first = await c.client.pull(`${src.host}/ns/foo:v1`);
    await first.release();
    const err = await pullError(c.client.pull(`${src.host}/ns/foo:missing`));
    await c.client.close();
    expect(err.code).toBe('E_REGISTRY_NOT_FOUND');
    expect(err.message).toBe(
      `failed to pull image "${src.host}/ns/foo:missing": all 4 sources failed: ` +
        `${src.host}/ns/foo:missing: tag "missing" not found in repository "ns/foo" (MANIFEST_UNKNOWN: manifest unknown); ` +
        '3 more mirror(s) not tried (unreachable in this run)',
    );
  });
});
