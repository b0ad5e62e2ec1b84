// needs-build: it runs bin/opm.js over dist/.
// The launcher (src/cli/launch.ts, run by bin/opm.js over dist/): the bundle is compiled with the
// build's code cache, or with one the run leaves in the cache folder when Node.js's V8 flags differ.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CLI_WRAPPER_HEAD,
  CLI_WRAPPER_TAIL,
  compileCli,
  compileRenderBundle,
  RENDER_INTERRUPT_BUDGET,
  renderBundleFile,
  runsShort,
  shippedStampFile,
  shortBundleFile,
  V8_INTERRUPT_BUDGET,
  type CliModule,
} from '../../src/cli/launch.js';
import { plainBundleRender } from '../../src/cli/render-bundle-args.js';
import { runOpm, type CliResult } from '../run-cli.js';
import { haveCorpus } from '../corpus.js';
import { communityBundleDirs } from '../render/corpus-helpers.js';

const bin = path.resolve('bin/opm.js');
const catalog = path.resolve('testdata/examples/catalog');

let cacheDir: string;
beforeEach(() => {
  cacheDir = mkdtempSync(path.join(os.tmpdir(), 'opm-launch-'));
});
afterEach(() => rmSync(cacheDir, { recursive: true, force: true }));

// The build's stamp: Node.js version, architecture, then the V8 flags it ran with (bin/opm.js's and
// any NODE_OPTIONS), given to the runs below on Node.js's command line (NODE_OPTIONS takes only
// some V8 flags).
const stamp = readFileSync(path.resolve('dist/opm.cjs.cache.stamp'), 'utf8').trim();
const buildFlags = stamp.split(' ').slice(2);

function run(nodeFlags: string[], args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [...buildFlags, ...nodeFlags, bin, ...args], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: cacheDir,
      OLM_CACHE_DIR: cacheDir,
      NO_COLOR: '1',
    },
  });
}

/** The environment of a run as a program: this Node.js first in PATH, as npm's link finds it. */
function asProgram(): NodeJS.ProcessEnv {
  return {
    PATH: [path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter),
    HOME: cacheDir,
    OLM_CACHE_DIR: cacheDir,
  };
}

/** A copy of the package as npm installs it (bin, dist, schemas, package.json), in the cache folder. */
function installedCopy(): string {
  const installed = path.join(cacheDir, 'lib', 'opm-ts');
  for (const d of ['bin', 'dist', 'schemas'])
    cpSync(path.resolve(d), path.join(installed, d), { recursive: true });
  cpSync(path.resolve('package.json'), path.join(installed, 'package.json'));
  symlinkSync(path.resolve('node_modules'), path.join(installed, 'node_modules'));
  return installed;
}

function ownCaches(): string[] {
  const dir = path.join(cacheDir, 'code-cache');
  try {
    return readdirSync(dir).map((n) => path.join(dir, n));
  } catch {
    return [];
  }
}

// A V8 flag that changes nothing opm does but makes V8 refuse a cache made without it.
const OTHER_FLAGS = ['--stack-size=900'];

