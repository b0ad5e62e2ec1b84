import { describe, expect, it } from 'vitest';
import { emptyConfig, type Bundle, type DeclarativeConfig } from '../declcfg/types.js';
import type { Property } from '../property/types.js';
import type { JsonValue } from '../go/json-value.js';
import { convertToModel } from '../model/convert.js';
import { dependencyFindings } from './dependencies.js';

function bundle(pkg: string, version: string, extra: Property[] = []): Bundle {
  return {
    schema: 'olm.bundle',
    package: pkg,
    name: `${pkg}.v${version}`,
    image: `quay.io/example/${pkg}:v${version}`,
    properties: [{ type: 'olm.package', value: { packageName: pkg, version } }, ...extra],
  };
}

/** foo 1.0.0 (with the given properties), and bar 1.0.0 (providing Bar v1) and 2.0.0 (nothing). */
function catalog(fooProps: Property[]): DeclarativeConfig {
  const gvk: Property = { type: 'olm.gvk', value: { group: 'bar.example.com', kind: 'Bar', version: 'v1' } };
  return {
    ...emptyConfig(),
    packages: ['foo', 'bar'].map((name) => ({ schema: 'olm.package', name, defaultChannel: 'stable' })),
    channels: [
      { schema: 'olm.channel', package: 'foo', name: 'stable', entries: [{ name: 'foo.v1.0.0' }] },
      {
        schema: 'olm.channel',
        package: 'bar',
        name: 'stable',
        entries: [{ name: 'bar.v1.0.0' }, { name: 'bar.v2.0.0', replaces: 'bar.v1.0.0' }],
      },
    ],
    bundles: [bundle('foo', '1.0.0', fooProps), bundle('bar', '1.0.0', [gvk]), bundle('bar', '2.0.0')],
  };
}

const constraint = (value: JsonValue): Property => ({ type: 'olm.constraint', value });
const gvkBar = { group: 'bar.example.com', kind: 'Bar', version: 'v1' };

function check(props: Property[]): string[] {
  const { model } = convertToModel(catalog(props));
  return dependencyFindings({ model, others: [], policies: {} }).map((f) => `${f.rule}: ${f.message}`);
}

describe('dependencies and olm.constraint', () => {
  it('all: one bundle must satisfy every part', () => {
    expect(
      check([
        constraint({
          all: {
            constraints: [{ gvk: gvkBar }, { package: { packageName: 'bar', versionRange: '>=2.0.0' } }],
          },
        }),
      ]),
    ).toEqual([
      'dependency.package-unsatisfied: properties[1] olm.constraint: no bundle provides all(an API bar.example.com/v1, Kind=Bar, package "bar" in range ">=2.0.0") in this catalog',
    ]);
    expect(
      check([
        constraint({
          all: {
            constraints: [{ gvk: gvkBar }, { package: { packageName: 'bar', versionRange: '<2.0.0' } }],
          },
        }),
      ]),
    ).toEqual([]);
  });

  it('any: one part is enough; gvk-only requirements are reported as such', () => {
    expect(
      check([constraint({ any: { constraints: [{ gvk: { ...gvkBar, version: 'v9' } }, { gvk: gvkBar }] } })]),
    ).toEqual([]);
    expect(check([constraint({ any: { constraints: [{ gvk: { ...gvkBar, version: 'v9' } }] } })])).toEqual([
      'dependency.gvk-unsatisfied: properties[1] olm.constraint: no bundle provides any(an API bar.example.com/v9, Kind=Bar) in this catalog',
    ]);
  });

  it('reads keys as Go does (case-insensitively), accepts the deprecated none, refuses unknown keys', () => {
    expect(check([constraint({ GVK: gvkBar, FailureMessage: 'needs Bar' })])).toEqual([]);
    expect(check([constraint({ none: { constraints: [{ gvk: gvkBar }] } })])).toEqual([]);
    expect(check([constraint({ gvk: { ...gvkBar, plural: 'bars' } })])).toEqual([
      'constraint.invalid: properties[1] olm.constraint.gvk: unknown field "plural"',
    ]);
  });

  it('refuses values above 128 KiB, as OLM does', () => {
    const big = constraint({ failureMessage: 'x'.repeat(2 << 16), gvk: gvkBar });
    expect(check([big])).toEqual([
      "constraint.invalid: properties[1] olm.constraint: the value is larger than OLM's limit of 131072 bytes",
    ]);
  });

  it('olm.package.required and olm.gvk.required', () => {
    expect(
      check([
        { type: 'olm.package.required', value: { packageName: 'bar', versionRange: '>=1.0.0 <2.0.0' } },
        { type: 'olm.gvk.required', value: gvkBar },
      ]),
    ).toEqual([]);
    expect(
      check([{ type: 'olm.package.required', value: { packageName: 'bar', versionRange: '>=3.0.0' } }]),
    ).toEqual([
      'dependency.package-unsatisfied: properties[1] olm.package.required: no bundle provides package "bar" in range ">=3.0.0" in this catalog',
    ]);
    // blang/semver ranges need whole versions.
    expect(
      check([{ type: 'olm.package.required', value: { packageName: 'bar', versionRange: '>=3' } }]),
    ).toEqual([
      'dependency.range-invalid: properties[1] olm.package.required: versionRange ">=3" is not a valid range: Could not parse Range ">=3": Could not parse version "3" in ">=3": No Major.Minor.Patch elements found',
    ]);
  });
});
