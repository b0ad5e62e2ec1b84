// `npm run bench:image-serve`: a catalog image that runs opm-ts beside the same catalog on a stand-in
// of opm's base image running the reference opm (bench/image-rootfs.ts), each started as a container
// is, without a daemon, and probed as OLM probes it. Both images are built by `opm image build` from
// the same catalog (the same two layers: /configs, and /tmp/cache owned by the base's user 1001; the
// reference serves that cache with integrity enforced, as the image's CMD asks, and the run checks
// that it did not rebuild it); the bases are `opm image base` and the stand-in.
// Figures, each the median of RUNS alternated pairs (ours, the reference, …) with the median of the
// per-pair ratios and their range, and the load average:
// - ready: from the container's start until grpc_health_probe answers SERVING (polled every 20 ms);
// - CPU time of the server until then (/proc: ticks of 10 ms);
// - resident memory when ready, and after 10 ListBundles (operator-registry's Go client);
// - image sizes (compressed layers, config and manifest), from the OCI layouts.
// A container's start is measured two ways: the image's root file system unpacked once and its
// command run under a mount namespace and chroot as the image's user (`chroot` rows: what a runtime
// does, without a runtime's own cost), and `buildah run --isolation chroot` on a working container
// (`buildah` rows: buildah's own start-up, about 2.8 s here, falls on both sides). Needs root (chroot,
// mount), docker-registry, the reference opm, grpc_health_probe and opm-serve-client
// (scripts/build-grpc-tools.sh); buildah for the buildah rows.
// Catalogs: community-catalog-v4.21 of the corpus, and a catalog generated into a temporary folder
// (bench/generate-catalog.ts; BENCH_IMAGE_SERVE_PACKAGES packages × 10 bundles of 330 KB, default 300:
// about 1 GB; 0 leaves it out). BENCH_IMAGE_SERVE_RUNS sets the pairs (default 3),
// BENCH_IMAGE_SERVE_BUILDAH=0 leaves out the buildah rows, TMPDIR says where the work goes. Results
// also go to bench/out/image-serve-results.json.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDir, projectRoot } from '../test/corpus.js';
import { startPlainRegistry } from '../test/registry/fixture.js';
import { buildahEnv } from '../test/registry/opm-base.js';
import { missingTools, tools } from '../test/serve/harness.js';
import { freePort } from '../test/registry/tools.js';
import { generateCatalog } from './generate-catalog.js';
import {
  cpuMs,
  findProcess,
  pushOpmStandIn,
  readLayout,
  rssMiB,
  startInBuildah,
  startInChroot,
  unpack,
  type LayoutImage,
} from './image-rootfs.js';
import { machine, machineLine } from './machine.js';
import { referenceBinary } from './reference.js';
import { median, pairedRatios } from './stats.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = projectRoot();
const OPM = path.join(root, 'bin', 'opm.js');
const RUNS = Number(process.env.BENCH_IMAGE_SERVE_RUNS ?? 3);
const PACKAGES = Number(process.env.BENCH_IMAGE_SERVE_PACKAGES ?? 300);
const WITH_BUILDAH =
  process.env.BENCH_IMAGE_SERVE_BUILDAH !== '0' && spawnSync('buildah', ['--version']).status === 0;
/** How long a server may take to answer the probe before the run is given up. */
const PATIENCE_MS = 15 * 60_000;

const say = (line: string): boolean => process.stderr.write(`${line}\n`);

