// Drives an `opm serve` process with the real clients a cluster and its users talk to it with:
// grpc_health_probe (the catalog pod's probes), grpcurl (reflection and JSON) and opm-serve-client
// (operator-registry's client package and stubs, what OLM uses; test/serve/go-client). The serve
// tests and the serve bench start the reference opm and opm-ts through it, with the same calls.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadCatalogDirOrThrow } from '../../src/declcfg/load.js';
import type { DeclarativeConfig } from '../../src/declcfg/types.js';
import type { Property } from '../../src/property/types.js';
import { projectRoot } from '../corpus.js';
import { PATIENCE_MS } from '../patience.js';
import { freePort } from '../registry/tools.js';

const root = projectRoot();
const toolDir = path.join(root, '.tools/bin');

/** The three clients, from .tools/bin (scripts/build-grpc-tools.sh) unless the environment names them. */
export const tools = {
  grpcurl: process.env.GRPCURL ?? path.join(toolDir, 'grpcurl'),
  probe: process.env.GRPC_HEALTH_PROBE ?? path.join(toolDir, 'grpc_health_probe'),
  client: process.env.OPM_SERVE_CLIENT ?? path.join(toolDir, 'opm-serve-client'),
};

/** The clients that are not there, each with what builds it. */
export function missingTools(): string[] {
  return Object.values(tools)
    .filter((t) => !existsSync(t))
    .map((t) => `${t} (scripts/build-grpc-tools.sh builds it)`);
}

/** True when `bin/opm.js serve` exists (its --help succeeds): until then only the reference runs. */
export function oursServes(): boolean {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/opm.js'), 'serve', '--help'], {
    encoding: 'utf8',
    timeout: PATIENCE_MS,
  });
  return r.status === 0 && !/not provided/i.test(`${r.stdout}${r.stderr}`);
}

/** How to start one implementation's server on a catalog and port. */
export interface ServerKind {
  name: string;
  /** The argv (command first) serving `catalog` on `port`; `scratch` is a directory it may use. */
  argv(catalog: string, port: number, scratch: string, cacheDir?: string): string[];
  /** The argv that only builds a cache in `cacheDir` and exits (`--cache-only`). */
  cacheOnly(catalog: string, cacheDir: string, scratch: string): string[];
}

/**
 * The reference opm. pprof is turned off (its fixed port would clash between servers) and the
 * termination log goes to the scratch directory instead of /dev. Without a cache directory it
 * builds a temporary cache in $TMPDIR, which the runner points into the scratch directory; with
 * one, the default is the image's CMD: the cache must be there and match (integrity enforced).
 */
export function referenceKind(binary: string): ServerKind {
  const common = (scratch: string): string[] => [
    '--pprof-addr=',
    '-t',
    path.join(scratch, 'termination-log'),
  ];
  return {
    name: 'reference',
    argv: (catalog, port, scratch, cacheDir) => [
      binary,
      'serve',
      catalog,
      '-p',
      String(port),
      ...(cacheDir === undefined ? [] : ['--cache-dir', cacheDir]),
      ...common(scratch),
    ],
    cacheOnly: (catalog, cacheDir, scratch) => [
      binary,
      'serve',
      catalog,
      '--cache-dir',
      cacheDir,
      '--cache-only',
      ...common(scratch),
    ],
  };
}

/**
 * opm-ts, from the built command line, run as the installed `opm` runs (and a catalog image's
 * CMD): bin/opm.js as a program, which starts as `node bin/opm.js` does.
 */
export function oursKind(): ServerKind {
  const opm = path.join(root, 'bin/opm.js');
  return {
    name: 'opm-ts',
    argv: (catalog, port, _scratch, cacheDir) => [
      opm,
      'serve',
      catalog,
      '-p',
      String(port),
      ...(cacheDir === undefined ? [] : ['--cache-dir', cacheDir]),
    ],
    cacheOnly: (catalog, cacheDir) => [opm, 'serve', catalog, '--cache-dir', cacheDir, '--cache-only'],
  };
}

