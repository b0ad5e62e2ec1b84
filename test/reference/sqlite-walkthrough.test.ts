// needs-registry: bundle, index and catalog images on a real docker-registry on 127.0.0.1.
// needs-build: it starts `bin/opm.js serve` and `registry serve` and calls them with grpcurl.
// The documentation's SQLite walk-through, end to end without a container engine: `index add
// --bundles … --tag …` (`-c none --push`), again `--from-index` it, the index image served as its
// entrypoint says and asked `api.Registry/ListPackages` by grpcurl, `index prune -f … -p a,b -t …`,
// then out of SQLite: `migrate <index image> <dir>`, `validate <dir>`, `image build` of the dir,
// that image served and asked again. Each image is rendered (and migrated) by the reference opm
// too, with the same bytes, and the reference's `registry serve` of each database answers as ours.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reference } from './reference-opm.js';
import { projectRoot } from '../corpus.js';
import { answering, freePort, OPM } from '../serve/client.js';
import { bundleRegistry, insertRows } from './bundle-registry.js';
import { csvName, type BundleSpec } from '../sqlite/bundles.js';

const grpcurl = process.env.GRPCURL ?? path.join(projectRoot(), '.tools/bin/grpcurl');
if (!existsSync(grpcurl))
  throw new Error(`the walk-through needs grpcurl at ${grpcurl} (scripts/build-grpc-tools.sh)`);

const reg = bundleRegistry('opm-sqlite-walk-');
const { tmp, env, imageOf, opmRef } = reg;

const ETCD_1: BundleSpec = {
  pkg: 'etcd',
  version: '0.9.0',
  channels: ['alpha'],
  defaultChannel: 'alpha',
  owns: ['EtcdCluster'],
};
const ETCD_2: BundleSpec = {
  pkg: 'etcd',
  version: '0.9.2',
  channels: ['alpha', 'stable'],
  defaultChannel: 'stable',
  replaces: csvName('etcd', '0.9.0'),
  owns: ['EtcdCluster'],
};
const PROM: BundleSpec = {
  pkg: 'prom',
  version: '1.0.0',
  channels: ['beta'],
  defaultChannel: 'beta',
  owns: ['Prometheus'],
};
const VAULT: BundleSpec = {
  pkg: 'vault',
  version: '2.0.0',
  channels: ['stable'],
  defaultChannel: 'stable',
  owns: ['Vault'],
};

let host = '';
let base = '';
const image = (name: string): string => `${host}/walk/${name}`;

beforeAll(async () => {
  await reg.start();
  await reg.push([ETCD_1, ETCD_2, PROM, VAULT]);
  base = await reg.pushBase();
  host = reg.registry().plain.host;
}, 600_000);

afterAll(reg.stop);

/** opm-ts as a user runs it: bin/opm.js in its own process, in the scratch folder. */
function opm(args: string[], cwd = tmp): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [OPM, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...env(), SOURCE_DATE_EPOCH: '0' },
    maxBuffer: 1 << 28,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function ok(r: { code: number; stderr: string }): void {
  expect(r.code, r.stderr).toBe(0);
}

/** The image's config and its layers' blobs, read from the plain registry's HTTP API. */
async function pulled(ref: string): Promise<{ config: Record<string, unknown>; layers: Buffer[] }> {
  const at = ref.indexOf('/');
  const [repo, tag] = ref.slice(at + 1).split(':') as [string, string];
  const url = `http://${ref.slice(0, at)}/v2/${repo}`;
  const accept = [
    'application/vnd.oci.image.index.v1+json',
    'application/vnd.oci.image.manifest.v1+json',
    'application/vnd.docker.distribution.manifest.v2+json',
    'application/vnd.docker.distribution.manifest.list.v2+json',
  ].join(', ');
  const json = async (u: string): Promise<Record<string, unknown>> => {
    const r = await fetch(u, { headers: { accept } });
    expect(r.status, u).toBe(200);
    return (await r.json()) as Record<string, unknown>;
  };
  let manifest = await json(`${url}/manifests/${tag}`);
  const list = manifest.manifests as Array<{ digest: string }> | undefined;
  if (list !== undefined) manifest = await json(`${url}/manifests/${(list[0] as { digest: string }).digest}`);
  const blob = async (digest: string): Promise<Buffer> =>
    Buffer.from(await (await fetch(`${url}/blobs/${digest}`)).arrayBuffer());
  const config = JSON.parse(
    (await blob((manifest.config as { digest: string }).digest)).toString('utf8'),
  ) as Record<string, unknown>;
  const layers: Buffer[] = [];
  for (const l of manifest.layers as Array<{ digest: string }>) layers.push(await blob(l.digest));
  return { config, layers };
}

