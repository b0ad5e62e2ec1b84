import { mkdtemp, readFile, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyConfig, type DeclarativeConfig } from './types.js';
import { writeCatalogDir } from './write-fs.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'opm-write-fs-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every file under `root`, relative, sorted. */
async function tree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .sort();
}

function sample(): DeclarativeConfig {
  const cfg = emptyConfig();
  cfg.packages.push({ schema: 'olm.package', name: 'b', defaultChannel: 'stable' });
  cfg.packages.push({ schema: 'olm.package', name: 'a', defaultChannel: '' });
  cfg.channels.push({ schema: 'olm.channel', name: 'stable', package: 'b', entries: [{ name: 'b.v1' }] });
  cfg.others.push({ schema: 'x.global', package: '', name: '', blob: { schema: 'x.global' } });
  return cfg;
}

describe('writeCatalogDir package folders (Go filepath.IsLocal)', () => {
  const onePackage = (name: string): DeclarativeConfig => {
    const cfg = emptyConfig();
    cfg.packages.push({ schema: 'olm.package', name, defaultChannel: '' });
    return cfg;
  };
  it('accepts package names that stay inside the root', async () => {
    for (const p of ['a/b', 'a/../b', 'a/.']) {
      const root = path.join(dir, 'ok');
      await writeCatalogDir(onePackage(p), root, 'yaml');
      expect(await tree(root), p).toEqual([path.join(path.normalize(p), 'catalog.yaml')]);
      await rm(root, { recursive: true });
    }
  });
  it('refuses absolute and escaping package names, writing nothing', async () => {
    for (const p of ['/a', '..', '../a', 'a/../..', './..']) {
      await expect(writeCatalogDir(onePackage(p), path.join(dir, 'out'), 'yaml'), p).rejects.toThrow(
        `invalid package name "${p}": must be a single local path element`,
      );
      expect(await readdir(dir), p).toEqual([]);
    }
  });
});

describe('writeCatalogDir', () => {
  it('writes one catalog file per package and one for package-less blobs', async () => {
    const root = path.join(dir, 'out', 'catalog');
    await writeCatalogDir(sample(), root, 'yaml');
    expect(await tree(root)).toEqual(['a/catalog.yaml', 'b/catalog.yaml', 'catalog.yaml']);
    expect(await readFile(path.join(root, 'b', 'catalog.yaml'), 'utf8')).toBe(
      '---\ndefaultChannel: stable\nname: b\nschema: olm.package\n' +
        '---\nentries:\n- name: b.v1\nname: stable\npackage: b\nschema: olm.channel\n',
    );
    expect(await readFile(path.join(root, 'catalog.yaml'), 'utf8')).toBe('---\nschema: x.global\n');
  });

  it('writes JSON files with the .json extension', async () => {
    await writeCatalogDir(sample(), dir, 'json');
    expect(await tree(dir)).toEqual(['a/catalog.json', 'b/catalog.json', 'catalog.json']);
    expect(await readFile(path.join(dir, 'a', 'catalog.json'), 'utf8')).toBe(
      '{\n    "schema": "olm.package",\n    "name": "a",\n    "defaultChannel": ""\n}\n',
    );
  });

  it('replaces existing catalog files', async () => {
    await mkdir(path.join(dir, 'a'));
    await writeFile(path.join(dir, 'a', 'catalog.json'), 'old');
    await writeCatalogDir(sample(), dir, 'json');
    expect(await readFile(path.join(dir, 'a', 'catalog.json'), 'utf8')).toContain('"name": "a"');
  });

  it('refuses a package name that is not a local path, writing nothing', async () => {
    const cfg = sample();
    cfg.packages.push({ schema: 'olm.package', name: '../escape', defaultChannel: '' });
    const root = path.join(dir, 'out');
    await expect(writeCatalogDir(cfg, root, 'json')).rejects.toThrow(
      'invalid package name "../escape": must be a single local path element',
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it('leaves no partial output when a blob cannot be written', async () => {
    const cfg = sample();
    // z sorts after a and b: their files are complete when the YAML step refuses this one.
    cfg.packages.push({ schema: 'olm.package', name: 'z', defaultChannel: 'bad\u007f' });
    const root = path.join(dir, 'out');
    await expect(writeCatalogDir(cfg, root, 'yaml')).rejects.toThrow(
      /^write to buffer for ".*z\/catalog\.yaml": yaml: control characters are not allowed$/,
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it('keeps the existing files of a directory it did not create when it fails', async () => {
    await writeFile(path.join(dir, 'keep.txt'), 'x');
    const cfg = sample();
    cfg.packages.push({ schema: 'olm.package', name: 'z', defaultChannel: 'bad\u007f' });
    await expect(writeCatalogDir(cfg, dir, 'yaml')).rejects.toThrow('control characters');
    expect(await tree(dir)).toEqual(['keep.txt']);
  });
});
