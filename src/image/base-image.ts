/**
 * opm-ts's base image for catalog images, built without a container engine: what opm's base image
 * promises to the Dockerfile `generate dockerfile` writes and to OLM — `/bin/opm` (here opm-ts on
 * the Node.js runtime it was built for), `/bin/grpc_health_probe`, `/etc/nsswitch.conf`, user 1001,
 * entrypoint `/bin/opm` — in three deterministic layers: the runtime (the `node` binary and the
 * shared libraries `ldd` names, at the paths its loader looks for them; `/etc`; `/tmp`), the probe,
 * and opm-ts (its built `dist/`, launcher and the packages it loads at run time). The same inputs
 * give the same digest.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { OpmError } from '../errors.js';
import { compareUtf8 } from '../go/utf8.js';
import type { Platform } from '../oci/manifest.js';
import { assemble, type Assembled } from './assemble.js';
import { writeLayer, type BuiltLayer } from './layer.js';

export interface BaseImageOptions {
  /** The Node.js binary to ship (the command line passes the one running). */
  node: string;
  /** opm-ts's package folder, built (`dist/`, `bin/`, `node_modules/`). */
  opmRoot: string;
  /** A grpc_health_probe binary (scripts/build-grpc-tools.sh builds one from the Go module proxy). */
  healthProbe: string;
  /** Where the staged files and layers are written (the caller removes it). */
  workDir: string;
  /** Default linux/amd64. */
  platform?: Platform;
  /** Seconds since 1970 for every time in the image (SOURCE_DATE_EPOCH); default 0. */
  epoch?: number;
  signal?: AbortSignal;
}

/** Where opm-ts lives in the image; `/bin/opm` starts it. */
export const OPM_TS_HOME = '/usr/lib/opm-ts';
export const BASE_USER = '1001';