export interface Server {
  kind: string;
  address: string;
  port: number;
  pid: number;
  /** Milliseconds from spawn until grpc_health_probe first answered SERVING. */
  readyMs: number;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM, then the exit: resolves with the exit code (null when killed by a signal). */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }>;
}

export interface StartOptions {
  cacheDir?: string;
  /** Give up when not SERVING after this long; the default leaves room for large catalogs. */
  readyTimeoutMs?: number;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Whether something accepts TCP connections on 127.0.0.1:`port` now. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** One grpc_health_probe run: its exit code (0 = SERVING) and output. */
export function probe(
  address: string,
  service = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return run(tools.probe, [
    `-addr=${address}`,
    `-service=${service}`,
    '-connect-timeout=1s',
    '-rpc-timeout=5s',
  ]);
}

function run(
  cmd: string,
  args: string[],
  input?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
    // A client that exits without reading all of its input shows in its exit code and stderr.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
  });
}

/**
 * Starts `kind` on `catalog` on a free 127.0.0.1 port and waits until grpc_health_probe answers
 * SERVING (polling the port every few milliseconds, then probing; the server exiting first is an
 * error carrying its stderr). The scratch
 * directory (TMPDIR of the server, its termination log) is removed by stop().
 */
export async function startServer(
  kind: ServerKind,
  catalog: string,
  opts: StartOptions = {},
): Promise<Server> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'opm-serve-test-'));
  const port = await freePort();
  const [cmd, ...args] = kind.argv(catalog, port, scratch, opts.cacheDir);
  const started = performance.now();
  const child: ChildProcess = spawn(cmd ?? '', args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TMPDIR: scratch },
  });
  const err: Buffer[] = [];
  const out: Buffer[] = [];
  child.stderr?.on('data', (b: Buffer) => err.push(b));
  child.stdout?.on('data', (b: Buffer) => out.push(b));
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    }),
  );
  const stderr = (): string => Buffer.concat(err).toString('utf8');
  const address = `127.0.0.1:${port}`;
  const deadline = started + (opts.readyTimeoutMs ?? 600_000);
  let readyMs = -1;
  while (readyMs < 0) {
    if (exit !== undefined) {
      rmSync(scratch, { recursive: true, force: true });
      throw new Error(
        `${kind.name} server exited (${String(exit.code ?? exit.signal)}) before serving ${catalog}:\n${stderr().slice(-4000)}`,
      );
    }
    // The probe is run once the port accepts connections: started earlier, it meets a refused
    // connection and grpc-go waits out its reconnect backoff (a second) before it tries again,
    // so every start-up under a second would read as about one second.
    if ((await accepts(port)) && (await probe(address)).code === 0) {
      readyMs = performance.now() - started;
      break;
    }
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(scratch, { recursive: true, force: true });
      throw new Error(`${kind.name} server not SERVING on ${address} within the time allowed`);
    }
    await sleep(5);
  }
  return {
    kind: kind.name,
    address,
    port,
    pid: child.pid ?? -1,
    readyMs,
    stderr,
    async stop() {
      if (exit === undefined) child.kill('SIGTERM');
      const r = await exited;
      rmSync(scratch, { recursive: true, force: true });
      return { ...r, stdout: Buffer.concat(out).toString('utf8') };
    },
  };
}

