// needs-build: it packs the package (dist/ included) and installs the tarball in consumers of its own.
// The package as its users get it: `npm pack`, installed in a folder of its own with nothing else
// (its dependencies come from the npm cache that installing this project filled, by the versions
// of package-lock.json, offline), then used from an ES module, from CommonJS, from TypeScript
// under --strict without @types/node, and by the README's library examples, each run as written.
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlainRegistry, type RegistryProcess } from '../registry/fixture.js';
import { CATALOG_LABELS, buildImage, pushImage } from '../registry/image-builder.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CATALOG = path.join(root, 'testdata/examples/catalog');
const README_IMAGE = 'quay.io/example/catalog:v1';

let tmp: string;
let tarball: string;
/** The consumer folder: the tarball installed, `catalog/` beside it. */
let consumer: string;
let installLog: string;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Run `cmd` in `cwd` without blocking the event loop (a registry may be answering meanwhile). */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (status) =>
      resolve({
        status,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}

function mustRun(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (${String(r.status)}):\n${r.stdout}\n${r.stderr}`);
  return `${r.stdout}${r.stderr}`;
}

/** What the command line prints for `args` over the example catalog. */
function opm(...args: string[]): string {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/opm.js'), ...args], {
    cwd: root,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`opm ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/**
 * A lock file for a consumer of the tarball: the tarball, and the project's locked entries of
 * everything it depends on (those not marked dev), so that `npm ci --offline` installs exactly
 * those versions from the npm cache and asks no registry.
 */
function consumerLock(name: string, tgz: string): object {
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; dependencies?: Record<string, string> }>;
  };
  const own = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    version: string;
    dependencies: Record<string, string>;
    bin: Record<string, string>;
    engines: Record<string, string>;
    license: string;
  };
  const packages: Record<string, object> = {
    '': { name, dependencies: { 'opm-ts': `file:${tgz}` } },
    'node_modules/opm-ts': {
      version: own.version,
      resolved: `file:${tgz}`,
      license: own.license,
      dependencies: own.dependencies,
      bin: own.bin,
      engines: own.engines,
    },
  };
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key !== '' && entry.dev !== true) packages[key] = entry;
  }
  return { name, lockfileVersion: 3, requires: true, packages };
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-package-'));
  // dist/ is built (the project's set-up); --ignore-scripts keeps prepack from building it again.
  const packed = JSON.parse(
    mustRun('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], root).replace(
      /^[^[]*/,
      '',
    ),
  ) as { filename: string }[];
  tarball = path.join(tmp, packed[0]?.filename ?? '');
  consumer = path.join(tmp, 'consumer');
  mkdirSync(consumer);
  const spec = `file:${path.relative(consumer, tarball)}`;
  writeFileSync(
    path.join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { 'opm-ts': spec } }),
  );
  writeFileSync(
    path.join(consumer, 'package-lock.json'),
    JSON.stringify(consumerLock('consumer', path.relative(consumer, tarball))),
  );
  const r = await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], consumer);
  installLog = r.stdout + r.stderr;
  if (r.status !== 0) {
    throw new Error(
      `installing the tarball offline failed; its dependencies are taken from the npm cache that \`npm ci\` of this project fills:\n${installLog}`,
    );
  }
  cpSync(CATALOG, path.join(consumer, 'catalog'), { recursive: true });
});

