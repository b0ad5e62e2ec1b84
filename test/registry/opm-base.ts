// A real opm base image (for the image bench and the reference suite): `/bin/opm` is the reference opm binary with the C
// library and loader it is linked against (found by `ldd`, copied from this machine), so the RUN
// step of the Dockerfile `opm generate dockerfile` writes (`/bin/opm serve … --cache-only`) runs
// inside it. Built with `buildah from scratch` + `buildah copy` + `buildah commit` in a storage of
// its own (vfs in a temporary folder, chroot isolation: no privileges, the machine's images
// untouched), then pushed to a plain-HTTP registry on 127.0.0.1.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The environment that points buildah at a vfs storage under `dir` and chroot isolation. */
export function buildahEnv(dir: string): NodeJS.ProcessEnv {
  const conf = path.join(dir, 'storage.conf');
  mkdirSync(dir, { recursive: true });
  writeFileSync(conf, `[storage]\ndriver = "vfs"\ngraphroot = "${dir}/graph"\nrunroot = "${dir}/run"\n`);
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    CONTAINERS_STORAGE_CONF: conf,
    STORAGE_DRIVER: 'vfs',
    BUILDAH_ISOLATION: 'chroot',
  };
}

/** Run a tool to completion; its first error line in the exception when it fails. */
export function runTool(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): string {
  const r = spawnSync(cmd, args, { env, cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) {
    const why = (r.stderr || r.stdout || String(r.error ?? '')).trim().split('\n').slice(-1)[0] ?? '';
    throw new Error(`${cmd} ${args[0] ?? ''} failed (exit ${r.status ?? 'signal'}): ${why}`);
  }
  return r.stdout;
}

/** The shared objects `ldd` says `binary` loads (absolute paths), the vDSO left out. */
export function sharedLibraries(binary: string): string[] {
  const out = runTool('ldd', [binary], { PATH: process.env.PATH ?? '/usr/bin:/bin' });
  const libs: string[] = [];
  for (const line of out.split('\n')) {
    const m = /=>\s+(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
    if (m?.[1] !== undefined) libs.push(m[1]);
  }
  return libs;
}

/**
 * Build the base image from `opmBinary` and push it to `ref` (a plain-HTTP registry). The image
 * stays in the storage under `ref` too, so a `buildah bud` that names it reads it from there.
 */
export function buildOpmBase(opmBinary: string, ref: string, work: string, env: NodeJS.ProcessEnv): void {
  const root = path.join(work, 'base-root');
  mkdirSync(path.join(root, 'bin'), { recursive: true });
  copyFileSync(opmBinary, path.join(root, 'bin', 'opm'));
  chmodSync(path.join(root, 'bin', 'opm'), 0o755);
  // Each library at the path the binary's loader looks for it (copyFileSync follows symlinks).
  for (const lib of sharedLibraries(opmBinary)) {
    const dest = path.join(root, lib);
    mkdirSync(path.dirname(dest), { recursive: true });
    copyFileSync(lib, dest);
    chmodSync(dest, 0o755);
  }
  const container = runTool('buildah', ['from', 'scratch'], env).trim();
  try {
    runTool('buildah', ['copy', container, root, '/'], env);
    runTool('buildah', ['config', '--entrypoint', '["/bin/opm"]', container], env);
    runTool('buildah', ['commit', '--quiet', container, ref], env);
  } finally {
    spawnSync('buildah', ['rm', container], { env, stdio: 'ignore' });
  }
  runTool('buildah', ['push', '--quiet', '--tls-verify=false', ref, `docker://${ref}`], env);
}
