import { describe, expect, it } from 'vitest';
import {
  emptyConfig,
  type Bundle,
  type Channel,
  type ChannelEntry,
  type DeclarativeConfig,
  type Package,
} from '../declcfg/types.js';
import { OpmError } from '../errors.js';
import { convertToModel, convertToModelOrThrow } from './convert.js';
import { renderValidationTree } from './validate.js';
import { imageReferenceError, dns1123LabelErrors } from './names.js';

function pkg(name: string, defaultChannel: string, line = 1): Package {
  return { schema: 'olm.package', name, defaultChannel, loc: { file: `${name}.yaml`, line } };
}
function channel(pkgName: string, name: string, entries: ChannelEntry[], line = 5): Channel {
  return { schema: 'olm.channel', package: pkgName, name, entries, loc: { file: `${pkgName}.yaml`, line } };
}
function bundle(
  pkgName: string,
  name: string,
  version: string,
  line = 10,
  extra: Partial<Bundle> = {},
): Bundle {
  return {
    schema: 'olm.bundle',
    package: pkgName,
    name,
    image: `quay.io/example/${pkgName}:${version}`,
    properties: [{ type: 'olm.package', value: { packageName: pkgName, version } }],
    loc: { file: `${pkgName}.yaml`, line },
    ...extra,
  };
}
function cfg(parts: Partial<DeclarativeConfig>): DeclarativeConfig {
  return { ...emptyConfig(), ...parts };
}

const good = (): DeclarativeConfig =>
  cfg({
    packages: [pkg('foo', 'stable')],
    channels: [
      channel('foo', 'stable', [
        { name: 'foo.v0.1.0' },
        { name: 'foo.v0.2.0', replaces: 'foo.v0.1.0', skipRange: '<0.2.0' },
      ]),
    ],
    bundles: [bundle('foo', 'foo.v0.1.0', '0.1.0', 10), bundle('foo', 'foo.v0.2.0', '0.2.0', 20)],
  });

