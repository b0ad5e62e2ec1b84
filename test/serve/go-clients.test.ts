// needs-build: it starts `bin/opm.js serve` and calls it with the Go clients.
/**
 * The real clients catalog pods and people use: grpc_health_probe (the probes of catalog pods)
 * and grpcurl (through server reflection, with no proto file). They are Go programs built into
 * .tools/bin (scripts/build-grpc-tools.sh), or named by $GRPC_HEALTH_PROBE and $GRPCURL. Without
 * them these tests are skipped with a loud line; in CI their absence is an error.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../corpus.js';
import { startServe, type Served } from './client.js';
import { PATIENCE_MS } from '../patience.js';

function tool(env: string, names: string[]): string | undefined {
  const given = process.env[env];
  if (given !== undefined && given !== '') return given;
  return names.map((n) => path.join(projectRoot(), '.tools/bin', n)).find((p) => existsSync(p));
}

const probe = tool('GRPC_HEALTH_PROBE', ['grpc_health_probe', 'grpc-health-probe']);
const grpcurl = tool('GRPCURL', ['grpcurl']);
for (const [name, found] of [
  ['grpc_health_probe', probe],
  ['grpcurl', grpcurl],
] as const) {
  if (found !== undefined) continue;
  if (process.env.CI === 'true') throw new Error(`CI runs every suite: ${name} must be in .tools/bin`);
  console.warn(
    `*** SKIPPED the ${name} tests of test/serve/go-clients.test.ts: build it with scripts/build-grpc-tools.sh ***`,
  );
}

let served: Served;
beforeAll(async () => {
  served = await startServe('testdata/serve/mixed/catalog');
});
afterAll(async () => {
  expect(await served.stop()).toBe(0);
});

describe.runIf(probe !== undefined)('grpc_health_probe', () => {
  it.each(['', 'Registry', 'anything'])('service %j is SERVING (exit 0)', (service) => {
    const r = spawnSync(probe as string, [`-addr=127.0.0.1:${served.port}`, `-service=${service}`], {
      encoding: 'utf8',
    });
    expect(r.stdout + r.stderr).toBe('status: SERVING\n');
    expect(r.status).toBe(0);
  });
});

describe.runIf(grpcurl !== undefined)('grpcurl through reflection', () => {
  const call = (...args: string[]) =>
    spawnSync(grpcurl as string, ['-plaintext', ...args], { encoding: 'utf8', timeout: PATIENCE_MS });
  const addr = () => `127.0.0.1:${served.port}`;

  it('lists the services', () => {
    const r = call(addr(), 'list');
    expect(r.stdout.trim().split('\n')).toEqual([
      'api.ExperimentalRegistry',
      'api.Registry',
      'grpc.health.v1.Health',
      'grpc.reflection.v1.ServerReflection',
      'grpc.reflection.v1alpha.ServerReflection',
    ]);
  });

  it('describes a service and a message that uses google.protobuf.Struct', () => {
    const r = call(addr(), 'describe', 'api.ExperimentalRegistry');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('returns ( stream .google.protobuf.Struct )');
    const b = call(addr(), 'describe', 'api.Bundle');
    expect(b.stdout).toContain('repeated .api.GroupVersionKind providedApis = 7;');
  });

  it('calls GetPackage, ListBundles and the experimental stream without a proto file', () => {
    const pkg = call('-d', '{"name":"alpha-op"}', addr(), 'api.Registry/GetPackage');
    expect(JSON.parse(pkg.stdout)).toEqual({
      name: 'alpha-op',
      channels: [
        { name: 'fast', csvName: 'alpha-op.v1.1.0', deprecation: { message: 'use stable' } },
        { name: 'stable', csvName: 'alpha-op.v1.1.0' },
      ],
      defaultChannelName: 'stable',
    });
    const list = call(addr(), 'api.Registry/ListBundles');
    expect(list.status).toBe(0);
    expect(list.stdout.match(/"csvName"/g)).toHaveLength(6);
    const missing = call('-d', '{"name":"nope"}', addr(), 'api.Registry/GetPackage');
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('Code: Unknown');
    expect(missing.stderr).toContain('Message: package "nope" not found');
    const exp = call(
      '-H',
      'x-acknowledge-experimental: true',
      '-d',
      '{"schema":"acme.note","packageName":"alpha-op"}',
      addr(),
      'api.ExperimentalRegistry/ExperimentalListPackageCustomSchemas',
    );
    expect(exp.status).toBe(0);
    expect(exp.stdout).toContain('"name": "first"');
    const health = call('-d', '{"service":"x"}', addr(), 'grpc.health.v1.Health/Check');
    expect(JSON.parse(health.stdout)).toEqual({ status: 'SERVING' });
  });
});
