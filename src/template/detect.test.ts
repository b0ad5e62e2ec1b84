import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OpmError, UsageError } from '../errors.js';
import { readBundleDirMap } from './bundle-dirs.js';
import { detectTemplateType, templateArgs } from './detect.js';
import { readTemplateDocument } from './input.js';

describe('templateArgs', () => {
  it.each([
    [[], { type: undefined, file: '-' }],
    [['semver'], { type: 'semver', file: '-' }],
    [['my.yaml'], { type: undefined, file: 'my.yaml' }],
    [['basic', 'my.yaml'], { type: 'basic', file: 'my.yaml' }],
    [['substitutes', '-'], { type: 'substitutes', file: '-' }],
  ])('%j', (args, want) => {
    expect(templateArgs(args)).toEqual(want);
  });

  it('error/bad type', () => {
    expect(() => templateArgs(['fancy', 'x'])).toThrow(UsageError);
    expect(() => templateArgs(['fancy', 'x'])).toThrow(
      'invalid template type "fancy", must be one of: [basic semver substitutes]',
    );
  });
});

describe('detectTemplateType', () => {
  const detect = (text: string) => detectTemplateType(readTemplateDocument(text, 't.yaml'));
  it.each([
    ['schema: olm.template.basic\n', 'basic'],
    ['---\nSchema: olm.semver\n', 'semver'],
    ['{"SCHEMA": "olm.template.substitutes"}', 'substitutes'],
    ['# comment\nschema: olm.template.basic\n---\nschema: olm.semver\n', 'basic'],
  ])('%j → %s', (text, type) => {
    expect(detect(text)).toBe(type);
  });

  it('error/unknown schema, at its line', () => {
    try {
      detect('# header\nentries: []\nschema: olm.other\n');
      throw new Error('expected an error');
    } catch (e) {
      if (!(e instanceof OpmError)) throw e;
      expect(e.message).toBe('auto-detecting template type: unknown template schema: olm.other');
      expect(e.at).toEqual({ file: 't.yaml', line: 3 });
    }
  });
});

describe('readBundleDirMap', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'opm-bundle-dirs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const map = async (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text);
    return readBundleDirMap(name, dir);
  };

  it('YAML or JSON; directories relative to the map', async () => {
    const y = await map('m.yaml', 'quay.io/a/b:1.0.0: ./one\n"quay.io/a/b@sha256:00": /abs/two\n');
    expect([...y.dirs]).toEqual([
      ['quay.io/a/b:1.0.0', path.join(dir, 'one')],
      ['quay.io/a/b@sha256:00', '/abs/two'],
    ]);
    const j = await map('m.json', '{"quay.io/a/b:1.0.0": "x/y"}');
    expect(j.dirs.get('quay.io/a/b:1.0.0')).toBe(path.join(dir, 'x/y'));
  });

  it('error/not a map of strings, at the entry', async () => {
    await expect(map('list.yaml', '- a\n')).rejects.toThrow('bundle directory map must be an object');
    const err: unknown = await map('m.yaml', 'a: x\nb: 3\n').catch((e: unknown) => e);
    if (!(err instanceof OpmError)) throw err;
    expect(err.message).toBe('bundle directory for image "b" must be a non-empty string');
    expect(err.at).toEqual({ file: 'm.yaml', line: 2 });
  });
});
