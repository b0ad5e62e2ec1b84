// The pieces of `npm run bench:image-serve` (bench/image-serve.ts) that make and start containers
// without a daemon: the stand-in of opm's base image, a catalog image's root file system unpacked from
// an OCI layout, its entrypoint started the way a runtime starts it (a mount namespace with /proc and
// /dev, chroot, the image's user, environment and command) or under `buildah run --isolation chroot`,
// and what is read of the running server (/proc).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildImage, pushImage, type TarEntrySpec } from '../test/registry/image-builder.js';
import { sharedLibraries } from '../test/registry/opm-base.js';

/** A folder's entries for a test image layer, modes kept (makeTar gives fixed ones otherwise). */
function entriesOf(dir: string, prefix = ''): TarEntrySpec[] {
  const out: TarEntrySpec[] = [];
  for (const name of readdirSync(dir).sort()) {
    const abs = path.join(dir, name);
    const rel = prefix === '' ? name : `${prefix}/${name}`;
    const st = lstatSync(abs);
    const mode = st.mode & 0o7777;
    if (st.isDirectory()) out.push({ name: rel, type: 'directory', mode }, ...entriesOf(abs, rel));
    else if (st.isSymbolicLink()) out.push({ name: rel, type: 'symlink', linkname: readlinkSync(abs) });
    else out.push({ name: rel, content: readFileSync(abs), mode });
  }
  return out;
}

/**
 * A stand-in of opm's base image (quay.io/operator-framework/opm: distroless, `/bin/opm`,
 * `/bin/grpc_health_probe`, `/etc/nsswitch.conf`, user 1001, entrypoint `/bin/opm`), with the
 * reference opm and the C library it is linked against, pushed to `url`/`repo`:`tag`.
 */
export async function pushOpmStandIn(
  o: { reference: string; probe: string; work: string },
  target: { url: string; repo: string; tag: string },
): Promise<void> {
  const root = path.join(o.work, 'stand-in-root');
  const put = (dest: string, bytes: Buffer | string, mode: number): void => {
    mkdirSync(path.dirname(path.join(root, dest)), { recursive: true });
    writeFileSync(path.join(root, dest), bytes, { mode });
  };
  put('bin/opm', readFileSync(o.reference), 0o755);
  put('bin/grpc_health_probe', readFileSync(o.probe), 0o755);
  for (const lib of sharedLibraries(o.reference)) put(lib, readFileSync(lib), 0o755);
  put('etc/nsswitch.conf', 'hosts: files dns\n', 0o644);
  mkdirSync(path.join(root, 'tmp'), { mode: 0o1777 });
  const image = await buildImage({
    layers: [{ entries: entriesOf(root) }],
    labels: {},
    config: { User: '1001', Entrypoint: ['/bin/opm'], Env: ['PATH=/usr/local/bin:/usr/bin:/bin'] },
  });
  await pushImage(image, target);
}

interface Descriptor {
  digest: string;
  size: number;
}

/** An image of an OCI layout: its layers, compressed size, and the config's `config`. */
export interface LayoutImage {
  layers: string[];
  bytes: number;
  config: { User?: string; Entrypoint?: string[]; Cmd?: string[]; Env?: string[] };
}

export function readLayout(dir: string): LayoutImage {
  const blob = (d: string): string => path.join(dir, 'blobs', ...d.split(':'));
  const index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8')) as { manifests: Descriptor[] };
  const top = index.manifests[0];
  if (top === undefined) throw new Error(`${dir}: an empty layout`);
  const manifest = JSON.parse(readFileSync(blob(top.digest), 'utf8')) as {
    config: Descriptor;
    layers: Descriptor[];
  };
  const config = JSON.parse(readFileSync(blob(manifest.config.digest), 'utf8')) as {
    config: LayoutImage['config'];
  };
  return {
    layers: manifest.layers.map((l) => blob(l.digest)),
    bytes: manifest.layers.reduce((n, l) => n + l.size, manifest.config.size + top.size),
    config: config.config,
  };
}

/**
 * The image's root file system in `dir`: its layers in order (owners and modes kept: this runs as
 * root), and what a runtime adds: /proc and /dev to mount on, /etc/hosts.
 */
export function unpack(image: LayoutImage, dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const layer of image.layers) {
    const r = spawnSync('tar', ['-xzf', layer, '-C', dir, '--same-owner', '--same-permissions']);
    if (r.status !== 0) throw new Error(`tar -xzf ${layer}: ${r.stderr.toString()}`);
  }
  for (const d of ['proc', 'dev']) mkdirSync(path.join(dir, d), { recursive: true });
  writeFileSync(path.join(dir, 'etc', 'hosts'), '127.0.0.1 localhost\n::1 localhost\n');
}

const sh = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The command the image runs (entrypoint, then command, then `extra`). */
function command(image: LayoutImage, extra: string[]): string[] {
  return [...(image.config.Entrypoint ?? []), ...(image.config.Cmd ?? []), ...extra];
}

/**
 * Start the image's command in `rootfs` as a runtime would, but without one: a mount namespace
 * (unshare) with /proc and the machine's /dev, chroot, the image's user (group 0 when it names none)
 * and environment. The process keeps the child's pid (each step execs the next).
 */
export function startInChroot(image: LayoutImage, rootfs: string, extra: string[]): ChildProcess {
  const user = image.config.User ?? '0';
  const spec = user.includes(':') ? user : `${user}:0`;
  const script = [
    `mount --rbind /dev ${sh(path.join(rootfs, 'dev'))}`,
    `mount -t proc proc ${sh(path.join(rootfs, 'proc'))}`,
    `exec /usr/sbin/chroot --userspec=${spec} ${sh(rootfs)} ${command(image, extra).map(sh).join(' ')}`,
  ].join(' && ');
  return spawn('/usr/bin/unshare', ['-m', '/bin/sh', '-c', script], {
    env: Object.fromEntries(
      (image.config.Env ?? []).map((e) => [e.split('=')[0], e.slice(e.indexOf('=') + 1)]),
    ),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

/** Start the image's command in a buildah working container (chroot isolation). */
export function startInBuildah(
  image: LayoutImage,
  container: string,
  env: NodeJS.ProcessEnv,
  extra: string[],
): ChildProcess {
  return spawn('buildah', ['run', '--isolation', 'chroot', container, '--', ...command(image, extra)], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

/** The children of a process (from each of its threads' children file under /proc). */
function children(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim();
      if (text !== '') out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // Gone.
  }
  return out;
}

/** The process named `comm` at or below `pid` (the server under buildah), or undefined. */
export function findProcess(pid: number, comm: string): number | undefined {
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.shift() as number;
    try {
      if (readFileSync(`/proc/${p}/comm`, 'utf8').trim() === comm) return p;
    } catch {
      continue;
    }
    queue.push(...children(p));
  }
  return undefined;
}

/** Resident memory of a process in MiB. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024;
}

/** CPU time (user and system, every thread) in ms, from /proc (ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}
