import { describe, expect, it } from 'vitest';
import { emptyConfig, type DeclarativeConfig } from '../declcfg/types.js';
import { type JsonValue } from '../go/json-value.js';
import { fieldPath, schemaFindings } from './schema.js';

function withBundleProps(props: { type: string; value: JsonValue }[]): DeclarativeConfig {
  const cfg = emptyConfig();
  cfg.bundles.push({
    schema: 'olm.bundle',
    name: 'foo.v1.0.0',
    package: 'foo',
    image: 'quay.io/foo/foo:v1.0.0',
    properties: props.map((p) => ({ type: p.type, value: p.value })),
    loc: { file: 'foo/catalog.yaml', line: 12 },
  });
  return cfg;
}

describe('schemaFindings', () => {
  it('accepts well-formed blobs, with property keys in any case', () => {
    const cfg = withBundleProps([
      { type: 'olm.package', value: { PackageName: 'foo', version: '1.0.0' } },
      { type: 'olm.gvk', value: { group: 'example.com', kind: 'Foo', version: 'v1' } },
      { type: 'olm.constraint', value: { failureMessage: 'x', cel: { rule: 'true' } } },
      { type: 'com.example.custom', value: 'anything' },
    ]);
    cfg.packages.push({ schema: 'olm.package', name: 'foo', defaultChannel: 'stable' });
    cfg.channels.push({
      schema: 'olm.channel',
      name: 'stable',
      package: 'foo',
      entries: [{ name: 'foo.v1.0.0' }],
    });
    expect(schemaFindings(cfg)).toEqual([]);
  });

  it('names the field path, the property type, the file and the line', () => {
    const cfg = withBundleProps([
      { type: 'olm.package', value: { packageName: 'foo', version: '1.0.0' } },
      { type: 'olm.gvk', value: { group: 'example.com', version: 'v1' } },
      { type: 'olm.csv.metadata', value: { installModes: [{ type: 'Everywhere', supported: true }] } },
    ]);
    expect(schemaFindings(cfg)).toEqual([
      {
        rule: 'schema.olm.bundle',
        severity: 'warning',
        message: 'properties[1].value.kind: is required',
        file: 'foo/catalog.yaml',
        line: 12,
        package: 'foo',
        bundle: 'foo.v1.0.0',
      },
      expect.objectContaining({
        message:
          'properties[2].value.installModes[0].type (olm.csv.metadata): must be one of "OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces"',
      }),
    ]);
  });

  it('checks the olm.constraint forms', () => {
    const two = withBundleProps([
      {
        type: 'olm.constraint',
        value: { gvk: { group: 'g', version: 'v1', kind: 'K' }, cel: { rule: 'x' } },
      },
    ]);
    expect(schemaFindings(two).map((f) => f.message)).toEqual([
      'properties[0].value (olm.constraint): must have exactly one of gvk, package, cel, all, any, not',
    ]);
    const nested = withBundleProps([
      {
        type: 'olm.constraint',
        value: {
          all: {
            constraints: [
              { package: { packageName: 'bar', versionRange: '>=1.0.0' } },
              { not: { constraints: [{ gvk: { group: 'g', version: 'v1', kind: 'K' } }] } },
            ],
          },
        },
      },
    ]);
    expect(schemaFindings(nested)).toEqual([]);
    const empty = withBundleProps([{ type: 'olm.constraint', value: { any: { constraints: [] } } }]);
    expect(schemaFindings(empty).map((f) => f.message)).toEqual([
      'properties[0].value.any.constraints (olm.constraint): must NOT have fewer than 1 items',
    ]);
  });

  it('checks icons and deprecation references', () => {
    const cfg = emptyConfig();
    cfg.packages.push({
      schema: 'olm.package',
      name: 'foo',
      defaultChannel: 'stable',
      icon: { base64data: 'PHN2Zz48L3N2Zz4=', mediatype: '' },
      loc: { file: 'a.yaml', line: 1 },
    });
    cfg.deprecations.push({
      schema: 'olm.deprecations',
      package: 'foo',
      entries: [{ reference: { schema: 'olm.bundle' }, message: 'old' }],
      loc: { file: 'a.yaml', line: 9 },
    });
    expect(schemaFindings(cfg).map((f) => [f.rule, f.line, f.message])).toEqual([
      ['schema.olm.package', 1, 'icon.mediatype: must NOT have fewer than 1 characters'],
      ['schema.olm.deprecations', 9, 'entries[0].reference.name: is required'],
    ]);
  });

  it('skips elided bundle object payloads', () => {
    const cfg = withBundleProps([
      { type: 'olm.package', value: { packageName: 'foo', version: '1.0.0' } },
      { type: 'olm.bundle.object', value: { data: '!!not base64' } },
    ]);
    expect(schemaFindings(cfg)).toHaveLength(1);
    const b = cfg.bundles[0];
    if (b) b.payloadsElided = true;
    expect(schemaFindings(cfg)).toEqual([]);
  });

  it('formats JSON pointers as field paths', () => {
    expect(fieldPath('/properties/3/value/version')).toBe('properties[3].value.version');
    expect(fieldPath('')).toBe('(blob)');
  });
});
