// The library's exported functions called as plain JavaScript may call them: wrong arguments are a
// TypeError naming the argument before anything happens, the writers write to the stream they are
// given (or say they need one), and validateCatalog returns the counts the command line prints.
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { afterAll, describe, expect, it } from 'vitest';
import * as lib from '../../src/index.js';
import { OpmError, type WritableLike } from '../../src/index.js';

const CATALOG = path.resolve('testdata/examples/catalog');
const INVALID = path.resolve('testdata/validate');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-library-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A library function as JavaScript sees it: anything goes in. */
const untyped = <F>(f: F): ((...args: unknown[]) => unknown) => f as (...args: unknown[]) => unknown;

async function collect(write: (s: PassThrough) => Promise<void>): Promise<string> {
  const s = new PassThrough();
  const chunks: Buffer[] = [];
  s.on('data', (c: Buffer) => chunks.push(c));
  await write(s);
  s.end();
  await finished(s);
  return Buffer.concat(chunks).toString('utf8');
}

// Node's streams are WritableLike as they are (checked by the compiler).
const sinks: WritableLike[] = [process.stdout, process.stderr, new PassThrough()];

describe('writers', () => {
  it('write to the stream what the chunk generators give, as a whole', async () => {
    const cfg = await lib.render({ refs: [CATALOG] });
    const yaml = [...lib.yamlChunks(cfg)].join('');
    const json = [...lib.jsonChunks(cfg)].join('');
    expect(yaml.startsWith('---\ndefaultChannel: stable\n')).toBe(true);
    expect(json.startsWith('{\n    "schema": "olm.package",')).toBe(true);
    expect(await collect((s) => lib.writeYaml(cfg, s))).toBe(yaml);
    expect(await collect((s) => lib.writeJson(cfg, s))).toBe(json);
    expect(sinks).toHaveLength(3);
  });

  it('write to a file stream and wait for back-pressure', async () => {
    const cfg = await lib.render({ refs: [CATALOG] });
    // Many copies of the catalog: more than a stream buffers before asking to wait.
    const big = lib.mergeConfigs(Array.from({ length: 300 }, () => cfg));
    const file = path.join(tmp, 'big.yaml');
    const out = createWriteStream(file, { highWaterMark: 1024 });
    let drains = 0;
    out.on('drain', () => drains++);
    await lib.writeYaml(big, out);
    out.end();
    await finished(out);
    expect(drains).toBeGreaterThan(0);
    expect(readFileSync(file, 'utf8')).toBe([...lib.yamlChunks(big)].join(''));
  });

  it('reject with the error of a stream that fails, and write nothing after it', async () => {
    const cfg = await lib.render({ refs: [CATALOG] });
    let calls = 0;
    const failing = new Writable({
      highWaterMark: 1,
      write(_chunk, _enc, done) {
        calls++;
        done(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
      },
    });
    await expect(lib.writeJson(cfg, failing)).rejects.toThrow('no space left on device');
    expect(calls).toBe(1);
  });

  it('say they need a stream when given none, or given a LoadResult for a config', async () => {
    const cfg = await lib.render({ refs: [CATALOG] });
    await expect(untyped(lib.writeYaml)(cfg)).rejects.toThrow(
      new TypeError(
        'writeYaml(cfg, stream) must be a writable stream such as process.stdout or fs.createWriteStream(path) (for the text itself, use yamlChunks(cfg))',
      ),
    );
    await expect(untyped(lib.writeJson)(cfg, 'out.json')).rejects.toThrow(TypeError);
    expect(() => untyped(lib.yamlChunks)(cfg, process.stdout)).toThrow(
      'yamlChunks(cfg, options) takes no stream: to write to one, use writeYaml(cfg, stream)',
    );
    const loaded = await lib.loadCatalogDir(CATALOG);
    await expect(untyped(lib.writeJson)(loaded, process.stdout)).rejects.toThrow(
      "writeJson(cfg) must be a DeclarativeConfig: pass the `cfg` of loadCatalogDir's result, not the result",
    );
  });
});

describe('validateCatalog', () => {
  it('returns the counts the command line prints', async () => {
    const ok = await lib.validateCatalog(CATALOG);
    expect(ok).toMatchObject({ passed: true, counts: { errors: 0, warnings: 0 }, findings: [] });
    const bad = await lib.validateCatalog(path.join(INVALID, 'multiple-heads', 'catalog'));
    expect(bad.passed).toBe(false);
    const errors = bad.findings.filter((f) => f.severity === 'error').length;
    expect(errors).toBeGreaterThan(0);
    expect(bad.counts).toEqual({ errors, warnings: bad.findings.length - errors });
  });

  it('takes severities as a Map or a plain object, and refuses unknown rules and levels', async () => {
    const dir = path.join(INVALID, 'multiple-heads', 'catalog');
    const rules = (await lib.validateCatalog(dir)).findings.map((f) => f.rule);
    const rule = rules[0] as lib.RuleId;
    const asMap = await lib.validateCatalog(dir, { severities: new Map([[rule, 'warning']]) });
    const asObject = await untyped(lib.validateCatalog)(dir, { severities: { [rule]: 'warning' } });
    expect(asObject).toEqual(asMap);
    await expect(
      untyped(lib.validateCatalog)(dir, { severities: { 'no.such-rule': 'off' } }),
    ).rejects.toThrow(
      'validateCatalog(dir, options).severities: unknown rule id "no.such-rule" (RULE_IDS lists them)',
    );
    await expect(untyped(lib.validateCatalog)(dir, { severities: { [rule]: 'fatal' } })).rejects.toThrow(
      `validateCatalog(dir, options).severities: ${rule} must be 'error', 'warning' or 'off', not "fatal"`,
    );
  });

  it('throws OpmError for a missing directory, TypeError for a directory that is not a string', async () => {
    await expect(lib.validateCatalog(path.join(tmp, 'none'))).rejects.toBeInstanceOf(OpmError);
    await expect(untyped(lib.validateCatalog)(42)).rejects.toThrow(
      new TypeError('validateCatalog(dir) must be a string, not a number (the catalog directory)'),
    );
    await expect(untyped(lib.validateCatalog)(CATALOG, { strict: 'yes' })).rejects.toThrow(
      'validateCatalog(dir, options).strict must be a boolean, not a string',
    );
  });
});

describe('arguments of the other exported functions', () => {
  const cases: [string, () => unknown, string][] = [
    [
      'render with one ref as a string',
      () => untyped(lib.render)({ refs: CATALOG }),
      "render(options).refs must be an array of strings, not a string (for one ref, write refs: ['<ref>'])",
    ],
    [
      'render without options',
      () => untyped(lib.render)(),
      'render(options) must be an object, not undefined',
    ],
    [
      'render with an image source that cannot pull',
      () => untyped(lib.render)({ refs: [CATALOG], imageSource: {} }),
      'render(options).imageSource must be an ImageSource, as createImageSource() returns',
    ],
    [
      'loadCatalogDir without a directory',
      () => untyped(lib.loadCatalogDir)(),
      'loadCatalogDir(dir) must be a string, not undefined (the catalog directory)',
    ],
    [
      'filter with a package name for a list',
      () => untyped(lib.filter)({ ref: CATALOG, packages: 'etcd' }),
      'filter(options).packages must be an array of strings, not a string (package names)',
    ],
    [
      'diff without its second reference',
      () => untyped(lib.diff)({ oldRef: CATALOG }),
      'diff(options).newRef must be a string, not undefined (a catalog reference)',
    ],
    [
      'listImages with a mapping that is not text',
      () => untyped(lib.listImages)({ ref: CATALOG, mapping: 1 }),
      'listImages(options).mapping must be a string, not a number',
    ],
    [
      'compose without a catalog file',
      () => untyped(lib.compose)({}),
      'compose(options).catalogFile must be a string, not undefined (the catalog file to compose)',
    ],
    [
      'compose with no reference at a time',
      () => untyped(lib.compose)({ catalogFile: 'catalog.yaml', concurrency: 0 }),
      'compose(options).concurrency must be a whole number of at least 1, not 0',
    ],
    [
      'migrate to an unknown format',
      () => untyped(lib.migrate)({ ref: CATALOG, outputDir: path.join(tmp, 'm'), format: 'xml' }),
      "migrate(options).format must be 'json' or 'yaml', not \"xml\"",
    ],
    [
      'writeCatalogDir without a root',
      () => untyped(lib.writeCatalogDir)(lib.emptyConfig()),
      'writeCatalogDir(cfg, root) must be a string, not undefined (the directory to write)',
    ],
    [
      'filterCatalog with names for selections',
      () => untyped(lib.filterCatalog)(lib.emptyConfig(), { packages: ['etcd'], headsOnly: false }),
      'filterCatalog(cfg, spec).packages[0] must be a PackageSelection ({ name, channels: [], origin }); to select packages by name, use filter({ ref, packages: [name] })',
    ],
    [
      'diffCatalogs with one catalog',
      () => untyped(lib.diffCatalogs)(lib.emptyConfig()),
      'diffCatalogs(before, after) must be an object, not undefined (a DeclarativeConfig, as render() returns)',
    ],
    [
      'catalogImages of a file name',
      () => untyped(lib.catalogImages)('catalog.yaml'),
      'catalogImages(cfg) must be an object, not a string (a DeclarativeConfig, as render() returns)',
    ],
    [
      'convertToModel of a config without bundles',
      () => untyped(lib.convertToModel)({ packages: [], channels: [], others: [], deprecations: [] }),
      'convertToModel(cfg) must be a DeclarativeConfig: its `bundles` must be an array, not undefined',
    ],
    [
      'writeMermaid of an array',
      () => untyped(lib.writeMermaid)([]),
      'writeMermaid(cfg) must be an object, not an array (a DeclarativeConfig, as render() returns)',
    ],
    [
      'initPackage with an icon path for its bytes',
      () => untyped(lib.initPackage)({ package: 'p', defaultChannel: 'c', icon: 'icon.png' }),
      "initPackage(options).icon must be the icon file's bytes (a Uint8Array, such as fs.readFileSync(path) returns)",
    ],
    [
      'createImageSource with a flag as text',
      () => untyped(lib.createImageSource)({ skipTlsVerify: 'true' }),
      'createImageSource(options).skipTlsVerify must be a boolean, not a string',
    ],
  ];
  cases.push(
    [
      'generateDockerfile without labels',
      () => untyped(lib.generateDockerfile)({ fbcRootDir: CATALOG, baseImage: 'b', builderImage: 'b' }),
      "generateDockerfile(options).extraLabels must be an array of strings, not undefined ('key=value' items; [] for none)",
    ],
    [
      'renderTemplate of a file name for its text',
      () => untyped(lib.renderTemplate)({ text: undefined, label: 'template.yaml' }),
      "renderTemplate(options).text must be the template's text, a string (read the file first)",
    ],
    [
      'mergeConfigs of one config',
      () => untyped(lib.mergeConfigs)(lib.emptyConfig()),
      'mergeConfigs(configs) must be an array of DeclarativeConfigs',
    ],
    ['parseSemver of a number', () => untyped(lib.parseSemver)(1), 'parseSemver(s) must be a string'],
    [
      'generateBundle without a folder',
      () => untyped(lib.generateBundle)({ packageName: 'p' }),
      "generateBundle(options).directory must be a string, not undefined (the bundle's manifests folder)",
    ],
    [
      'buildBundle without a tag',
      () => untyped(lib.buildBundle)({ directory: 'manifests' }),
      "buildBundle(options).tag must be a string, not undefined (the image's tag)",
    ],
    [
      'unpackBundle without an image source',
      () => untyped(lib.unpackBundle)('quay.io/x/y:1', { out: 'dir' }),
      'unpackBundle(options).imageSource must be an object, not undefined (an ImageSource, such as createImageSource() returns)',
    ],
    [
      'validateBundleImage -b none without an image source',
      () => untyped(lib.validateBundleImage)('quay.io/x/y:1', { imageBuilder: 'none' }),
      'validateBundleImage(options).imageSource must be an object, not undefined (an ImageSource, such as createImageSource() returns, for imageBuilder none)',
    ],
    [
      'validateBundleImage with a ref that is no string',
      () => untyped(lib.validateBundleImage)(42),
      'validateBundleImage(ref) must be a string, not a number (an image reference)',
    ],
    [
      'pull with options for a reference',
      () => {
        const images = lib.createImageSource();
        return untyped(images.pull.bind(images))({ ref: 'quay.io/x/y:1' });
      },
      'pull(ref) must be a string, not an object (an image reference)',
    ],
  );
  it.each(cases)('%s is a TypeError saying what to pass', async (_name, call, message) => {
    let thrown: unknown;
    try {
      await call();
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).toBe(message);
  });

  it('createImageSource needs no options, and initPackage takes any Uint8Array for an icon', () => {
    expect(typeof lib.createImageSource().pull).toBe('function');
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>');
    const pkg = lib.initPackage({ package: 'p', defaultChannel: 'stable', icon: svg });
    expect(pkg.icon).toEqual({ base64data: Buffer.from(svg).toString('base64'), mediatype: 'image/svg+xml' });
  });

  it('an empty package name stays the input error the command line shows', () => {
    expect(() => lib.initPackage({ package: '', defaultChannel: 'stable' })).toThrow(OpmError);
  });
});