/** The image's layers unpacked, in order, into a new folder. */
async function unpacked(ref: string): Promise<{ root: string; config: Record<string, unknown> }> {
  const { config, layers } = await pulled(ref);
  const root = mkdtempSync(path.join(tmp, 'rootfs-'));
  layers.forEach((layer, i) => {
    const file = path.join(tmp, `${path.basename(root)}-${i}.tar.gz`);
    writeFileSync(file, layer);
    const r = spawnSync('tar', ['-xzf', file, '-C', root], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });
  return { root, config: (config.config ?? {}) as Record<string, unknown> };
}

/** A server (`argv`) started on `port`, once it answers; SIGTERM stops it. */
async function started(argv: string[], port: number): Promise<{ stop: () => Promise<number | null> }> {
  const [cmd, ...args] = argv;
  const child = spawn(cmd as string, args, { cwd: tmp, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stdout.resume();
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    await Promise.race([
      answering(port, 300_000),
      exited.then((c) => Promise.reject(new Error(`${argv.join(' ')} exited ${c}: ${err}`))),
    ]);
  } catch (e) {
    child.kill('SIGTERM');
    throw e;
  }
  return {
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** What `grpcurl -plaintext 127.0.0.1:PORT api.Registry/ListPackages` prints of the server argv starts. */
async function listPackages(argv: string[]): Promise<string> {
  const port = await freePort();
  const server = await started([...argv, '-p', String(port)], port);
  try {
    const r = spawnSync(grpcurl, ['-plaintext', `127.0.0.1:${port}`, 'api.Registry/ListPackages'], {
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    return r.stdout;
  } finally {
    await server.stop();
  }
}

const names = (out: string): string[] =>
  out
    .split(/\n(?=\{)/)
    .filter((m) => m.trim() !== '')
    .map((m) => (JSON.parse(m) as { name: string }).name)
    .sort();

/** `render <ref> -o yaml` by both tools: the same bytes, which it gives. */
function renderedAlike(ref: string): string {
  const theirs = opmRef(['render', ref, '-o', 'yaml', '--use-http']);
  const ours = opm(['render', ref, '-o', 'yaml', '--use-http']);
  expect(theirs.code, theirs.stderr).toBe(0);
  ok(ours);
  expect(ours.stdout).toBe(theirs.stdout);
  return ours.stdout;
}

/** Every file under `dir` by its path, with its text. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const full = path.join(e.parentPath, e.name);
    out[path.relative(dir, full)] = readFileSync(full, 'utf8');
  }
  return out;
}

/**
 * The index image served as it would run: its entrypoint and command, `/bin/opm registry serve
 * --database /database/index.db`, with the database unpacked from the image, by both tools; and
 * `opm serve <index image>`, which pulls it and runs the same. The three answers are the same.
 */
async function servedIndex(ref: string): Promise<string[]> {
  const { root, config } = await unpacked(ref);
  expect(config.Entrypoint).toEqual(['/bin/opm']);
  const cmd = config.Cmd as string[];
  expect(cmd).toEqual(['registry', 'serve', '--database', '/database/index.db']);
  expect((config.Labels as Record<string, string>)['operators.operatorframework.io.index.database.v1']).toBe(
    '/database/index.db',
  );
  const args = cmd.map((a) => (a.startsWith('/database/') ? path.join(root, a) : a));
  const theirs = await listPackages([reference, ...args, '-t', path.join(tmp, 'termination-log')]);
  const ours = await listPackages([process.execPath, OPM, ...args, '-t', '/dev/null']);
  const pulledAndServed = await listPackages([
    process.execPath,
    OPM,
    'serve',
    ref,
    '--use-http',
    '-t',
    '/dev/null',
  ]);
  expect(ours).toBe(theirs);
  expect(pulledAndServed).toBe(theirs);
  return names(theirs);
}

/**
 * The rows of the image's database are those of the database the reference's `index add
 * --generate` writes with the same arguments (it pulls --from-index without an engine too).
 */
async function sameRowsAsReference(ref: string, args: string[]): Promise<void> {
  const dir = mkdtempSync(path.join(tmp, 'generate-ref-'));
  const r = opmRef([...args, '--generate', '--use-http'], dir);
  expect(r.code, r.stderr).toBe(0);
  const { root } = await unpacked(ref);
  expect(insertRows(path.join(root, 'database', 'index.db'))).toEqual(
    insertRows(path.join(dir, 'database', 'index.db')),
  );
}

// Each step takes the image the one before it pushed: they run in order, each with time enough
// for a loaded machine.
describe('the SQLite walk-through, engine-less, on a local registry', { timeout: 600_000 }, () => {
  it('index add --bundles … --tag … (-c none --push): an index image both tools render alike', async () => {
    const r = opm([
      'index',
      'add',
      '--bundles',
      [ETCD_1, PROM, VAULT].map(imageOf).join(','),
      '--tag',
      image('index:v1'),
      '-c',
      'none',
      '--push',
      '-i',
      base,
      '--use-http',
    ]);
    ok(r);
    expect(r.stdout).toMatch(/^sha256:[0-9a-f]{64}\n$/);
    const yaml = renderedAlike(image('index:v1'));
    expect(yaml).toContain('name: etcd.v0.9.0');
    expect(yaml).not.toContain('name: etcd.v0.9.2');
    await sameRowsAsReference(image('index:v1'), [
      'index',
      'add',
      '--bundles',
      [ETCD_1, PROM, VAULT].map(imageOf).join(','),
    ]);
  });

  it('index add --from-index: the new bundle beside the old ones', async () => {
    const r = opm([
      'index',
      'add',
      '--bundles',
      imageOf(ETCD_2),
      '--from-index',
      image('index:v1'),
      '--tag',
      image('index:v2'),
      '-c',
      'none',
      '--push',
      '-i',
      base,
      '--use-http',
    ]);
    ok(r);
    const yaml = renderedAlike(image('index:v2'));
    expect(yaml).toContain('name: etcd.v0.9.2');
    expect(yaml).toContain('replaces: etcd.v0.9.0');
    expect(yaml).toContain('name: vault.v2.0.0');
    await sameRowsAsReference(image('index:v2'), [
      'index',
      'add',
      '--bundles',
      imageOf(ETCD_2),
      '--from-index',
      image('index:v1'),
    ]);
  });

  it('served as its entrypoint says: grpcurl api.Registry/ListPackages lists every package', async () => {
    expect(await servedIndex(image('index:v2'))).toEqual(['etcd', 'prom', 'vault']);
  });

  it('index prune -f … -p etcd,prom -t …: the packages kept, served alike', async () => {
    const r = opm([
      'index',
      'prune',
      '-f',
      image('index:v2'),
      '-p',
      'etcd,prom',
      '-t',
      image('index:pruned'),
      '-c',
      'none',
      '--push',
      '-i',
      base,
      '--use-http',
    ]);
    ok(r);
    const yaml = renderedAlike(image('index:pruned'));
    expect(yaml).not.toContain('vault');
    // The reference's `index prune` pulls --from-index with podman even with --generate: its
    // `registry prune` is run on the database of the image pruned instead.
    const { root } = await unpacked(image('index:v2'));
    const db = path.join(root, 'database', 'index.db');
    const pruned = opmRef(['registry', 'prune', '-d', db, '-p', 'etcd,prom']);
    expect(pruned.code, pruned.stderr).toBe(0);
    const ours = await unpacked(image('index:pruned'));
    expect(insertRows(path.join(ours.root, 'database', 'index.db'))).toEqual(insertRows(db));
    expect(await servedIndex(image('index:pruned'))).toEqual(['etcd', 'prom']);
  });

  it('out of SQLite: migrate, validate, image build, served from the catalog image', async () => {
    // migrate <index image> <dir>: the tree the reference writes from the image's database (its
    // migrate pulls over HTTPS whatever --use-http says, so it is given the unpacked file).
    const ours = path.join(tmp, 'catalog');
    const theirs = path.join(tmp, 'catalog-ref');
    ok(opm(['migrate', image('index:pruned'), ours, '--use-http']));
    const { root } = await unpacked(image('index:pruned'));
    const ref = opmRef(['migrate', path.join(root, 'database', 'index.db'), theirs]);
    expect(ref.code, ref.stderr).toBe(0);
    expect(tree(ours)).toEqual(tree(theirs));
    expect(readdirSync(ours).sort()).toEqual(['etcd', 'prom']);
    // validate <dir>: both pass it.
    ok(opm(['validate', ours]));
    expect(opmRef(['validate', ours]).code).toBe(0);
    // image build <dir>, pushed; its render by both is the render of the folder.
    const built = opm([
      'image',
      'build',
      ours,
      '-t',
      image('catalog:v1'),
      '-i',
      base,
      '--push',
      '--use-http',
    ]);
    ok(built);
    const fromFolder = opmRef(['render', ours, '-o', 'yaml']);
    expect(fromFolder.code, fromFolder.stderr).toBe(0);
    expect(renderedAlike(image('catalog:v1'))).toBe(fromFolder.stdout);
    // Served: `opm serve <catalog image>` runs the image's `serve /configs`; the reference serves
    // the folder the image was built from; grpcurl gets the same packages from both.
    const { config } = await unpacked(image('catalog:v1'));
    expect((config.Cmd as string[])[0]).toBe('serve');
    const fromImage = await listPackages([
      process.execPath,
      OPM,
      'serve',
      image('catalog:v1'),
      '--use-http',
      '-t',
      '/dev/null',
    ]);
    const fromDir = await listPackages([
      reference,
      'serve',
      ours,
      '-t',
      path.join(tmp, 'termination-log'),
      '--pprof-addr=',
    ]);
    // (opm's `serve` lists packages in Go map order, which differs run to run.)
    expect(names(fromImage)).toEqual(names(fromDir));
    expect(names(fromImage)).toEqual(['etcd', 'prom']);
  });
});
