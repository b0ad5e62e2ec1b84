/**
 * The schema files themselves: each compiles, is named by its file (so that editors resolve the
 * references between files beside them), describes every field, and is exported by the package.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSchema, schemaFileNames, schemasDir, validatorOf } from './schema-files.js';

function isObject(u: unknown): u is Record<string, unknown> {
  return typeof u === 'object' && u !== null && !Array.isArray(u);
}

/** JSON pointers of every field (an entry of a `properties` keyword) with no description. */
function undescribed(node: unknown, at: string, out: string[]): void {
  if (Array.isArray(node)) {
    node.forEach((n, i) => undescribed(n, `${at}/${i}`, out));
    return;
  }
  if (!isObject(node)) return;
  for (const [k, v] of Object.entries(node)) {
    if (k === 'properties' && isObject(v)) {
      for (const [field, s] of Object.entries(v)) {
        // Sub-schemas of if/then/else only narrow fields described elsewhere.
        if (!/\/(if|then|else|not)(\/|$)/.test(at) && !(isObject(s) && typeof s.description === 'string')) {
          out.push(`${at}/properties/${field}`);
        }
        undescribed(s, `${at}/properties/${field}`, out);
      }
      continue;
    }
    undescribed(v, `${at}/${k}`, out);
  }
}

const FILES = schemaFileNames();

describe('schemas/', () => {
  it('holds the blob, catalog and template schemas', () => {
    expect(FILES).toEqual(
      expect.arrayContaining([
        'catalog.json',
        'meta.json',
        'olm.bundle.json',
        'olm.channel.json',
        'olm.deprecations.json',
        'olm.package.json',
        'olm.semver.json',
        'olm.template.basic.json',
        'olm.template.substitutes.json',
        'properties.json',
      ]),
    );
  });

  it.each(FILES)('%s compiles, has its file name as $id and a description on every field', (file) => {
    const schema = readSchema(file);
    expect(isObject(schema) ? schema.$id : undefined).toBe(file);
    if (file !== 'properties.json') expect(typeof validatorOf(file)).toBe('function');
    const missing: string[] = [];
    undescribed(schema, '#', missing);
    expect(missing).toEqual([]);
  });

  it('is exported as opm-ts/schemas/<file>', () => {
    const require = createRequire(import.meta.url);
    for (const f of FILES) expect(require.resolve(`opm-ts/schemas/${f}`)).toBe(path.join(schemasDir, f));
  });
});

describe('catalog.json', () => {
  const validate = validatorOf('catalog.json');
  const pkg = { schema: 'olm.package', name: 'foo', defaultChannel: 'stable' };

  it('accepts each kind of blob, and custom blobs with any fields', () => {
    expect(validate(pkg)).toBe(true);
    expect(validate({ schema: 'com.example.custom', package: 'foo', anything: [1, 2] })).toBe(true);
    expect(
      validate({
        schema: 'olm.bundle',
        name: 'foo.v1.0.0',
        package: 'foo',
        image: 'quay.io/example/foo:v1.0.0',
        properties: [{ type: 'olm.package', value: { packageName: 'foo', version: '1.0.0' } }],
        // opm writes an empty name for related images that have none.
        relatedImages: [{ name: '', image: 'quay.io/example/foo:v1.0.0' }],
      }),
    ).toBe(true);
  });

  it('rejects unknown keys, missing required fields and empty names', () => {
    expect(validate({ ...pkg, defaultchannel: 'x' })).toBe(false);
    const { defaultChannel: _, ...noDefault } = pkg;
    expect(validate(noDefault)).toBe(false);
    expect(validate({ ...pkg, name: '' })).toBe(false);
    expect(validate({ schema: 'olm.channel', name: 'stable', package: 'foo', entries: [] })).toBe(false);
    expect(validate({ schema: 'olm.bundle', name: 'foo.v1.0.0', package: 'foo' })).toBe(false);
    expect(validate({ schema: '' })).toBe(false);
  });
});

describe('template schemas', () => {
  it('accept the camelCase and PascalCase spellings opm documents, and nothing else', () => {
    const semver = validatorOf('olm.semver.json');
    expect(semver({ schema: 'olm.semver', stable: { bundles: [{ image: 'quay.io/example/foo:v1' }] } })).toBe(true);
    expect(semver({ Schema: 'olm.semver', Stable: { Bundles: [{ Image: 'quay.io/example/foo:v1' }] } })).toBe(true);
    expect(semver({ schema: 'olm.semver', defaultChannelTypePreference: 'patch' })).toBe(false);
    expect(semver({ schema: 'olm.semver', stabel: {} })).toBe(false);
    const subs = validatorOf('olm.template.substitutes.json');
    expect(subs({ schema: 'olm.template.substitutes', entries: [], substitutions: [{ name: 'img', base: 'b' }] })).toBe(
      true,
    );
    expect(subs({ schema: 'olm.template.substitutes', substitutions: [{ name: 'img' }] })).toBe(false);
    const basic = validatorOf('olm.template.basic.json');
    expect(basic({ schema: 'olm.template.basic', entries: [{ schema: 'olm.bundle', image: 'img' }] })).toBe(true);
    // A basic template bundle is an image only: opm rejects the other fields.
    expect(
      basic({ schema: 'olm.template.basic', entries: [{ schema: 'olm.bundle', image: 'img', package: 'foo' }] }),
    ).toBe(false);
  });
});