afterAll(() => {
  // Unassigned when beforeAll failed before reaching it.
  if ((tmp as string | undefined) !== undefined) rmSync(tmp, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('runs no script when installed, and installs nothing but itself and its dependencies', () => {
    const manifest = JSON.parse(
      readFileSync(path.join(consumer, 'node_modules/opm-ts/package.json'), 'utf8'),
    ) as { scripts?: Record<string, string> };
    const installTime = ['preinstall', 'install', 'postinstall', 'prepare'];
    expect(Object.keys(manifest.scripts ?? {}).filter((s) => installTime.includes(s))).toEqual([]);
    // npm names the packages whose install scripts it did not run; opm-ts must not be one (a
    // dependency's may be).
    const unrun = installLog.split('\n').filter((l) => /install-scripts|allowScripts/.test(l));
    expect(unrun.filter((l) => /opm-ts@|\(prepare/.test(l))).toEqual([]);
    expect(installLog).not.toMatch(/opm-ts@[^\n]*prepare/);
    // Only what a dependency may bring: @types/node. The consumer's type check below still proves
    // our declarations need no Node.js types: it includes no types package (types: []), and a
    // `node:` import in our .d.ts files would not resolve.
    const types = existsSync(path.join(consumer, 'node_modules/@types'))
      ? readdirSync(path.join(consumer, 'node_modules/@types'))
      : [];
    expect(types.filter((t) => t !== 'node')).toEqual([]);
    expect(existsSync(path.join(consumer, 'node_modules/typescript'))).toBe(false);
    expect(existsSync(path.join(consumer, 'node_modules/opm-ts/dist/index.js'))).toBe(true);
  });

  it('has no top-level await anywhere in its modules, which require(esm) refuses', () => {
    // Found by loading, not by reading: require() of the whole module graph fails on one.
    const dist = path.join(consumer, 'node_modules/opm-ts/dist');
    const modules = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    expect(modules.length).toBeGreaterThan(50);
    const script = `for (const m of ${JSON.stringify(modules)}) require(require('node:path').join(${JSON.stringify(dist)}, m));`;
    const r = spawnSync(process.execPath, ['-e', script], { cwd: consumer, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('is imported from an ES module and required from CommonJS alike, the same API either way', async () => {
    writeFileSync(
      path.join(consumer, 'esm.mjs'),
      "import * as opm from 'opm-ts';\nconsole.log(JSON.stringify(Object.keys(opm).sort()));\n",
    );
    writeFileSync(
      path.join(consumer, 'cjs.cjs'),
      "const opm = require('opm-ts');\nconsole.log(JSON.stringify(Object.keys(opm).filter((k) => k !== '__esModule' && k !== 'module.exports').sort()));\n",
    );
    const esm = await run(process.execPath, ['esm.mjs'], consumer);
    const cjs = await run(process.execPath, ['cjs.cjs'], consumer);
    expect(esm.stderr).toBe('');
    expect(cjs.stderr).toBe('');
    const names = JSON.parse(esm.stdout) as string[];
    expect(names).toEqual(
      expect.arrayContaining(['render', 'validateCatalog', 'writeJson', 'yamlChunks', 'OpmError']),
    );
    expect(JSON.parse(cjs.stdout)).toEqual(names);
  });

  it('writes from CommonJS what the command line prints', async () => {
    writeFileSync(
      path.join(consumer, 'render.cjs'),
      "const { render, writeJson } = require('opm-ts');\nrender({ refs: ['catalog'] }).then((cfg) => writeJson(cfg, process.stdout));\n",
    );
    const r = await run(process.execPath, ['render.cjs'], consumer);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(opm('render', CATALOG, '-o', 'json'));
  });

  it('type-checks under tsc --strict with nothing else installed, and refuses misuse at compile time', async () => {
    const dir = path.join(consumer, 'typed');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          noEmit: true,
          // No @types/node, no library checks skipped: the declarations stand on their own.
          types: [],
          skipLibCheck: false,
        },
        files: ['use.ts'],
      }),
    );
    writeFileSync(
      path.join(dir, 'use.ts'),
      [
        "import { createImageSource, emptyConfig, jsonChunks, render, validateCatalog, writeYaml, type Counts, type DeclarativeConfig, type ValidateResult, type WritableLike } from 'opm-ts';",
        'export async function use(out: WritableLike): Promise<Counts> {',
        "  const cfg: DeclarativeConfig = await render({ refs: ['catalog'] });",
        '  await writeYaml(cfg, out);',
        "  const text: string = [...jsonChunks(emptyConfig())].join('');",
        "  const r: ValidateResult = await validateCatalog('catalog', { strict: text === '' });",
        "  createImageSource({ platform: 'linux/amd64', env: { HOME: '/root' } });",
        '  // @ts-expect-error a stream is required',
        '  await writeYaml(cfg);',
        '  // @ts-expect-error refs is a list',
        "  await render({ refs: 'catalog' });",
        '  return r.counts;',
        '}',
        '',
      ].join('\n'),
    );
    const r = await run(
      process.execPath,
      [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', dir],
      consumer,
    );
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

describe("the README's library examples", () => {
  let registry: RegistryProcess;
  let blocks: string[];

  beforeAll(async () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const start = readme.indexOf('\n## Using opm-ts as a library\n');
    const end = readme.indexOf('\n## ', start + 1);
    expect(start).toBeGreaterThan(0);
    blocks = [...readme.slice(start, end).matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
    // The image of the pulling example: the example catalog, in a registry on 127.0.0.1.
    registry = await startPlainRegistry(tmp, 'readme');
    const image = await buildImage({ layers: [{ dir: CATALOG, prefix: 'configs' }], labels: CATALOG_LABELS });
    await pushImage(image, { url: registry.url, repo: 'example/catalog', tag: 'v1' });
  });

  afterAll(async () => {
    // Unassigned when beforeAll failed before reaching it.
    await (registry as RegistryProcess | undefined)?.stop();
  });

  /** Run example `i` in the consumer folder (as .cjs when it requires, else as an ES module). */
  async function example(i: number, env: NodeJS.ProcessEnv = {}, code = blocks[i] ?? ''): Promise<Run> {
    const file = path.join(consumer, `readme-${i}.${code.includes('require(') ? 'cjs' : 'mjs'}`);
    writeFileSync(file, code);
    return run(process.execPath, [file], consumer, env);
  }

  it('are five, each using the package by its name', () => {
    expect(blocks).toHaveLength(5);
    for (const b of blocks) expect(b).toMatch(/from 'opm-ts'|require\('opm-ts'\)/);
  });

  it('load and validate a catalog, with its counts and the error of a missing one', async () => {
    const r = await example(0);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const counts = (JSON.parse(opm('validate', '-o', 'json', CATALOG)) as { counts: object }).counts;
    expect(r.stdout).toBe(
      [
        '1 package(s), 3 bundle(s), 0 finding(s)',
        `valid { errors: ${String((counts as { errors: number }).errors)}, warnings: 0 }`,
        'error: stat no-such-catalog: no such file or directory',
        '',
      ].join('\n'),
    );
  });

  it('render to stdout and to a file byte for byte as the command line does', async () => {
    rmSync(path.join(consumer, 'catalog.yaml'), { force: true });
    const r = await example(1);
    expect(r.status).toBe(0);
    const yaml = opm('render', CATALOG, '-o', 'yaml');
    expect(r.stdout).toBe(opm('render', CATALOG, '-o', 'json'));
    expect(readFileSync(path.join(consumer, 'catalog.yaml'), 'utf8')).toBe(yaml);
    expect(r.stderr).toBe(`${yaml.length} characters of YAML\n`);
  });

  it('filter, diff and list images as the commands do', async () => {
    const r = await example(2);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('dropped entries example-operator.v0.1.0 (--heads-only)');
    expect(r.stdout).toContain("[ 'example-operator.v0.1.0', 'example-operator.v0.3.0' ]\ntrue\n");
    for (const line of opm('list', 'images', CATALOG, '--mapping', 'mirror.example.com/ocp')
      .trim()
      .split('\n')) {
      expect(r.stdout).toContain(`'${line}'`);
    }
  });

  it('pull an image with options and render it, as `opm render <image>` does', async () => {
    const ref = `${registry.host}/example/catalog:v1`;
    // A registry on 127.0.0.1 speaks plain HTTP: registries.conf says so, as a user would.
    const conf = path.join(tmp, 'registries.conf');
    writeFileSync(conf, `[[registry]]\nlocation = "${registry.host}"\ninsecure = true\n`);
    const home = path.join(tmp, 'home');
    const tmpdir = path.join(tmp, 'tmpdir');
    mkdirSync(home, { recursive: true });
    mkdirSync(tmpdir, { recursive: true });
    const code = (blocks[3] ?? '').replaceAll(README_IMAGE, ref);
    expect(code).not.toBe(blocks[3]);
    const r = await example(3, { CONTAINERS_REGISTRIES_CONF: conf, HOME: home, TMPDIR: tmpdir }, code);
    expect(r.status).toBe(0);
    const [first, ...rest] = r.stdout.split('\n');
    expect(first).toMatch(/^sha256:[0-9a-f]{64} \{/);
    expect(r.stdout).toContain("'operators.operatorframework.io.index.configs.v1': '/configs'");
    expect(r.stdout.endsWith(opm('render', CATALOG, '-o', 'yaml'))).toBe(true);
    expect(rest.length).toBeGreaterThan(10);
    // The cache went where the example put it, and the unpacked image was removed.
    expect(readdirSync(path.join(tmpdir, 'opm-ts-cache')).length).toBeGreaterThan(0);
    expect(readdirSync(tmpdir).filter((f) => f.startsWith('opm-unpack-'))).toEqual([]);
  });

  it('run from CommonJS', async () => {
    const r = await example(4);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('true { errors: 0, warnings: 0 }\n');
  });
});
