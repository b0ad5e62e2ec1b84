// needs-build: it runs bin/opm.js over dist/, on a real terminal (tmux) and in a pipe.
// Progress of `alpha render-template` pulling four bundle images from a real registry behind a
// proxy that sends blobs slowly: on a terminal a live display that moves and is cleared at the end,
// in a pipe a line per image when it starts and ends (size and time), nothing with --quiet, and
// the same catalog on stdout in every mode (testdata/progress/expected.yaml).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlainRegistry, type RegistryProcess } from './fixture.js';
import { BUNDLE_LABELS, buildImage, pushImage } from './image-builder.js';
import { tempDir } from './helpers.js';
import { startFaultProxy, type FaultProxy } from './servers.js';
import { freePort, requireTools } from './tools.js';

const bin = path.resolve('bin/opm.js');
const scenario = path.resolve('testdata/progress');
const VERSIONS = ['1.0.0', '1.1.0', '1.2.0', '1.3.0'];
/** Each image carries this much incompressible filler, so that its pull takes seconds. */
const FILLER = 320 * 1024;
const RATE = 64 * 1024;

let tmp: ReturnType<typeof tempDir>;
let registry: RegistryProcess;
let proxy: FaultProxy;
let template: string;
let expected: string;
let runs = 0;

beforeAll(async () => {
  // A real terminal, as for the registry: nothing is skipped for a missing tool.
  requireTools('tmux');
  tmp = tempDir('opm-progress-test-');
  registry = await startPlainRegistry(tmp.dir, 'plain');
  proxy = await startFaultProxy(await freePort(), registry.port);
  for (const v of VERSIONS) {
    const img = await buildImage({
      layers: [
        { dir: path.join(scenario, 'bundles', `bar-v${v}`) },
        { entries: [{ name: 'filler.bin', type: 'file', content: randomBytes(FILLER) }] },
      ],
      labels: BUNDLE_LABELS('bar'),
    });
    await pushImage(img, { url: registry.url, repo: 'progress/bar', tag: v });
  }
  template = path.join(tmp.dir, 'template.yaml');
  writeFileSync(
    template,
    readFileSync(path.join(scenario, 'template.yaml'), 'utf8').replaceAll('REGISTRY', proxy.host),
  );
  expected = readFileSync(path.join(scenario, 'expected.yaml'), 'utf8').replaceAll('REGISTRY', proxy.host);
});

afterAll(async () => {
  // Unassigned when beforeAll failed before reaching them.
  await (proxy as FaultProxy | undefined)?.close();
  await (registry as RegistryProcess | undefined)?.stop();
  (tmp as ReturnType<typeof tempDir> | undefined)?.remove();
});

/** A slow registry again, and a cold cache for the next run. */
function freshRun(): { env: NodeJS.ProcessEnv; dir: string } {
  proxy.reset();
  proxy.faults.push({ kind: 'throttle', on: 'blob', times: 100, bytesPerSecond: RATE });
  runs++;
  const dir = path.join(tmp.dir, `run-${runs}`);
  mkdirSync(path.join(dir, 'home'), { recursive: true });
  const conf = path.join(dir, 'registries.conf');
  writeFileSync(conf, '');
  return {
    dir,
    env: {
      PATH: [path.dirname(process.execPath), process.env.PATH].join(':'),
      HOME: path.join(dir, 'home'),
      OLM_CACHE_DIR: path.join(dir, 'cache'),
      CONTAINERS_REGISTRIES_CONF: conf,
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
    },
  };
}

const args = (quiet: boolean): string[] => [
  ...(quiet ? ['--quiet'] : []),
  '--use-http',
  'alpha',
  'render-template',
  'basic',
  template,
  '-o',
  'yaml',
];

/** The run in a pipe: stdout and stderr as the program wrote them. */
function inPipe(quiet: boolean): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { env } = freshRun();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args(quiet)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface TerminalRun {
  /** Screens captured while the program ran, in order. */
  screens: string[];
  /** The screen once it had ended. */
  last: string;
  code: number;
  stdout: string;
}

/**
 * The run on a real terminal: a tmux pane of 120×30, stdout sent to a file as `opm … > out.yaml`
 * would be, stderr on the terminal. The pane is captured every 200 ms until the program ends.
 */