/** Builds a cache with `--cache-only` into `cacheDir`; resolves with the exit code and stderr. */
export async function buildCache(
  kind: ServerKind,
  catalog: string,
  cacheDir: string,
): Promise<{ code: number | null; stderr: string }> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'opm-serve-test-'));
  try {
    const [cmd, ...args] = kind.cacheOnly(catalog, cacheDir, scratch);
    return await run(cmd ?? '', args);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** grpcurl with -plaintext: `grpcurl [flags] ADDRESS verb...` (descriptors from reflection). */
export function grpcurl(
  address: string,
  verb: string[],
  flags: string[] = [],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return run(tools.grpcurl, ['-plaintext', ...flags, address, ...verb]);
}

/** One grpcurl call: the decoded response messages (a stream gives several), or the error. */
export async function grpcurlCall(
  address: string,
  method: string,
  request: object = {},
  headers: Record<string, string> = {},
): Promise<{ messages: unknown[]; code: number | null; stderr: string }> {
  const h = Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
  const r = await run(tools.grpcurl, ['-plaintext', ...h, '-d', JSON.stringify(request), address, method]);
  return { messages: parseConcatenated(r.stdout), code: r.code, stderr: r.stderr.trim() };
}

/** grpcurl prints a stream as consecutive pretty JSON documents. */
function parseConcatenated(text: string): unknown[] {
  const out: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') {
      if (depth++ === 0) start = i;
    } else if (c === '}' && --depth === 0) out.push(JSON.parse(text.slice(start, i + 1)));
  }
  return out;
}