describe('the launcher', () => {
  it('uses the cache the build wrote, and writes none of its own', () => {
    expect(stamp.startsWith(`${process.version} ${process.arch}`)).toBe(true);
    const r = run([], ['render', catalog, '-o', 'json']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('"schema": "olm.package"');
    expect(ownCaches()).toEqual([]);
  });

  it('run as a program, starts Node.js with the flags the build made its cache with, and uses it', () => {
    // bin/opm.js's shell line gives Node.js its V8 flags (a smaller young generation) for commands
    // that read catalogs; the stamp names them, and such a run compiles with the shipped cache.
    const flags = /opm_ts_v8='?([^;']*)'?;/.exec(readFileSync(bin, 'utf8'))?.[1];
    expect(flags).toBe(
      '--max-semi-space-size=4 --max-inlined-bytecode-size-cumulative=300 --no-allocation-site-pretenuring --initial-old-space-size=32 --interrupt-budget=270336',
    );
    expect(stamp.endsWith(` ${flags ?? ''}`)).toBe(true);
    const r = spawnSync(bin, ['render', catalog, '-o', 'json'], { encoding: 'utf8', env: asProgram() });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('"schema": "olm.package"');
    expect(ownCaches()).toEqual([]);
    // Without V8 flags (`node bin/opm.js`) the cache the build made without flags is used.
    const plain = spawnSync(process.execPath, [bin, 'render', catalog, '-o', 'json'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: cacheDir, OLM_CACHE_DIR: cacheDir },
    });
    expect(plain.stdout).toBe(r.stdout);
    expect(ownCaches()).toEqual([]);
  });

  it('run as a program, starts `serve` with its own V8 flags, its own shipped cache and a lower malloc trim threshold', () => {
    // The shell line as it runs, with a stand-in `node` first in PATH that prints what it was given.
    const fake = path.join(cacheDir, 'fake-node');
    mkdirSync(fake);
    writeFileSync(path.join(fake, 'node'), '#!/bin/sh\necho "${MALLOC_TRIM_THRESHOLD_-unset}" "$@"\n', {
      mode: 0o755,
    });
    const shell = (args: string[], env: NodeJS.ProcessEnv = {}): string =>
      spawnSync(bin, args, {
        encoding: 'utf8',
        env: { PATH: [fake, process.env.PATH ?? ''].join(path.delimiter), ...env },
      }).stdout.trim();
    const serveFlags = '--max-semi-space-size=1 --max-inlined-bytecode-size-cumulative=300';
    expect(shell(['serve', catalog])).toBe(`131072 ${serveFlags} ${bin} serve ${catalog}`);
    // A threshold the user set is kept; other commands get neither.
    expect(shell(['serve', catalog], { MALLOC_TRIM_THRESHOLD_: '65536' })).toBe(
      `65536 ${serveFlags} ${bin} serve ${catalog}`,
    );
    expect(shell(['validate', catalog])).toBe(`unset ${buildFlags.join(' ')} ${bin} validate ${catalog}`);
    // The build made a cache under exactly those flags, and V8 takes it under them.
    const serveStamp = readFileSync(path.resolve('dist/opm.cjs.serve.cache.stamp'), 'utf8').trim();
    expect(serveStamp).toBe(`${process.version} ${process.arch} ${serveFlags}`);
    const accepted = spawnSync(
      process.execPath,
      [
        ...serveFlags.split(' '),
        '-e',
        `const { compileCli } = require(${JSON.stringify(path.resolve('dist/launch.cjs'))});
         const cache = require('node:fs').readFileSync(${JSON.stringify(path.resolve('dist/opm.cjs.serve.cache'))});
         process.stdout.write(String(compileCli(${JSON.stringify(path.resolve('dist/opm.cjs'))}, cache).cacheAccepted));`,
      ],
      { encoding: 'utf8' },
    );
    expect(accepted.stdout).toBe('true');
    // Run as a program, `serve` finds that cache and leaves none of its own.
    const help = spawnSync(bin, ['serve', '--help'], { encoding: 'utf8', env: asProgram() });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('serve');
    expect(ownCaches()).toEqual([]);
  });

  it('run as a program, starts commands that read no catalog without V8 flags', () => {
    // An installed copy without the cache made without flags: a run started without flags finds no
    // shipped cache of its stamp and leaves one of its own, a run with the flags uses the shipped one.
    const installed = installedCopy();
    // (The render of bundle directories alone has no cache of its own either: it runs only with its
    // shipped one, so here the command line renders them.)
    for (const f of [
      'opm.cjs.plain',
      'opm-short.cjs.plain',
      'opm-short.cjs.generate',
      'opm-render-bundle.cjs.plain',
    ].flatMap((b) => [`${b}.cache`, `${b}.cache.stamp`]))
      rmSync(path.join(installed, 'dist', f));
    const opm = path.join(installed, 'bin', 'opm.js');
    const bundleDir = path.resolve('testdata/render/good/properties-and-dependencies');
    const asRun = (args: string[]): string => {
      const r = spawnSync(opm, args, { encoding: 'utf8', env: asProgram() });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      return r.stdout;
    };
    // Commands that read catalogs: with the flags.
    asRun(['render', catalog, '-o', 'json']);
    asRun(['render', bundleDir, catalog, '-o', 'json']);
    asRun(['validate', catalog]);
    expect(ownCaches()).toEqual([]);
    // A bundle directory alone: without them; the same bytes as with them.
    const out = asRun(['render', bundleDir, '-o', 'json']);
    expect(ownCaches()).toHaveLength(1);
    const withFlags = spawnSync(
      process.execPath,
      [
        '--max-semi-space-size=4',
        '--max-inlined-bytecode-size-cumulative=300',
        '--no-allocation-site-pretenuring',
        '--initial-old-space-size=32',
        '--interrupt-budget=270336',
        opm,
        'render',
        bundleDir,
        '-o',
        'json',
      ],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: cacheDir, OLM_CACHE_DIR: cacheDir },
      },
    );
    expect(withFlags.stdout).toBe(out);
    expect(out).toContain('"schema": "olm.bundle"');
    // Help, and the same bundle directory with options before it: the cache of that start again.
    const [own] = ownCaches();
    const written = statSync(own ?? '').mtimeMs;
    expect(asRun(['--help'])).toContain('Usage:');
    asRun(['render', '-o', 'yaml', bundleDir]);
    expect(asRun(['init', 'p'])).toContain('"schema": "olm.package"');
    expect(ownCaches()).toEqual([own]);
    expect(statSync(own ?? '').mtimeMs).toBe(written);
    // A bundle directory beside something that looks like an image reference: with the flags (the
    // image may be a whole catalog), so the shipped cache again and no other of its own.
    const image = spawnSync(opm, ['render', bundleDir, '127.0.0.1:9/opm-ts/absent:v1', '--use-http'], {
      encoding: 'utf8',
      env: asProgram(),
    });
    expect(image.status).toBe(1);
    expect(ownCaches()).toEqual([own]);
  });

  it('leaves a cache for other V8 flags and reads it on the next run', () => {
    const plain = run([], ['render', catalog, '-o', 'yaml']);
    const first = run(OTHER_FLAGS, ['render', catalog, '-o', 'yaml']);
    expect(first.status).toBe(0);
    expect(first.stdout).toBe(plain.stdout);
    const [file, ...more] = ownCaches();
    expect(file).toBeDefined();
    expect(more).toEqual([]);
    const written = statSync(file ?? '').mtimeMs;

    const second = run(OTHER_FLAGS, ['render', catalog, '-o', 'yaml']);
    expect(second.stdout).toBe(plain.stdout);
    // Rewritten only when V8 refuses it: an unchanged file is a cache that was accepted.
    expect(statSync(file ?? '').mtimeMs).toBe(written);
  });

  it('replaces a corrupt cache and still runs', () => {
    expect(run(OTHER_FLAGS, ['--help']).status).toBe(0);
    const [file] = ownCaches();
    if (file === undefined) throw new Error('no cache written');
    writeFileSync(file, 'not a code cache');
    const r = run(OTHER_FLAGS, ['render', catalog, '-o', 'json']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('"schema": "olm.package"');
    expect(readFileSync(file, 'utf8')).not.toBe('not a code cache');
  });
});