/** The shared objects `ldd` says `binary` loads (absolute paths), the vDSO left out. */
function sharedLibraries(binary: string): string[] {
  const r = spawnSync('ldd', [binary], { encoding: 'utf8' });
  if (r.status !== 0) throw new OpmError(`ldd ${binary}: ${(r.stderr || String(r.error ?? '')).trim()}`);
  const libs: string[] = [];
  for (const line of r.stdout.split('\n')) {
    const m = /=>\s+(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
    if (m?.[1] !== undefined) libs.push(m[1]);
  }
  return libs;
}

/** Copy a file's bytes (symbolic links followed) to `dest` with `mode`. */
function place(src: string, dest: string, mode: number): void {
  mkdirSync(path.dirname(dest), { recursive: true, mode: 0o755 });
  copyFileSync(src, dest);
  chmodSync(dest, mode);
}

function text(dest: string, content: string, mode = 0o644): void {
  mkdirSync(path.dirname(dest), { recursive: true, mode: 0o755 });
  writeFileSync(dest, content);
  chmodSync(dest, mode);
}

/** The packages opm-ts loads at run time: its dependencies and theirs, as installed. */
function runtimePackages(root: string): string[] {
  const seen = new Set<string>();
  const queue: string[] = [];
  const deps = (file: string): string[] => {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    return [...Object.keys(doc.dependencies ?? {}), ...Object.keys(doc.optionalDependencies ?? {})];
  };
  queue.push(...deps(path.join(root, 'package.json')));
  while (queue.length > 0) {
    const name = queue.shift() as string;
    if (seen.has(name)) continue;
    const manifest = path.join(root, 'node_modules', name, 'package.json');
    if (!existsSync(manifest)) continue; // an optional dependency not installed here
    seen.add(name);
    queue.push(...deps(manifest));
  }
  return [...seen].sort(compareUtf8);
}

const NSSWITCH =
  'passwd: files\ngroup: files\nshadow: files\nhosts: files dns\nnetworks: files\nprotocols: files\nservices: files\n';
const PASSWD = 'root:x:0:0:root:/root:/sbin/nologin\nopm:x:1001:0:opm:/tmp:/sbin/nologin\n';
const GROUP = 'root:x:0:\n';
/**
 * `/bin/opm`: no shell in the image, so the launcher is a Node.js script. It gives Node.js no flag:
 * bin/opm.js sets its own first (a young generation that keeps its first size, row P9), and the code
 * cache the build ships was made under exactly those, which V8 refuses under any other
 * (`--max-semi-space-size=1` here made every start compile opm-ts from source, for 0.9 MiB less
 * resident memory on the corpus catalog; docs/performance.md, "Catalog images"). The image's
 * environment sets glibc's trim threshold.
 */
export const LAUNCHER = `#!/usr/bin/node\nrequire('${OPM_TS_HOME}/bin/opm.js');\n`;

/** Build the base image; push its `plan` or write it as an OCI layout (image/layout.ts). */
export async function buildBaseImage(o: BaseImageOptions): Promise<Assembled> {
  const node = realpathSync(o.node);
  const root = path.resolve(o.opmRoot);
  for (const need of ['dist/opm.cjs', 'dist/launch.cjs', 'bin/opm.js', 'package.json']) {
    if (!existsSync(path.join(root, need)))
      throw new OpmError(`${path.join(root, need)}: missing`, { hint: 'run npm run build in opm-ts first' });
  }
  const stage = (part: string): string => path.join(o.workDir, part);
  const runtime = stage('runtime');
  place(node, path.join(runtime, 'usr/bin/node'), 0o755);
  for (const lib of sharedLibraries(node)) place(lib, path.join(runtime, lib), 0o755);
  text(path.join(runtime, 'etc/nsswitch.conf'), NSSWITCH);
  text(path.join(runtime, 'etc/passwd'), PASSWD);
  text(path.join(runtime, 'etc/group'), GROUP);
  mkdirSync(path.join(runtime, 'tmp'), { recursive: true });
  chmodSync(path.join(runtime, 'tmp'), 0o1777);

  const probe = stage('probe');
  place(o.healthProbe, path.join(probe, 'bin/grpc_health_probe'), 0o755);

  const app = stage('opm-ts');
  const home = path.join(app, OPM_TS_HOME);
  place(path.join(root, 'package.json'), path.join(home, 'package.json'), 0o644);
  cpSync(path.join(root, 'bin'), path.join(home, 'bin'), { recursive: true, dereference: true });
  cpSync(path.join(root, 'dist'), path.join(home, 'dist'), {
    recursive: true,
    dereference: true,
    filter: (src) => !src.endsWith('.d.ts') && !src.endsWith('.map'),
  });
  if (existsSync(path.join(root, 'schemas')))
    cpSync(path.join(root, 'schemas'), path.join(home, 'schemas'), { recursive: true, dereference: true });
  for (const pkg of runtimePackages(root)) {
    cpSync(path.join(root, 'node_modules', pkg), path.join(home, 'node_modules', pkg), {
      recursive: true,
      dereference: true,
    });
  }
  text(path.join(app, 'bin/opm'), LAUNCHER, 0o755);

  const layerOpts = {
    ...(o.epoch !== undefined ? { epoch: o.epoch } : {}),
    ...(o.signal !== undefined ? { signal: o.signal } : {}),
  };
  const layers: BuiltLayer[] = [];
  for (const [i, dir] of [runtime, probe, app].entries()) {
    const tops = readdirSync(dir).sort(compareUtf8);
    layers.push(
      await writeLayer(
        tops.map((t) => ({ dir: path.join(dir, t), at: t })),
        path.join(o.workDir, `base-layer-${i}.tar.gz`),
        layerOpts,
      ),
    );
  }
  return assemble({ scratch: o.platform ?? { os: 'linux', architecture: 'amd64' } }, layers, {
    entrypoint: ['/bin/opm'],
    user: BASE_USER,
    env: ['PATH=/usr/bin:/bin', 'MALLOC_TRIM_THRESHOLD_=131072'],
    history: [
      `COPY node and its shared libraries, /etc/nsswitch.conf, /etc/passwd (user ${BASE_USER}), /tmp`,
      'COPY grpc_health_probe /bin/grpc_health_probe',
      `COPY opm-ts ${OPM_TS_HOME} and /bin/opm`,
    ],
    settings: `USER ${BASE_USER}; ENTRYPOINT ["/bin/opm"]`,
    ...(o.epoch !== undefined ? { epoch: o.epoch } : {}),
  });
}