describe('convertToModel', () => {
  it('accepts a valid catalog', () => {
    const r = convertToModel(good());
    expect(r.findings).toEqual([]);
    expect(r.opmMessage).toBeUndefined();
    expect(convertToModelOrThrow(good()).get('foo')?.channels.get('stable')?.bundles.size).toBe(2);
  });

  it('reports multiple heads with opm message and a finding that names the heads', () => {
    const c = good();
    c.channels[0]?.entries?.push({ name: 'foo.v0.3.0' });
    c.bundles.push(bundle('foo', 'foo.v0.3.0', '0.3.0', 30));
    const r = convertToModel(c);
    expect(r.opmMessage).toBe(
      'invalid index:\n└── invalid package "foo":\n    └── invalid channel "stable":\n        └── multiple channel heads found in graph: foo.v0.2.0, foo.v0.3.0',
    );
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({
      rule: 'channel.multiple-heads',
      file: 'foo.yaml',
      line: 5,
      package: 'foo',
      channel: 'stable',
    });
    expect(r.findings[0]?.message).toContain('foo.v0.2.0 (foo.yaml:20), foo.v0.3.0 (foo.yaml:30)');
    expect(() => convertToModelOrThrow(c)).toThrow(OpmError);
  });

  it('reports cycles with the path from the repeated node', () => {
    const c = cfg({
      packages: [pkg('a', 'x')],
      channels: [
        channel('a', 'x', [
          { name: 'a.v4', replaces: 'a.v3' },
          { name: 'a.v3', replaces: 'a.v2' },
          { name: 'a.v2', replaces: 'a.v1' },
          { name: 'a.v1', replaces: 'a.v3' },
        ]),
      ],
      bundles: ['1', '2', '3', '4'].map((n, i) => bundle('a', `a.v${n}`, `${n}.0.0`, 10 + i)),
    });
    const r = convertToModel(c);
    expect(r.opmMessage).toContain(
      'detected cycle in replaces chain of upgrade graph: a.v3 -> a.v2 -> a.v1 -> a.v3',
    );
    expect(r.findings.map((f) => f.rule)).toEqual(['channel.cycle']);
  });

  it('reports stranded bundles and where the chain ends', () => {
    const c = cfg({
      packages: [pkg('a', 'x')],
      channels: [
        channel('a', 'x', [
          { name: 'a.v1' },
          { name: 'a.v1x', replaces: 'a.v1' },
          { name: 'a.v2' },
          { name: 'a.v3', replaces: 'a.v2', skips: ['a.v1x'] },
        ]),
      ],
      bundles: ['1', '1x', '2', '3'].map((n, i) => bundle('a', `a.v${n}`, `${i + 1}.0.0`, 10 + i)),
    });
    const r = convertToModel(c);
    expect(r.opmMessage).toContain('channel contains one or more stranded bundles: a.v1');
    expect(r.findings[0]?.rule).toBe('channel.stranded');
    expect(r.findings[0]?.message).toContain('ends at "a.v2", which replaces nothing');
  });

  it('cuts the chain at a replaced bundle that is also skipped', () => {
    const c = cfg({
      packages: [pkg('a', 'x')],
      channels: [
        channel('a', 'x', [
          { name: 'a.v1' },
          { name: 'a.v2', replaces: 'a.v1' },
          { name: 'a.v3', replaces: 'a.v2', skips: ['a.v2'] },
        ]),
      ],
      bundles: ['1', '2', '3'].map((n, i) => bundle('a', `a.v${n}`, `${n}.0.0`, 10 + i)),
    });
    expect(convertToModel(c).opmMessage).toContain('stranded bundles: a.v1');
  });

  it('checks entries of every channel, where opm checks only the last one', () => {
    const c = good();
    c.channels.unshift(channel('foo', 'alpha', [{ name: 'foo.v0.0.1' }], 3));
    const r = convertToModel(c);
    const missing = r.findings.filter((f) => f.rule === 'channel.entry-bundle-missing');
    expect(missing).toEqual([
      expect.objectContaining({ channel: 'alpha', bundle: 'foo.v0.0.1', file: 'foo.yaml', line: 3 }),
    ]);
    // opm does not see it at conversion, and fails in the tree instead.
    expect(r.opmMessage).toContain('└── invalid bundle "foo.v0.0.1":');
    expect(r.opmMessage).toContain('must be exactly one property with type "olm.package"');
    expect(r.opmMessage).toContain('bundle image must be set');
    // No second report of the same bundle from model validation.
    expect(
      r.findings.every((f) => f.bundle !== 'foo.v0.0.1' || f.rule === 'channel.entry-bundle-missing'),
    ).toBe(true);
  });

  it('gives opm message for missing entries of the last channel', () => {
    const c = good();
    c.bundles.pop();
    expect(convertToModel(c).opmMessage).toBe(
      'no olm.bundle blobs found in package "foo" for olm.channel entries [foo.v0.2.0]',
    );
  });

  it('collects all conversion problems and keeps the first as opm message', () => {
    const c = good();
    c.packages.push(pkg('foo', 'stable', 40));
    c.bundles.push(bundle('foo', 'foo.v0.2.0', '0.2.0', 50));
    const b = c.bundles[0];
    if (b) b.properties = [{ type: 'olm.package', value: { packageName: 'foo', version: 'v0.1.0' } }];
    const r = convertToModel(c);
    expect(r.opmMessage).toBe('duplicate package "foo"');
    expect(r.findings.map((f) => [f.rule, f.line])).toEqual([
      ['package.duplicate', 40],
      ['bundle.version-invalid', 10],
      ['bundle.duplicate', 50],
    ]);
    expect(r.findings[1]?.message).toBe(
      'error parsing bundle "foo.v0.1.0" version "v0.1.0": Invalid character(s) found in major number "v0"',
    );
  });

  it('synthesizes a missing default channel and reports it', () => {
    const c = good();
    const p = c.packages[0];
    if (p) p.defaultChannel = 'fast';
    const r = convertToModel(c);
    expect(r.opmMessage).toBe(
      'invalid index:\n└── invalid package "foo":\n    └── invalid channel "fast":\n        └── channel must contain at least one bundle',
    );
    expect(r.findings).toEqual([
      expect.objectContaining({ rule: 'package.default-channel-missing', file: 'foo.yaml', line: 1 }),
    ]);
  });

  it('renders the release-name tree like opm', () => {
    const name = 'foo.v0.1.0+alpha.1.0.0-0.0.1';
    const c = cfg({
      packages: [pkg('foo', 'alpha')],
      channels: [channel('foo', 'alpha', [{ name }])],
      bundles: [
        bundle('foo', name, '0.1.0+alpha.1.0.0', 10, {
          image: 'quay.io/example/foo:v0.1.0',
          properties: [
            {
              type: 'olm.package',
              value: { packageName: 'foo', version: '0.1.0+alpha.1.0.0', release: '0.0.1' },
            },
          ],
        }),
      ],
    });
    expect(convertToModel(c).opmMessage).toBe(
      [
        'invalid index:',
        '└── invalid package "foo":',
        '    └── invalid channel "alpha":',
        `        └── invalid bundle "${name}":`,
        `            ├── name "${name}" does not match normalized name "foo-v0.1.0+alpha.1.0.0-0.0.1"`,
        '            └── cannot use build metadata in version with a release version',
      ].join('\n'),
    );
  });

  it('reports duplicate versions across channels', () => {
    const c = good();
    c.channels.push(channel('foo', 'fast', [{ name: 'foo.v0.2.0-copy' }], 7));
    c.bundles.push(bundle('foo', 'foo.v0.2.0-copy', '0.2.0', 60));
    const r = convertToModel(c);
    expect(r.opmMessage).toContain(
      'duplicate versions found in bundles: [{0.2.0: [foo.v0.2.0, foo.v0.2.0-copy]}]',
    );
    expect(r.findings).toEqual([
      expect.objectContaining({ rule: 'package.duplicate-versions', line: 20, bundle: 'foo.v0.2.0' }),
    ]);
  });

  it('reports invalid skipRange with blang text', () => {
    const c = good();
    const e = c.channels[0]?.entries?.[1];
    if (e) e.skipRange = '>v0.1.0';
    const r = convertToModel(c);
    expect(r.opmMessage).toContain(
      'invalid skipRange ">v0.1.0": Could not parse Range ">v0.1.0": Could not parse comparator ">v" in ">v0.1.0"',
    );
    expect(r.findings[0]).toMatchObject({ rule: 'bundle.skip-range-invalid', bundle: 'foo.v0.2.0', line: 5 });
  });

  it('reports property parse errors with Go json text', () => {
    const c = good();
    const b = c.bundles[0];
    if (b) b.properties = [{ type: 'olm.package', value: { packageName: 'foo', version: 1 } }];
    expect(convertToModel(c).opmMessage).toBe(
      'parse properties for bundle "foo.v0.1.0": parse property[0] of type "olm.package": json: cannot unmarshal number into Go struct field Package.version of type string',
    );
  });

  it('reads property fields case-insensitively, as Go does', () => {
    const c = good();
    const b = c.bundles[0];
    if (b) b.properties = [{ type: 'olm.package', value: { PackageName: 'foo', Version: '0.1.0' } }];
    expect(convertToModel(c).findings).toEqual([]);
  });

  it('checks deprecations', () => {
    const c = good();
    c.deprecations.push({
      schema: 'olm.deprecations',
      package: 'foo',
      entries: [
        { reference: { schema: 'olm.bundle', name: 'foo.v9' }, message: 'gone' },
        { reference: { schema: 'olm.thing', name: 'x' }, message: 'gone' },
      ],
      loc: { file: 'foo.yaml', line: 70 },
    });
    const r = convertToModel(c);
    expect(r.opmMessage).toBe('cannot deprecate bundle "foo.v9" for package "foo": bundle not found');
    expect(r.findings.map((f) => f.message)).toEqual([
      'cannot deprecate bundle "foo.v9" for package "foo": bundle not found',
      'cannot deprecate object declcfg.PackageScopedReference{Schema:"olm.thing", Name:"x"} referenced by entry 1 for package "foo": object schema unknown',
    ]);
  });
});