async function onTerminal(quiet: boolean): Promise<TerminalRun> {
  const { env, dir } = freshRun();
  const socket = `opm-progress-${process.pid}-${runs}`;
  const out = path.join(dir, 'out.yaml');
  const rc = path.join(dir, 'rc');
  const script = path.join(dir, 'run.sh');
  const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;
  writeFileSync(
    script,
    [
      ...Object.entries(env).map(([k, v]) => `export ${k}=${quote(v ?? '')}`),
      'clear',
      `${quote(process.execPath)} ${[bin, ...args(quiet)].map(quote).join(' ')} > ${quote(out)}`,
      `echo $? > ${quote(rc)}`,
      'sleep 60',
    ].join('\n'),
  );
  const tmux = (...a: string[]): string =>
    spawnSync('tmux', ['-L', socket, ...a], { encoding: 'utf8', env: { ...env, TMUX: '' } }).stdout;
  tmux('new-session', '-d', '-x', '120', '-y', '30', 'sh', script);
  const screens: string[] = [];
  try {
    // Ends with the program (the proxy's pace makes that seconds; the test's time-out bounds it).
    while (!existsSync(rc) || readFileSync(rc, 'utf8') === '') {
      screens.push(tmux('capture-pane', '-p'));
      await sleep(200);
    }
    return {
      screens,
      last: tmux('capture-pane', '-p'),
      code: Number(readFileSync(rc, 'utf8').trim()),
      stdout: readFileSync(out, 'utf8'),
    };
  } finally {
    tmux('kill-server');
  }
}

/** The bytes shown on a screen's image lines (`1.2 KiB / 320.4 KiB`, and the rate). */
const imageLines = (screen: string): string[] => screen.split('\n').filter((l) => /^ {2}\[\d\/4\] /.test(l));

describe('progress of a template pulling four bundle images from a slow registry', () => {
  it('in a pipe: a line per image when it starts and one when it ends, with its size and time', async () => {
    const r = await inPipe(false);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(expected);
    const lines = r.stderr.trimEnd().split('\n');
    const refs = VERSIONS.map((v) => `${proxy.host}/progress/bar:${v}`);
    const started = lines.filter((l) => l.startsWith('pulling image '));
    const ended = lines.filter((l) => l.startsWith('pulled image '));
    expect(started).toHaveLength(4);
    expect(ended).toHaveLength(4);
    expect(lines).toHaveLength(8);
    for (const ref of refs) {
      expect(started.filter((l) => l.endsWith(` ${ref}`))).toHaveLength(1);
      const end = ended.find((l) => l.includes(` ${ref}: `)) ?? '';
      expect(end).toMatch(/^pulled image [1-4]\/4 \S+: 3\d\d\.\d KiB in \d+\.\d s$/);
      // Each image's start line comes before its end line, with the same number.
      const n = /image ([1-4]\/4)/.exec(end)?.[1];
      expect(lines.indexOf(`pulling image ${n} ${ref}`)).toBeLessThan(lines.indexOf(end));
    }
  });

  it('in a pipe with --quiet: nothing on stderr, the same stdout', async () => {
    const r = await inPipe(true);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(expected);
  });

  it('on a terminal: a display with bytes and rate per image that moves, cleared at the end', async () => {
    const r = await onTerminal(false);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(expected);
    const shown = r.screens.filter((s) => imageLines(s).length > 0);
    expect(shown.length).toBeGreaterThanOrEqual(2);
    const first = shown[0] ?? '';
    const later = shown.at(-1) ?? '';
    // The header counts the images and the time; a line per image has a bar, bytes and a rate.
    expect(first).toMatch(/^pulling images: [0-3] of 4 done, [1-4] under way · \d+:\d\d$/m);
    for (const line of imageLines(first))
      expect(line).toMatch(
        /^ {2}\[[1-4]\/4\] \S+\/progress\/bar:1\.\d\.0 [█░]{20} (\d+\.\d (KiB|B)|\d+ B) \/ 3\d\d\.\d KiB \d+(\.\d)? (B|KiB)\/s$/,
      );
    // It moves: what it shows changed between two captures.
    expect(imageLines(later)).not.toEqual(imageLines(first));
    // Cleared when done: no trace of it on the screen (the catalog went to the file).
    expect(r.last).not.toMatch(/pulling images|\[\d\/4\]|█|░/);
  });

  it('on a terminal with --quiet: nothing shown, the same stdout', async () => {
    const r = await onTerminal(true);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(expected);
    for (const screen of [...r.screens, r.last]) expect(screen.trim()).toBe('');
  });
});