describe('the bundle', () => {
  it('is written as the function the launcher compiles, and one of an older build is refused', () => {
    const bundle = readFileSync(path.resolve('dist/opm.cjs'), 'latin1');
    expect(bundle.startsWith(CLI_WRAPPER_HEAD)).toBe(true);
    expect(bundle.endsWith(CLI_WRAPPER_TAIL)).toBe(true);
    const old = path.join(cacheDir, 'opm.cjs');
    writeFileSync(old, bundle.slice(CLI_WRAPPER_HEAD.length, -CLI_WRAPPER_TAIL.length));
    expect(() => compileCli(old)).toThrow(`${old}: not a bundle of this version`);
  });
});

describe('a bare `opm version`', () => {
  it('prints what the command line prints, without compiling the command line', () => {
    const bare = run(OTHER_FLAGS, ['version']);
    expect(bare.status).toBe(0);
    expect(bare.stderr).toBe('');
    // Compiling the bundle under other V8 flags would have left a cache of its own.
    expect(ownCaches()).toEqual([]);
    // OPM_DEBUG=1 takes the command line's way.
    const full = spawnSync(process.execPath, [bin, 'version'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: cacheDir, OPM_DEBUG: '1' },
    });
    expect(full.status).toBe(0);
    expect(bare.stdout).toBe(full.stdout);
    expect(bare.stdout).toMatch(/^Version: version\.Version\{OpmVersion:"v1\.73\.0\+opm-ts\.[^"]+", /);
  });

  it('leaves every other form to the command line', () => {
    const help = run([], ['version', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Print the opm version');
    const extra = run([], ['version', '--bogus']);
    expect(extra.status).toBe(2);
    expect(extra.stderr).toContain('--bogus');
  });
});

describe('an installed copy', () => {
  it('names its own files in --debug stack traces, not the folder it was built in', () => {
    const installed = installedCopy();
    const bad = path.join(cacheDir, 'bad');
    mkdirSync(bad);
    writeFileSync(path.join(bad, 'catalog.yaml'), 'x: [\n');
    const r = spawnSync(process.execPath, [path.join(installed, 'bin/opm.js'), 'render', bad, '--debug'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: cacheDir, NO_COLOR: '1' },
    });
    expect(r.status).toBe(1);
    // `render` without V8 flags runs from the short bundle.
    const frames = r.stderr.split('\n').filter((l) => l.includes('opm-short.cjs:'));
    expect(frames.length).toBeGreaterThan(0);
    for (const f of frames) expect(f).toContain(path.join(installed, 'dist', 'opm-short.cjs'));
  });
});

describe('the short bundle', () => {
  const whole = path.resolve('dist/opm.cjs');
  const short = shortBundleFile(whole);
  const bundleDir = path.resolve('testdata/render/good/properties-and-dependencies');

  const runIn = (cli: CliModule, args: string[], cwd: string): Promise<CliResult> =>
    runOpm(args, { cli, cwd, env: { HOME: cacheDir, OLM_CACHE_DIR: cacheDir } });

  it('is what the launcher loads for the command lines bin/opm.js starts without V8 flags', () => {
    const plain = `${process.version} ${process.arch}`;
    for (const args of [[], ['--help'], ['-h'], ['help', 'validate'], ['render', 'x'], ['init', 'p']])
      expect(runsShort(args, plain), args.join(' ')).toBe(true);
    for (const args of [
      ['generate', 'dockerfile', 'x'],
      ['version', '--help'],
      ['completion', 'fish'],
    ])
      expect(runsShort(args, plain), args.join(' ')).toBe(true);
    // Other commands, options before the command, and any run with V8 flags: the whole bundle.
    for (const args of [['validate', 'x'], ['serve', 'x'], ['alpha'], ['--quiet', 'render', 'x'], ['diff']])
      expect(runsShort(args, plain), args.join(' ')).toBe(false);
    expect(runsShort(['render', 'x'], `${plain} --max-semi-space-size=4`)).toBe(false);
    // The short bundle leaves out what those command lines never run: the server (gRPC, reflection,
    // the catalog API) and the serve cache. Its size is checked against the whole bundle's too.
    const shortText = readFileSync(short, 'utf8');
    const wholeText = readFileSync(whole, 'utf8');
    for (const mark of ['ServerReflectionInfo', 'grpc-timeout', 'pogreb']) {
      expect(wholeText.includes(mark), mark).toBe(true);
      expect(shortText.includes(mark), mark).toBe(false);
    }
    expect(statSync(short).size).toBeLessThan(statSync(whole).size * 0.75);
  });

  it('answers its command lines as the whole bundle does', async () => {
    const a = compileCli(short).cli;
    const b = compileCli(whole).cli;
    const work = path.join(cacheDir, 'work');
    for (const side of ['a', 'b']) {
      for (const copy of ['catalog', 'catalog2']) {
        mkdirSync(path.join(work, side, copy), { recursive: true });
        cpSync(catalog, path.join(work, side, copy), { recursive: true });
      }
    }
    const lines = [
      [],
      ['--help'],
      ['help', 'validate'],
      ['help', 'alpha'],
      ['alpha', 'list', 'bogus'],
      ['render', bundleDir, '-o', 'json'],
      ['render', bundleDir, '-o', 'yaml', '--migrate'],
      ['render', 'catalog', '-o', 'yaml'],
      ['render', '--bogus'],
      ['init', 'p', '--default-channel', 'stable'],
      // Relative to the process's folder, not the command line's (a difference left alone here).
      ['generate', 'dockerfile', '{work}/catalog'],
      ['generate-dockerfile', '{work}/catalog2', '--skip-validate', '-l', 'a=b'],
      ['version', '--help'],
      ['completion', 'bash'],
      ['completion', 'zsh'],
    ];
    const runSide = async (cli: CliModule, side: string, args: string[]): Promise<unknown> => {
      const dir = path.join(work, side);
      const r = await runIn(
        cli,
        args.map((x) => x.replace('{work}', dir)),
        dir,
      );
      return JSON.parse(JSON.stringify(r).replaceAll(dir, '{work}'));
    };
    for (const args of lines) {
      const x = await runSide(a, 'a', args);
      expect(x, args.join(' ')).toEqual(await runSide(b, 'b', args));
      const failing = ['--bogus', 'bogus'].includes(args.at(-1) ?? '');
      expect(x, args.join(' ')).toMatchObject({ code: failing ? 2 : 0 });
    }
    for (const name of ['catalog.Dockerfile', 'catalog2.Dockerfile'])
      expect(readFileSync(path.join(work, 'a', name), 'utf8')).toBe(
        readFileSync(path.join(work, 'b', name), 'utf8'),
      );
  });

  it('has caches without V8 flags, one of them for generate dockerfile, which the launcher uses', () => {
    for (const which of ['plain', 'generate'] as const)
      expect(readFileSync(`${shippedStampFile(short, which)}`, 'utf8').trim()).toBe(
        `${process.version} ${process.arch}`,
      );
    const dir = path.join(cacheDir, 'catalog');
    cpSync(catalog, dir, { recursive: true });
    for (const args of [['generate', 'dockerfile', dir], ['--help'], ['render', bundleDir]]) {
      const r = spawnSync(bin, args, { encoding: 'utf8', env: asProgram() });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
    }
    expect(readFileSync(`${dir}.Dockerfile`, 'utf8')).toContain('FROM ');
    // Without a shipped cache of the run's stamp, the run would have left one of its own.
    expect(ownCaches()).toEqual([]);
  });

  it('leaves out what only the other commands run; the launcher gives those the whole bundle', async () => {
    const r = await runIn(compileCli(short).cli, ['validate', catalog], cacheDir);
    expect(r.code).toBe(70);
    expect(r.stderr).toContain('validate-run is not in dist/opm-short.cjs');
    const plain = spawnSync(process.execPath, [bin, 'validate', catalog], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: cacheDir, OLM_CACHE_DIR: cacheDir },
    });
    expect(plain.stderr).toBe('');
    expect(plain.status).toBe(0);
  });
});