describe('names and images', () => {
  it('checks package names as DNS-1123 labels', () => {
    expect(dns1123LabelErrors('foo-bar')).toEqual([]);
    expect(dns1123LabelErrors('foo.bar')).toEqual(['must not contain dots']);
    expect(dns1123LabelErrors('Foo')[0]).toContain('a lowercase RFC 1123 label must consist of');
    expect(dns1123LabelErrors('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });

  it('checks image references like docker ParseNormalizedNamed', () => {
    expect(imageReferenceError('quay.io/foo/bar:v1')).toBeUndefined();
    expect(imageReferenceError('foo:1')).toBeUndefined();
    expect(imageReferenceError(`quay.io/foo/bar@sha256:${'a'.repeat(64)}`)).toBeUndefined();
    expect(imageReferenceError('quay.io/Foo/bar:v1')).toBe(
      'invalid reference format: repository name must be lowercase',
    );
    expect(imageReferenceError(`quay.io/foo/bar@md5:${'a'.repeat(32)}`)).toBe('unsupported digest algorithm');
    expect(imageReferenceError(`quay.io/foo/bar@sha256:${'a'.repeat(40)}`)).toBe(
      'invalid checksum digest length',
    );
    expect(imageReferenceError('quay.io/foo/bar:v1:v2')).toBe('invalid reference format');
  });

  it('renders nested trees', () => {
    expect(
      renderValidationTree({
        message: 'l1',
        children: ['err1', { message: 'l2', children: ['err3', 'err4'] }, 'err2'],
      }),
    ).toBe('l1:\n├── err1\n├── l2:\n│   ├── err3\n│   └── err4\n└── err2');
  });
});