/** The OLM client's walk over the whole catalog (opm-serve-client olm): one JSON document. */
export async function olmWalk(address: string): Promise<Record<string, unknown>> {
  const r = await run(tools.client, ['olm', '-addr', address]);
  if (r.code !== 0) throw new Error(`opm-serve-client olm failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

export interface Call {
  method: string;
  request: Record<string, string>;
  metadata?: Record<string, string>;
}

export interface CallResult {
  method: string;
  request: Record<string, string>;
  metadata?: Record<string, string>;
  response?: unknown;
  stream?: unknown[];
  error?: { code: string; message: string };
  /** GetBundleThatReplaces with several bundles replacing the name: the server may answer any. */
  candidates?: string[];
  answerIsCandidate?: boolean;
}

/** Makes the calls through operator-registry's generated stubs, in order, one answer per call. */
export async function callAll(address: string, calls: Call[]): Promise<CallResult[]> {
  const input = calls.map((c) => JSON.stringify(c)).join('\n');
  const r = await run(tools.client, ['calls', '-addr', address], input);
  if (r.code !== 0) throw new Error(`opm-serve-client calls failed: ${r.stderr}`);
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  return lines.map((l, i) => {
    const result = JSON.parse(l) as CallResult;
    const meta = calls[i]?.metadata;
    return meta === undefined ? result : { ...result, metadata: meta };
  });
}

const MADE_UP = 'opm-serve-test-no-such';

function propertyValue(p: Property): Record<string, unknown> {
  const v: unknown = JSON.parse(JSON.stringify(p.value));
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
}

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

/**
 * The calls that cover a catalog: for every package, channel and bundle every Registry RPC with
 * the arguments that mean something there (each package, channel, channel entry, every name a
 * channel replaces or skips, every provided and required GVK), the experimental RPC for each custom
 * schema, and for each RPC the not-found cases with made-up names.
 */
export function callsFor(cfg: DeclarativeConfig): { calls: Call[]; replacers: Map<string, string[]> } {
  const calls: Call[] = [
    { method: 'ListPackages', request: {} },
    { method: 'ListBundles', request: {} },
  ];
  // GetBundleThatReplaces: "pkg/channel/name" → the entries of that channel replacing or skipping it.
  const replacers = new Map<string, string[]>();
  const allNames = new Set<string>();
  const packages = [...new Set([...cfg.packages.map((p) => p.name)])].sort();
  for (const pkg of packages) calls.push({ method: 'GetPackage', request: { name: pkg } });
  const channels = [...cfg.channels].sort((a, b) => cmp(a.package, b.package) || cmp(a.name, b.name));
  for (const ch of channels) {
    calls.push({ method: 'GetBundleForChannel', request: { pkgName: ch.package, channelName: ch.name } });
    const mentioned = new Set<string>();
    for (const e of ch.entries ?? []) {
      calls.push({
        method: 'GetBundle',
        request: { pkgName: ch.package, channelName: ch.name, csvName: e.name },
      });
      mentioned.add(e.name);
      for (const old of [e.replaces ?? '', ...(e.skips ?? [])]) {
        if (old === '') continue;
        mentioned.add(old);
        const key = `${ch.package}/${ch.name}/${old}`;
        const list = replacers.get(key) ?? [];
        if (!list.includes(e.name)) list.push(e.name);
        replacers.set(key, list.sort());
      }
    }
    for (const name of [...mentioned].sort()) {
      allNames.add(name);
      calls.push({
        method: 'GetBundleThatReplaces',
        request: { csvName: name, pkgName: ch.package, channelName: ch.name },
      });
    }
    calls.push(
      { method: 'GetBundle', request: { pkgName: ch.package, channelName: ch.name, csvName: MADE_UP } },
      {
        method: 'GetBundleThatReplaces',
        request: { csvName: MADE_UP, pkgName: ch.package, channelName: ch.name },
      },
    );
  }
  for (const name of [...allNames].sort()) {
    calls.push({ method: 'GetChannelEntriesThatReplace', request: { csvName: name } });
  }
  const gvks = new Map<string, Gvk>();
  for (const b of cfg.bundles) {
    for (const p of b.properties ?? []) {
      if (p.type !== 'olm.gvk' && p.type !== 'olm.gvk.required') continue;
      const v = propertyValue(p);
      const g = {
        group: String(v.group ?? ''),
        version: String(v.version ?? ''),
        kind: String(v.kind ?? ''),
      };
      gvks.set(`${g.group}/${g.version}/${g.kind}`, g);
    }
  }
  const sortedGvks = [...gvks.entries()].sort(([a], [b]) => cmp(a, b)).map(([, g]) => g);
  const first = sortedGvks[0];
  // Matching is exact: a group in other letter case is not found; `plural` is ignored.
  const variants: Gvk[] = [
    ...sortedGvks,
    ...(first === undefined ? [] : [{ ...first, group: first.group.toUpperCase() }]),
    { group: MADE_UP, version: 'v1', kind: 'Nothing' },
  ];
  for (const g of variants) {
    for (const method of [
      'GetChannelEntriesThatProvide',
      'GetLatestChannelEntriesThatProvide',
      'GetDefaultBundleThatProvides',
    ]) {
      calls.push({ method, request: { ...g, plural: 'ignored' } });
    }
  }
  const somePackage = packages[0] ?? MADE_UP;
  const someChannel = channels[0];
  calls.push(
    { method: 'GetPackage', request: { name: MADE_UP } },
    { method: 'GetBundle', request: { pkgName: MADE_UP, channelName: MADE_UP, csvName: MADE_UP } },
    { method: 'GetBundle', request: { pkgName: somePackage, channelName: MADE_UP, csvName: MADE_UP } },
    { method: 'GetBundleForChannel', request: { pkgName: MADE_UP, channelName: MADE_UP } },
    { method: 'GetBundleForChannel', request: { pkgName: somePackage, channelName: MADE_UP } },
    { method: 'GetChannelEntriesThatReplace', request: { csvName: MADE_UP } },
    {
      method: 'GetBundleThatReplaces',
      request: { csvName: MADE_UP, pkgName: MADE_UP, channelName: MADE_UP },
    },
    {
      method: 'GetBundleThatReplaces',
      request: { csvName: MADE_UP, pkgName: somePackage, channelName: MADE_UP },
    },
  );
  if (someChannel !== undefined) {
    // A package's bundle name asked in another package.
    const entry = someChannel.entries?.[0]?.name ?? MADE_UP;
    calls.push({
      method: 'GetBundle',
      request: { pkgName: MADE_UP, channelName: someChannel.name, csvName: entry },
    });
  }
  // The experimental RPC: without the acknowledgement header (an empty stream), without a schema,
  // with a schema that is not a name, and for each custom schema and package the catalog has.
  const ack = { 'x-acknowledge-experimental': 'true' };
  calls.push(
    { method: 'ExperimentalListPackageCustomSchemas', request: { schema: 'olm.package' } },
    { method: 'ExperimentalListPackageCustomSchemas', request: {}, metadata: ack },
    { method: 'ExperimentalListPackageCustomSchemas', request: { schema: '../x' }, metadata: ack },
    { method: 'ExperimentalListPackageCustomSchemas', request: { schema: MADE_UP }, metadata: ack },
  );
  const custom = new Set(cfg.others.map((m) => `${m.schema}\u0000${m.package}`));
  for (const key of [...custom].sort()) {
    const [schema = '', packageName = ''] = key.split('\u0000');
    calls.push({
      method: 'ExperimentalListPackageCustomSchemas',
      request: { schema, packageName },
      metadata: ack,
    });
  }
  return { calls, replacers };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface ServeRecord {
  catalog: string;
  calls: CallResult[];
}

/**
 * Every Registry RPC over the catalog (callsFor) against the server at `address`, as a
 * deterministic record: the streams whose order is Go map order in the reference (all but
 * ListBundles) are sorted, and GetBundleThatReplaces answers for names several bundles replace
 * are recorded as whether the answer is one of them.
 */
export async function collectAll(address: string, catalog: string): Promise<ServeRecord> {
  const cfg = await loadCatalogDirOrThrow(catalog);
  const { calls, replacers } = callsFor(cfg);
  const results = await callAll(address, calls);
  if (results.length !== calls.length) {
    throw new Error(`opm-serve-client answered ${results.length} of ${calls.length} calls`);
  }
  for (const r of results) {
    if (r.stream !== undefined && r.method !== 'ListBundles') {
      r.stream = r.stream
        .map((m) => JSON.stringify(m))
        .sort()
        .map((s) => JSON.parse(s) as unknown);
    }
    if (r.method === 'GetBundleThatReplaces' && r.response !== undefined) {
      const candidates =
        replacers.get(`${r.request.pkgName}/${r.request.channelName}/${r.request.csvName}`) ?? [];
      if (candidates.length > 1) {
        const answered = (r.response as { csvName?: string }).csvName ?? '';
        delete r.response;
        r.candidates = candidates;
        r.answerIsCandidate = candidates.includes(answered);
      }
    }
  }
  return { catalog, calls: results };
}

/** Where two records differ: one line per differing call (at most `limit`), empty when equal. */
export function differences(a: ServeRecord, b: ServeRecord, limit = 20): string[] {
  const out: string[] = [];
  const n = Math.max(a.calls.length, b.calls.length);
  for (let i = 0; i < n && out.length < limit; i++) {
    // A call one side lacks shows as "(none)".
    const x = a.calls[i] === undefined ? '(none)' : JSON.stringify(a.calls[i]);
    const y = b.calls[i] === undefined ? '(none)' : JSON.stringify(b.calls[i]);
    if (x === y) continue;
    const c = a.calls[i] ?? b.calls[i];
    let at = 0;
    while (at < Math.min(x.length, y.length) && x[at] === y[at]) at++;
    out.push(
      `${c?.method ?? '?'} ${JSON.stringify(c?.request)}: ` +
        `${x.slice(Math.max(0, at - 60), at + 120)}  <>  ${y.slice(Math.max(0, at - 60), at + 120)}`,
    );
  }
  return out;
}

/**
 * Resident memory of a live process and its descendants (a server may run helper processes), from
 * /proc: current (VmRSS) and peak (VmHWM), in KiB, summed over the tree.
 */
export function memoryOf(pid: number): { rssKiB: number; hwmKiB: number } {
  let rssKiB = 0;
  let hwmKiB = 0;
  const seen = new Set<number>();
  const visit = (p: number): void => {
    if (seen.has(p)) return;
    seen.add(p);
    let status: string;
    try {
      status = readFileSync(`/proc/${p}/status`, 'utf8');
    } catch {
      return; // gone meanwhile
    }
    const field = (name: string): number =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    rssKiB += field('VmRSS');
    hwmKiB += field('VmHWM');
    for (const task of safeReaddir(`/proc/${p}/task`)) {
      for (const child of safeRead(`/proc/${p}/task/${task}/children`).split(' ')) {
        if (child.trim() !== '') visit(Number(child));
      }
    }
  };
  visit(pid);
  return { rssKiB, hwmKiB };
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