describe('the render of bundle directories alone', () => {
  const whole = path.resolve('dist/opm.cjs');
  const fast = renderBundleFile(whole);
  const good = path.resolve('testdata/render/good/properties-and-dependencies');
  const bad = (name: string): string => path.resolve('testdata/render/bad', name);

  it('takes only `render <dir>... [-o|--output json|yaml]`', () => {
    expect(plainBundleRender(['render', 'a'])).toEqual({ refs: ['a'], format: 'json' });
    expect(plainBundleRender(['render', '-o', 'yaml', 'a', 'b'])).toEqual({
      refs: ['a', 'b'],
      format: 'yaml',
    });
    expect(plainBundleRender(['render', 'a', '--output', 'json'])).toEqual({ refs: ['a'], format: 'json' });
    expect(plainBundleRender(['render', 'a', '--output=yaml'])).toEqual({ refs: ['a'], format: 'yaml' });
    for (const args of [
      ['render'],
      ['render', '-o', 'json'],
      ['render', 'a', '-o'],
      ['render', 'a', '-o', 'xml'],
      ['render', 'a', '-o', 'JSON'],
      ['render', 'a', '-o', 'json', '-o', 'json'],
      ['render', 'a', '-ojson'],
      ['render', 'a', '-o=json'],
      ['render', 'a', '--migrate'],
      ['render', 'a', '--migrate-level', 'all'],
      ['render', 'a', '--alpha-image-ref-template', 'x'],
      ['render', 'a', '--debug'],
      ['render', 'a', '--help'],
      ['render', '--', 'a'],
      ['render', ''],
      ['--quiet', 'render', 'a'],
      ['validate', 'a'],
    ])
      expect(plainBundleRender(args), args.join(' ')).toBeUndefined();
  });

  it("runs under a larger interrupt budget, and gives it back so that the command line's cache is taken", () => {
    // The budget given back is V8's own: with it the short bundle's cache is accepted again, and under
    // the render's it is not (so that giving it back matters).
    const options = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
    expect(options).toContain(`default: --interrupt-budget=${V8_INTERRUPT_BUDGET}\n`);
    expect(RENDER_INTERRUPT_BUDGET).toBeGreaterThan(V8_INTERRUPT_BUDGET);
    const accepted = (budgets: number[]): string =>
      spawnSync(
        process.execPath,
        [
          '-e',
          `const v8 = require('node:v8');
           for (const b of ${JSON.stringify(budgets)}) v8.setFlagsFromString('--interrupt-budget=' + b);
           const { compileCli } = require(${JSON.stringify(path.resolve('dist/launch.cjs'))});
           const short = ${JSON.stringify(shortBundleFile(whole))};
           const cache = require('node:fs').readFileSync(short + '.plain.cache');
           process.stdout.write(String(compileCli(short, cache).cacheAccepted));`,
        ],
        { encoding: 'utf8' },
      ).stdout;
    expect(accepted([])).toBe('true');
    expect(accepted([RENDER_INTERRUPT_BUDGET])).toBe('false');
    expect(accepted([RENDER_INTERRUPT_BUDGET, V8_INTERRUPT_BUDGET])).toBe('true');
  });

  it('has a code cache without V8 flags, and is small', () => {
    expect(readFileSync(shippedStampFile(fast, 'plain'), 'utf8').trim()).toBe(
      `${process.version} ${process.arch}`,
    );
    expect(statSync(fast).size).toBeLessThan(statSync(shortBundleFile(whole)).size / 4);
  });

  // Each corpus bundle directory rendered by the fast path in this process and by the whole bundle's
  // command line: the same bytes, and the fast path declines exactly where the command line says
  // something on stderr or fails.
  it.skipIf(!haveCorpus())(
    'renders every corpus bundle directory, JSON and YAML, as the whole bundle does',
    async () => {
      const render = compileRenderBundle(fast).exports.renderBundleDirsFast;
      const cli = compileCli(whole).cli;
      const dirs = communityBundleDirs();
      expect(dirs.length).toBeGreaterThan(100);
      let rendered = 0;
      const check = async (args: string[]): Promise<void> => {
        const mine = render(args, cacheDir);
        const theirs = await runOpm(args, {
          cli,
          cwd: cacheDir,
          env: { HOME: cacheDir, OLM_CACHE_DIR: cacheDir },
        });
        if (mine === undefined) {
          expect(theirs.code !== 0 || theirs.stderr !== '', args.join(' ')).toBe(true);
        } else {
          rendered++;
          expect(theirs.stderr, args.join(' ')).toBe('');
          expect(theirs.code, args.join(' ')).toBe(0);
          expect(Buffer.from(mine).toString('utf8'), args.join(' ')).toBe(theirs.stdout);
        }
      };
      for (const { dir } of dirs) {
        await check(['render', dir]);
        await check(['render', '-o', 'yaml', dir]);
      }
      // Several directories at once, in argument order, with the forms of the output flag.
      const some = dirs.filter((_, i) => i % 40 === 0).map((d) => d.dir);
      await check(['render', ...some, '--output=yaml']);
      await check(['render', ...some.reverse(), '--output', 'json']);
      await check(['render', some[0] ?? '', some[0] ?? '']);
      expect(rendered).toBeGreaterThan(dirs.length);
    },
    120_000,
  );

  // As a program: the launcher tries the fast path for these command lines, and every other way out
  // (a missing directory, an error, a warning, a bad flag value) is the whole bundle's, byte for byte.
  it('answers as the whole bundle does, run as a program, failures and warnings included', () => {
    const program = (nodeFlags: string[], args: string[]): ReturnType<typeof spawnSync> =>
      spawnSync(process.execPath, [...nodeFlags, bin, ...args], {
        encoding: 'utf8',
        cwd: path.resolve('testdata/render'),
        env: { PATH: process.env.PATH, HOME: cacheDir, OLM_CACHE_DIR: cacheDir },
      });
    const lines = [
      ['render', good],
      ['render', good, '-o', 'yaml'],
      ['render', 'good/properties-and-dependencies', 'good/duplicate-keys', '--output', 'json'],
      ['render', 'good/duplicate-keys'],
      ['render', 'missing-dir'],
      ['render', './missing-dir', '-o', 'yaml'],
      ['render', good, bad('csv-not-yaml')],
      ['render', bad('no-csv')],
      ['render', bad('two-csvs'), '-o', 'yaml'],
      ['render', bad('several-documents')],
      ['render', bad('no-annotations')],
      ['render', bad('owned-crd-missing')],
      ['render', good, '-o', 'xml'],
      ['render', good, '-o', 'json', '-o', 'yaml'],
    ];
    for (const args of lines) {
      // With a V8 flag the launcher loads the whole bundle and never the fast path.
      const a = program([], args);
      const b = program(OTHER_FLAGS, args);
      const what = args.join(' ');
      expect({ status: a.status, stdout: a.stdout, stderr: a.stderr }, what).toEqual({
        status: b.status,
        stdout: b.stdout,
        stderr: b.stderr,
      });
    }
  });

  it('fails a write to standard output as the whole bundle does, before or after a part is written', () => {
    const large = path.resolve('testdata/render/good/properties-and-dependencies');
    // Through bash: a file size limit of 8 KiB (SIGXFSZ ignored, so the write fails with EFBIG once
    // a part is out), and /dev/full, which takes nothing.
    const out = path.join(cacheDir, 'out');
    const shell = (
      nodeFlags: string[],
      limit: string,
      to: string,
    ): { status: number | null; stderr: string } => {
      const r = spawnSync(
        'bash',
        [
          '-c',
          `trap '' XFSZ; ${limit} exec "$0" "$@" > ${to}`,
          process.execPath,
          ...nodeFlags,
          bin,
          'render',
          large,
          large,
          large,
          large,
        ],
        { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: cacheDir, OLM_CACHE_DIR: cacheDir } },
      );
      return { status: r.status, stderr: r.stderr };
    };
    for (const [limit, to] of [
      ['ulimit -f 8;', out],
      ['', '/dev/full'],
    ] as const) {
      const a = shell([], limit, to);
      const written = to === out ? readFileSync(out) : undefined;
      const b = shell(OTHER_FLAGS, limit, to);
      expect(a, `${limit} ${to}`).toEqual(b);
      expect(a.status).toBe(1);
      expect(a.stderr).toMatch(/^error: write \/dev\/stdout: (file too large|no space left on device)\n$/);
      if (written !== undefined) {
        expect(written.length).toBe(8192);
        expect(readFileSync(out)).toEqual(written);
      }
    }
  });

  it('is what renders a clean bundle directory, and leaves everything else to the command line', () => {
    // An installed copy without either command line bundle: only the fast path can render.
    const installed = installedCopy();
    for (const f of ['opm.cjs', 'opm-short.cjs']) rmSync(path.join(installed, 'dist', f));
    const opm = path.join(installed, 'bin', 'opm.js');
    const run = (args: string[]): ReturnType<typeof spawnSync> =>
      spawnSync(opm, args, { encoding: 'utf8', env: asProgram() });
    const clean = run(['render', good, '-o', 'yaml']);
    expect(clean.stderr).toBe('');
    expect(clean.status).toBe(0);
    expect(clean.stdout).toContain('schema: olm.bundle');
    // A warning, an error, another flag: the fast path declines, and the missing command line says so.
    for (const args of [
      ['render', path.resolve('testdata/render/good/duplicate-keys')],
      ['render', bad('no-csv')],
      ['render', good, '--migrate'],
    ]) {
      const r = run(args);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr, args.join(' ')).toContain('is missing: build opm-ts');
    }
    // --debug compiles the command line afresh for its stack traces: never the fast path.
    expect(run(['render', good, '--debug']).stderr).toContain('is missing: build opm-ts');
  });
});
