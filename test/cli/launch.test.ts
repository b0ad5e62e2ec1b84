// needs-build: it runs bin/opm.js over dist/.
// The launcher (bin/opm.js, then src/cli/launch.ts over dist/): the same V8 flags however it is
// started; each bundle compiled with the build's code cache, or with one the run leaves in the cache
// folder when Node.js's V8 flags differ.
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
  renderBundleFile,
  runsShort,
  shippedCacheFile,
  shippedStampFile,
  shortBundleFile,
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

// The build's stamp: Node.js version and architecture (and the V8 flags of Node.js's command line or
// NODE_OPTIONS, none in a build).
const stamp = readFileSync(path.resolve('dist/opm.cjs.cache.stamp'), 'utf8').trim();

/** The V8 flags bin/opm.js sets at every start, from its `V8_FLAGS` line. */
const launcherFlags = /^const V8_FLAGS = '([^']*)';$/m.exec(readFileSync(bin, 'utf8'))?.[1] ?? 'missing';

function run(nodeFlags: string[], args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [...nodeFlags, bin, ...args], {
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

  it('is plain JavaScript, and every way of starting it gives V8 the same flags and no environment', () => {
    const text = readFileSync(bin, 'utf8');
    expect(text.split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(text).not.toMatch(/MALLOC_TRIM_THRESHOLD_|NODE_EXTRA_CA_CERTS|exec node/);
    expect(launcherFlags).not.toBe('missing');
    // V8's cache tag is a hash of its version and flags (those set at run time included): each start
    // reports it when it ends, through a module NODE_OPTIONS has every start require first.
    const probe = path.join(cacheDir, 'probe.cjs');
    writeFileSync(
      probe,
      "process.on('exit', () => require('node:fs').writeSync(2, `tag ${require('node:v8').cachedDataVersionTag()}\\n`));\n",
    );
    const tagOf = (cmd: string, args: string[]): string => {
      const r = spawnSync(cmd, args, {
        encoding: 'utf8',
        env: { ...asProgram(), NODE_OPTIONS: `--require ${probe}` },
      });
      expect(r.status, `${cmd} ${args.join(' ')}: ${r.stderr}`).toBe(0);
      return /^tag (\d+)$/m.exec(r.stderr)?.[1] ?? `no tag in ${r.stderr}`;
    };
    // npm's link (a symbolic link named `opm`), `node bin/opm.js`, and a shim that runs
    // `node <path>/bin/opm.js "$@"` as npm's Windows shims do.
    const links = path.join(cacheDir, 'links');
    mkdirSync(links);
    symlinkSync(bin, path.join(links, 'opm'));
    const shim = path.join(links, 'opm-shim');
    writeFileSync(shim, `#!/bin/sh\nexec node "${bin}" "$@"\n`, { mode: 0o755 });
    const expected = spawnSync(
      process.execPath,
      [
        '-e',
        `require('node:v8').setFlagsFromString('${launcherFlags}'); console.log(require('node:v8').cachedDataVersionTag())`,
      ],
      { encoding: 'utf8' },
    ).stdout.trim();
    const plain = spawnSync(process.execPath, ['-p', "require('node:v8').cachedDataVersionTag()"], {
      encoding: 'utf8',
    }).stdout.trim();
    if (launcherFlags !== '') expect(expected).not.toBe(plain);
    for (const args of [
      ['version'],
      ['render', catalog, '-o', 'json'],
      ['validate', catalog],
      ['serve', '--help'],
    ]) {
      const tags = [
        tagOf(path.join(links, 'opm'), args),
        tagOf(process.execPath, [bin, ...args]),
        tagOf(shim, args),
      ];
      expect(tags, args.join(' ')).toEqual([expected, expected, expected]);
    }
    // Run as a program, Node.js is started with the script alone: a stand-in `node` first in PATH
    // prints what it was given, and no malloc tuning is put in its environment.
    const fake = path.join(cacheDir, 'fake-node');
    mkdirSync(fake);
    writeFileSync(path.join(fake, 'node'), '#!/bin/sh\necho "${MALLOC_TRIM_THRESHOLD_-unset}" "$@"\n', {
      mode: 0o755,
    });
    for (const args of [['serve', catalog], ['validate', catalog], ['render', catalog], ['version']])
      expect(
        spawnSync(bin, args, {
          encoding: 'utf8',
          env: { PATH: [fake, process.env.PATH ?? ''].join(path.delimiter) },
        }).stdout.trim(),
      ).toBe(`unset ${bin} ${args.join(' ')}`);
  });

  it("has one code cache per bundle, made under the launcher's V8 flags, and every start uses it", () => {
    // V8 takes each cache under the flags bin/opm.js sets, and refuses it under V8's defaults (which
    // shows the flags are the ones the cache was made with).
    const accepted = (flags: string, bundle: string): string =>
      spawnSync(
        process.execPath,
        [
          '-e',
          `require('node:v8').setFlagsFromString(${JSON.stringify(flags)});
           const l = require(${JSON.stringify(path.resolve('dist/launch.cjs'))});
           const file = ${JSON.stringify(path.resolve('dist', bundle))};
           const cache = require('node:fs').readFileSync(l.shippedCacheFile(file));
           const compile = file.endsWith('opm-render-bundle.cjs') ? l.compileRenderBundle : l.compileCli;
           process.stdout.write(String(compile(file, cache).cacheAccepted));`,
        ],
        { encoding: 'utf8' },
      ).stdout;
    for (const bundle of ['opm.cjs', 'opm-short.cjs', 'opm-render-bundle.cjs']) {
      expect(readFileSync(shippedStampFile(path.resolve('dist', bundle)), 'utf8').trim()).toBe(
        `${process.version} ${process.arch}`,
      );
      expect(accepted(launcherFlags, bundle), bundle).toBe('true');
      if (launcherFlags !== '') expect(accepted('', bundle), bundle).toBe('false');
    }
    // The build writes no other cache.
    expect(
      readdirSync(path.resolve('dist'))
        .filter((n) => n.endsWith('.cache'))
        .sort(),
    ).toEqual(['opm-render-bundle.cjs.cache', 'opm-short.cjs.cache', 'opm.cjs.cache']);
    // As a program and through `node`, the same bytes, and no start leaves a cache of its own.
    const bundleDir = path.resolve('testdata/render/good/properties-and-dependencies');
    for (const args of [
      ['render', catalog, '-o', 'json'],
      ['render', bundleDir, '-o', 'yaml'],
      ['validate', catalog],
      ['--help'],
      ['serve', '--help'],
    ]) {
      const a = spawnSync(bin, args, { encoding: 'utf8', env: asProgram() });
      const b = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: asProgram() });
      expect(a.stderr, args.join(' ')).toBe('');
      expect(a.status, args.join(' ')).toBe(0);
      expect({ status: b.status, stdout: b.stdout, stderr: b.stderr }, args.join(' ')).toEqual({
        status: a.status,
        stdout: a.stdout,
        stderr: a.stderr,
      });
    }
    expect(ownCaches()).toEqual([]);
  });

  it('without shipped caches, leaves one of its own per bundle it loads, and reads it next time', () => {
    const installed = installedCopy();
    for (const n of readdirSync(path.join(installed, 'dist')))
      if (n.endsWith('.cache') || n.endsWith('.cache.stamp')) rmSync(path.join(installed, 'dist', n));
    const opm = path.join(installed, 'bin', 'opm.js');
    const asRun = (args: string[]): string => {
      const r = spawnSync(opm, args, { encoding: 'utf8', env: asProgram() });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      return r.stdout;
    };
    // The short bundle, then the whole one; the render of a bundle directory alone keeps none.
    expect(asRun(['--help'])).toContain('Usage:');
    expect(ownCaches()).toHaveLength(1);
    asRun(['validate', catalog]);
    expect(ownCaches()).toHaveLength(2);
    asRun(['render', path.resolve('testdata/render/good/properties-and-dependencies')]);
    expect(ownCaches()).toHaveLength(2);
    const written = ownCaches().map((f) => statSync(f).mtimeMs);
    asRun(['init', 'p']);
    asRun(['validate', catalog]);
    // Rewritten only when V8 refuses one: unchanged files are caches that were accepted.
    expect(ownCaches().map((f) => statSync(f).mtimeMs)).toEqual(written);
  });

  it('ends a render of bundle directories as any run ends, without process.exit', () => {
    // 'beforeExit' is emitted when the event loop empties, never on process.exit().
    const probe = path.join(cacheDir, 'before-exit.cjs');
    writeFileSync(probe, "process.on('beforeExit', () => process.stderr.write('before exit\\n'));\n");
    const bundleDir = path.resolve('testdata/render/good/properties-and-dependencies');
    const r = spawnSync(bin, ['render', bundleDir, '-o', 'json'], {
      encoding: 'utf8',
      env: { ...asProgram(), NODE_OPTIONS: `--require ${probe}` },
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('"schema": "olm.bundle"');
    expect(r.stderr).toBe('before exit\n');
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

  it('is what the launcher loads for the commands that need the least code', () => {
    for (const args of [[], ['--help'], ['-h'], ['help', 'validate'], ['render', 'x'], ['init', 'p']])
      expect(runsShort(args), args.join(' ')).toBe(true);
    for (const args of [
      ['generate', 'dockerfile', 'x'],
      ['version', '--help'],
      ['completion', 'fish'],
    ])
      expect(runsShort(args), args.join(' ')).toBe(true);
    // Other commands and options before the command: the whole bundle.
    for (const args of [['validate', 'x'], ['serve', 'x'], ['alpha'], ['--quiet', 'render', 'x'], ['diff']])
      expect(runsShort(args), args.join(' ')).toBe(false);
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

  it('has its cache, which the launcher uses for each of its commands, generate dockerfile included', () => {
    expect(readFileSync(shippedStampFile(short), 'utf8').trim()).toBe(`${process.version} ${process.arch}`);
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

  it('has a code cache of its own, and is small', () => {
    expect(readFileSync(shippedStampFile(fast), 'utf8').trim()).toBe(`${process.version} ${process.arch}`);
    expect(statSync(shippedCacheFile(fast)).size).toBeGreaterThan(0);
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
  /** bin/opm.js of an installed copy without the fast path's bundle: the command line renders. */
  const withoutFastPath = (): string => {
    const installed = installedCopy();
    rmSync(path.join(installed, 'dist', 'opm-render-bundle.cjs'));
    return path.join(installed, 'bin', 'opm.js');
  };

  it('answers as the whole bundle does, run as a program, failures and warnings included', () => {
    const other = withoutFastPath();
    const program = (opm: string, args: string[]): ReturnType<typeof spawnSync> =>
      spawnSync(process.execPath, [opm, ...args], {
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
      const a = program(bin, args);
      const b = program(other, args);
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
    const other = withoutFastPath();
    const shell = (opm: string, limit: string, to: string): { status: number | null; stderr: string } => {
      const r = spawnSync(
        'bash',
        [
          '-c',
          `trap '' XFSZ; ${limit} exec "$0" "$@" > ${to}`,
          process.execPath,
          opm,
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
      const a = shell(bin, limit, to);
      const written = to === out ? readFileSync(out) : undefined;
      const b = shell(other, limit, to);
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
