import { describe, expect, it } from 'vitest';
import { emptyConfig, type Bundle, type ChannelEntry, type DeclarativeConfig } from '../declcfg/types.js';
import { type JsonObject } from '../go/json-value.js';
import { readTemplateDocument } from './input.js';
import { errorOf } from '../../test/error-of.js';
import {
  applySubstitutions,
  bundleVersionRelease,
  parseSubstitutesTemplate,
  type RenderedSubstitute,
} from './substitutes.js';

function bundle(name: string, version: string, release?: string): Bundle {
  const value: JsonObject = { packageName: 'foo', version };
  if (release !== undefined) value['release'] = release;
  return {
    schema: 'olm.bundle',
    name,
    package: 'foo',
    image: `quay.io/x/${name}`,
    properties: [{ type: 'olm.package', value }],
  };
}

function catalog(channels: Record<string, ChannelEntry[]>, bundles: Bundle[]): DeclarativeConfig {
  const cfg = emptyConfig();
  cfg.packages.push({ schema: 'olm.package', name: 'foo', defaultChannel: Object.keys(channels)[0] ?? '' });
  for (const [name, entries] of Object.entries(channels))
    cfg.channels.push({ schema: 'olm.channel', name, package: 'foo', entries });
  cfg.bundles.push(...bundles);
  return cfg;
}

const base = () =>
  catalog(
    {
      stable: [
        { name: 'foo.v1.0.0' },
        { name: 'foo.v1.1.0', replaces: 'foo.v1.0.0', skipRange: '<1.1.0' },
        { name: 'foo.v1.2.0', replaces: 'foo.v1.1.0' },
      ],
      fast: [{ name: 'foo.v1.1.0' }, { name: 'foo.v1.3.0', replaces: 'foo.v1.1.0', skips: ['foo.v1.1.0'] }],
    },
    [
      bundle('foo.v1.0.0', '1.0.0'),
      bundle('foo.v1.1.0', '1.1.0'),
      bundle('foo.v1.2.0', '1.2.0'),
      bundle('foo.v1.3.0', '1.3.0'),
    ],
  );

function template(subs: string): ReturnType<typeof parseSubstitutesTemplate> {
  return parseSubstitutesTemplate(
    readTemplateDocument(
      `schema: olm.template.substitutes\nentries: []\nsubstitutions:\n${subs}`,
      'subs.yaml',
    ),
  );
}

const renderer =
  (bundles: Record<string, Bundle[]>) =>
  (image: string): Promise<RenderedSubstitute> =>
    Promise.resolve({ bundles: bundles[image] ?? [], csvs: new Map() });

describe('applySubstitutions', () => {
  it('success/the substitute takes the base’s edges in every channel', async () => {
    const t = template('- name: quay.io/x/sub\n  base: foo.v1.1.0\n');
    const sub = bundle('foo-v1.1.0-1', '1.1.0', '1');
    const cfg = await applySubstitutions(t, base(), renderer({ 'quay.io/x/sub': [sub] }));
    const entries = Object.fromEntries(cfg.channels.map((c) => [c.name, c.entries]));
    expect(entries['stable']).toEqual([
      { name: 'foo.v1.0.0' },
      { name: 'foo.v1.1.0' },
      { name: 'foo.v1.2.0', replaces: 'foo-v1.1.0-1', skips: ['foo.v1.1.0'] },
      { name: 'foo-v1.1.0-1', replaces: 'foo.v1.0.0', skipRange: '<1.1.0', skips: ['foo.v1.1.0'] },
    ]);
    expect(entries['fast']).toEqual([
      { name: 'foo.v1.1.0' },
      { name: 'foo.v1.3.0', replaces: 'foo-v1.1.0-1', skips: ['foo-v1.1.0-1', 'foo.v1.1.0'] },
      { name: 'foo-v1.1.0-1', skips: ['foo.v1.1.0'] },
    ]);
    expect(cfg.bundles.map((b) => b.name)).toContain('foo-v1.1.0-1');
  });

  it.each([
    [
      'base reused',
      '- name: quay.io/x/a\n  base: foo.v1.1.0\n- name: quay.io/x/b\n  base: foo.v1.1.0\n',
      'render: cannot reuse the same substitution base "foo.v1.1.0"',
    ],
    [
      'substitute reused',
      '- name: quay.io/x/a\n  base: foo.v1.1.0\n- name: quay.io/x/a\n  base: foo.v1.2.0\n',
      'render: cannot reuse the same substitution "quay.io/x/a" for different bases ("foo.v1.1.0" and "foo.v1.2.0")',
    ],
    [
      'empty name',
      '- name: ""\n  base: foo.v1.1.0\n',
      'render: error processing substitution "foo.v1.1.0" -> "": substitution name cannot be empty',
    ],
    [
      'unknown base',
      '- name: quay.io/x/a\n  base: foo.v9.0.0\n',
      'base bundle "foo.v9.0.0" does not exist in catalog',
    ],
    [
      'not newer',
      '- name: quay.io/x/old\n  base: foo.v1.1.0\n',
      'base bundle "foo.v1.1.0" is not less than substitute bundle "foo.v1.0.9"',
    ],
    [
      'renders nothing',
      '- name: quay.io/x/none\n  base: foo.v1.1.0\n',
      'rendered bundle image reference "quay.io/x/none" contains no bundles',
    ],
  ])('error/%s', async (_n, subs, message) => {
    const render = renderer({
      'quay.io/x/a': [bundle('foo-v1.1.0-1', '1.1.0', '1')],
      'quay.io/x/old': [bundle('foo.v1.0.9', '1.0.9')],
    });
    const e = await errorOf(applySubstitutions(template(subs), base(), render));
    expect(e.message).toContain(message);
    expect(e.at?.file).toBe('subs.yaml');
  });

  it('error/entries that are not a valid catalog', async () => {
    const cfg = base();
    cfg.bundles.pop();
    const e = await errorOf(applySubstitutions(template('  []\n'), cfg, renderer({})));
    expect(e.message).toMatch(/^render: entries are not valid FBC: /);
  });
});

describe('bundleVersionRelease', () => {
  it('build metadata becomes the release of a bundle that substitutes for another', () => {
    const b = bundle('foo.v1.0.0', '1.0.0+2');
    const csv = { metadata: { annotations: { 'olm.substitutesFor': 'foo.v1.0.0' } } };
    const vr = bundleVersionRelease(b, csv);
    expect(vr.version.build).toEqual([]);
    expect(vr.release).toEqual([{ num: 2n }]);
    expect(bundleVersionRelease(b).version.build).toEqual(['2']);
  });

  it('errors without exactly one olm.package property', () => {
    expect(() => bundleVersionRelease({ ...bundle('x', '1.0.0'), properties: [] })).toThrow(
      'no "olm.package" property found for bundle "x"',
    );
  });
});