/** opm-ts's command line (plain HTTP to the registry on 127.0.0.1), to completion. */
function opm(args: string[], home: string): string {
  const r = spawnSync(process.execPath, [OPM, '--use-http', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: home, TMPDIR: home },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`opm ${args.slice(0, 2).join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

function probeAnswers(port: number): boolean {
  const r = spawnSync(tools.probe, [`-addr=127.0.0.1:${port}`, '-connect-timeout=200ms', '-rpc-timeout=1s'], {
    encoding: 'utf8',
  });
  return r.status === 0; // 0: status SERVING
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Started {
  readyMs: number;
  cpuMs: number;
  rssReady: number;
  rssAfter: number;
  log: string;
}

/** Start a container, wait for SERVING, read its figures, run 10 ListBundles, read again, stop it. */
async function serveOnce(start: (port: number) => ChildProcess): Promise<Started> {
  const port = await freePort();
  const t0 = performance.now();
  const child = start(port);
  let log = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => (log = (log + d).slice(-20_000)));
  const state = { exited: false };
  const gone = new Promise<void>((r) =>
    child.on('exit', () => {
      state.exited = true;
      r();
    }),
  );
  try {
    while (!probeAnswers(port)) {
      if (state.exited) throw new Error(`the server exited before it answered:\n${log}`);
      if (performance.now() - t0 > PATIENCE_MS)
        throw new Error(`no SERVING within ${PATIENCE_MS} ms:\n${log}`);
      await sleep(20);
    }
    const readyMs = performance.now() - t0;
    const pid = findProcess(child.pid ?? -1, 'opm');
    if (pid === undefined) throw new Error('no process named opm under the container');
    const figures = { readyMs, cpuMs: cpuMs(pid), rssReady: rssMiB(pid) };
    const list = spawnSync(tools.client, ['listbundles', '-addr', `127.0.0.1:${port}`, '-n', '10'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (list.status !== 0) throw new Error(`ListBundles failed: ${list.stderr}`);
    return { ...figures, rssAfter: rssMiB(pid), log };
  } finally {
    child.kill('SIGTERM');
    await Promise.race([gone, sleep(10_000)]);
    if (!state.exited) child.kill('SIGKILL');
    await gone;
  }
}

interface Side {
  name: 'ours' | 'reference';
  image: LayoutImage;
  rootfs: string;
  /** A buildah working container of the image, when buildah runs. */
  container?: string;
  /** What the server is given after the image's command: its port (and the reference's pprof off). */
  extra: (port: number) => string[];
}

interface Row {
  label: string;
  target?: number;
  ours: number[];
  reference: number[];
}

/** Check what a server logged: the image's cache served as it is, never rebuilt. */
function checkLog(side: Side, log: string): void {
  if (!log.includes('found existing cache contents') || log.includes('building cache'))
    throw new Error(`${side.name} did not serve the image's cache as it is:\n${log.slice(-3000)}`);
}

async function measure(label: string, sides: Side[], benv: NodeJS.ProcessEnv): Promise<unknown> {
  const ways: ('chroot' | 'buildah')[] = WITH_BUILDAH ? ['chroot', 'buildah'] : ['chroot'];
  const rows: Row[] = [];
  const row = (l: string, target?: number): Row => {
    const r: Row = { label: l, ours: [], reference: [], ...(target !== undefined ? { target } : {}) };
    rows.push(r);
    return r;
  };
  const byWay = Object.fromEntries(
    ways.map((w) => [
      w,
      {
        ready: row(`${w}: start until SERVING (ms)`, 0.25),
        cpu: row(`${w}: server CPU until SERVING (ms)`),
        rssReady: row(`${w}: RSS when ready (MiB)`, 0.5),
        rssAfter: row(`${w}: RSS after 10 ListBundles (MiB)`, 0.5),
      },
    ]),
  );
  const size = row('image size, compressed (MB)');
  for (const s of sides) size[s.name].push(s.image.bytes / 1e6);
  const loadBefore = loadavg()[0] ?? NaN;
  for (let i = 0; i < RUNS; i++) {
    const order = i % 2 === 0 ? sides : [...sides].reverse();
    for (const way of ways) {
      for (const s of order) {
        const r = await serveOnce((port) =>
          way === 'chroot'
            ? startInChroot(s.image, s.rootfs, s.extra(port))
            : startInBuildah(s.image, s.container ?? '', benv, s.extra(port)),
        );
        checkLog(s, r.log);
        const w = byWay[way];
        if (w === undefined) continue;
        w.ready[s.name].push(r.readyMs);
        w.cpu[s.name].push(r.cpuMs);
        w.rssReady[s.name].push(r.rssReady);
        w.rssAfter[s.name].push(r.rssAfter);
        say(
          `  ${label}, ${way}, ${s.name}: ready ${Math.round(r.readyMs)} ms, RSS ${r.rssReady.toFixed(0)}/${r.rssAfter.toFixed(0)} MiB`,
        );
      }
    }
  }
  const loadAfter = loadavg()[0] ?? NaN;
  console.log(
    `\ncatalog image start-up: ${label}, ${RUNS} alternated pairs, load average ${loadBefore.toFixed(1)} -> ${loadAfter.toFixed(1)}\n${machineLine()}`,
  );
  console.log(
    `${'figure'.padEnd(42)} ${'reference'.padStart(10)} ${'opm-ts'.padStart(10)}  ratio [range]  target`,
  );
  const figures = rows.map((r) => {
    const out = {
      figure: r.label,
      reference: median(r.reference, NaN),
      ours: median(r.ours, NaN),
      ...pairedRatios(r.ours, r.reference, NaN),
      target: r.target,
    };
    const verdict =
      r.target === undefined ? '' : `<= ${r.target}x ${out.ratio <= r.target ? 'ok' : 'MISSED'}`;
    const fmt = (x: number): string => (x >= 100 ? String(Math.round(x)) : x.toFixed(1));
    console.log(
      `${r.label.padEnd(42)} ${fmt(out.reference).padStart(10)} ${fmt(out.ours).padStart(10)}  ${out.ratio.toFixed(2)} [${out.min.toFixed(2)}-${out.max.toFixed(2)}]  ${verdict}`,
    );
    return out;
  });
  return { catalog: label, runs: RUNS, loadBefore, loadAfter, results: figures };
}

const missing = missingTools();
if (missing.length > 0) throw new Error(`bench:image-serve needs ${missing.join(', ')}`);
const reference = referenceBinary(root);
if (reference === undefined)
  throw new Error(
    'bench:image-serve needs the reference opm (OPM_REFERENCE or scripts/build-reference-opm.sh)',
  );
if (process.getuid?.() !== 0)
  throw new Error('bench:image-serve runs containers with chroot and mount: run it as root');
if (corpusDir === undefined) throw new Error('bench:image-serve needs the corpus (OPM_CORPUS)');

const work = mkdtempSync(path.join(tmpdir(), 'opm-image-serve-'));
const registry = await startPlainRegistry(work, 'bench');
const benv = buildahEnv(path.join(work, 'buildah'));
const results: unknown[] = [];
try {
  say(`building the two base images on ${registry.host} ...`);
  const oursBase = `${registry.host}/base/opm-ts:v1`;
  opm(['image', 'base', '--grpc-health-probe', tools.probe, '-t', oursBase, '--push'], work);
  const standIn = `${registry.host}/base/opm:stand-in`;
  await pushOpmStandIn(
    { reference, probe: tools.probe, work },
    { url: `http://${registry.host}`, repo: 'base/opm', tag: 'stand-in' },
  );
  const catalogs: { label: string; dir: string }[] = [
    { label: 'community-catalog-v4.21', dir: path.join(corpusDir, 'community-catalog-v4.21') },
  ];
  if (PACKAGES > 0) {
    const dir = path.join(work, 'generated');
    say(`generating ${PACKAGES * 10} bundles in ${dir} ...`);
    const info = generateCatalog(dir, { packages: PACKAGES, bundlesPerPackage: 10, payloadBytes: 330_000 });
    catalogs.push({ label: `generated (${info.bundles} bundles, ${(info.bytes / 1e6).toFixed(0)} MB)`, dir });
  }
  for (const [n, c] of catalogs.entries()) {
    const sides: Side[] = [];
    for (const [name, base] of [
      ['ours', oursBase],
      ['reference', standIn],
    ] as const) {
      say(`building ${name}'s catalog image of ${c.label} ...`);
      const layout = path.join(work, `${name}-${n}-layout`);
      const ref = `${registry.host}/catalog/${name}-${n}:v1`;
      const push = WITH_BUILDAH ? ['-t', ref, '--push'] : [];
      opm(['image', 'build', c.dir, '--base-image', base, '--oci-layout', layout, ...push], work);
      const image = readLayout(layout);
      const rootfs = path.join(work, `${name}-${n}-rootfs`);
      unpack(image, rootfs);
      const side: Side = {
        name,
        image,
        rootfs,
        extra: (port) => ['-p', String(port), ...(name === 'reference' ? ['--pprof-addr='] : [])],
      };
      if (WITH_BUILDAH) {
        const from = spawnSync('buildah', ['from', '--quiet', '--tls-verify=false', `docker://${ref}`], {
          env: benv,
          encoding: 'utf8',
        });
        if (from.status !== 0) throw new Error(`buildah from ${ref}: ${from.stderr}`);
        side.container = from.stdout.trim();
      }
      rmSync(layout, { recursive: true, force: true });
      sides.push(side);
    }
    results.push(await measure(c.label, sides, benv));
    for (const s of sides) {
      rmSync(s.rootfs, { recursive: true, force: true });
      if (s.container !== undefined) spawnSync('buildah', ['rm', s.container], { env: benv });
    }
  }
} finally {
  await registry.stop();
  if (existsSync(path.join(work, 'buildah')))
    spawnSync('buildah', ['rm', '--all'], { env: benv, stdio: 'ignore' });
  rmSync(work, { recursive: true, force: true });
}
mkdirSync(here, { recursive: true });
writeFileSync(
  path.join(here, 'image-serve-results.json'),
  JSON.stringify({ machine: machine(), catalogs: results }, null, 2) + '\n',
);
