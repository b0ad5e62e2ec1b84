import { describe, expect, it } from 'vitest';
import { OpmError } from '../errors.js';
import { parseSemver } from '../model/semver.js';
import type { Bundle, ChannelEntry } from '../declcfg/types.js';
import { readTemplateDocument } from './input.js';
import {
  buildSemverCatalog,
  generateSemverChannels,
  parseSemverTemplate,
  semverTemplateImages,
  type Archetype,
  type SemverCompat,
  type StreamKind,
} from './semver-template.js';

const op = (v: string) => ({ name: `testoperator.v${v}`, version: parseSemver(v) });

/** The README example: 11 candidate versions, 5 fast, 1 stable. */
const readme: Record<Archetype, { name: string; version: ReturnType<typeof parseSemver> }[]> = {
  candidate: [
    '0.1.0',
    '0.1.1',
    '0.1.2',
    '0.1.3',
    '0.2.0',
    '0.2.1',
    '0.2.2',
    '0.3.0',
    '1.0.0',
    '1.0.1',
    '1.1.0',
  ].map(op),
  fast: ['0.2.1', '0.2.2', '0.3.0', '1.0.1', '1.1.0'].map(op),
  stable: ['1.0.1'].map(op),
};

function shape(
  versions: Record<Archetype, { name: string; version: ReturnType<typeof parseSemver> }[]>,
  opts: { major: boolean; minor: boolean; preference: StreamKind; compat?: SemverCompat },
) {
  // Cases that do not name a level test opm 1.73's rules, the default.
  const { channels, defaultChannel } = generateSemverChannels('testoperator', versions, {
    ...opts,
    compat: opts.compat ?? 'current',
  });
  const byName: Record<string, string[]> = {};
  for (const c of channels) {
    byName[c.name] = (c.entries ?? []).map((e: ChannelEntry) => {
      const short = (n: string) => n.replace('testoperator.v', '');
      let s = short(e.name);
      if (e.replaces) s += ` replaces ${short(e.replaces)}`;
      if (e.skips) s += ` skips [${e.skips.map(short).join(' ')}]`;
      return s;
    });
  }
  return { defaultChannel, channels: byName, order: channels.map((c) => c.name) };
}

describe('generateSemverChannels', () => {
  it('success/major channels (README example)', () => {
    const got = shape(readme, { major: true, minor: false, preference: 'major' });
    expect(got.defaultChannel).toBe('stable-v1');
    expect(got.channels).toEqual({
      'candidate-v0': [
        '0.1.0',
        '0.1.1',
        '0.1.2',
        '0.1.3 skips [0.1.0 0.1.1 0.1.2]',
        '0.2.0',
        '0.2.1',
        '0.2.2 replaces 0.1.3 skips [0.1.0 0.1.1 0.1.2 0.2.0 0.2.1]',
        '0.3.0 replaces 0.2.2 skips [0.1.0 0.1.1 0.1.2 0.1.3 0.2.0 0.2.1]',
      ],
      'candidate-v1': ['1.0.0', '1.0.1 skips [1.0.0]', '1.1.0 replaces 1.0.1 skips [1.0.0]'],
      'fast-v0': ['0.2.1', '0.2.2 skips [0.2.1]', '0.3.0 replaces 0.2.2 skips [0.2.1]'],
      'fast-v1': ['1.0.1', '1.1.0 replaces 1.0.1'],
      'stable-v1': ['1.0.1'],
    });
    expect(got.order).toEqual(['candidate-v0', 'candidate-v1', 'fast-v0', 'fast-v1', 'stable-v1']);
  });

  it('success/minor channels link across sibling minor channels of one major (README example)', () => {
    const got = shape(readme, { major: false, minor: true, preference: 'minor' });
    expect(got.defaultChannel).toBe('stable-v1.0');
    expect(got.channels).toEqual({
      'candidate-v0.1': ['0.1.0', '0.1.1', '0.1.2', '0.1.3 skips [0.1.0 0.1.1 0.1.2]'],
      'candidate-v0.2': ['0.2.0', '0.2.1', '0.2.2 replaces 0.1.3 skips [0.1.0 0.1.1 0.1.2 0.2.0 0.2.1]'],
      'candidate-v0.3': ['0.3.0 replaces 0.2.2 skips [0.1.0 0.1.1 0.1.2 0.1.3 0.2.0 0.2.1]'],
      'candidate-v1.0': ['1.0.0', '1.0.1 skips [1.0.0]'],
      'candidate-v1.1': ['1.1.0 replaces 1.0.1 skips [1.0.0]'],
      'fast-v0.2': ['0.2.1', '0.2.2 skips [0.2.1]'],
      'fast-v0.3': ['0.3.0 replaces 0.2.2 skips [0.2.1]'],
      'fast-v1.0': ['1.0.1'],
      'fast-v1.1': ['1.1.0 replaces 1.0.1'],
      'stable-v1.0': ['1.0.1'],
    });
  });

  it('success/both kinds: default channel follows the preference', () => {
    expect(shape(readme, { major: true, minor: true, preference: 'minor' }).defaultChannel).toBe(
      'stable-v1.0',
    );
    expect(shape(readme, { major: true, minor: true, preference: 'major' }).defaultChannel).toBe('stable-v1');
    const both = shape(readme, { major: true, minor: true, preference: 'minor' });
    // major and minor channels are linked independently: the same edges as when generated alone
    expect(both.channels['candidate-v0']).toEqual(
      shape(readme, { major: true, minor: false, preference: 'major' }).channels['candidate-v0'],
    );
    expect(both.channels['candidate-v0.3']).toEqual(
      shape(readme, { major: false, minor: true, preference: 'minor' }).channels['candidate-v0.3'],
    );
  });

  it('success/skip-patch rules with pre-releases (example of the semver template README)', () => {
    const versions = {
      candidate: [],
      fast: [],
      stable: [
        '1.1.0',
        '1.2.1',
        '1.3.1-alpha',
        '1.3.1-beta',
        '1.3.1',
        '1.4.1-beta1',
        '1.4.1-beta2',
        '1.4.1',
      ].map(op),
    };
    expect(shape(versions, { major: true, minor: false, preference: 'major' }).channels['stable-v1']).toEqual(
      [
        '1.1.0',
        '1.2.1 replaces 1.1.0',
        '1.3.1-alpha',
        '1.3.1-beta',
        '1.3.1 replaces 1.2.1 skips [1.1.0 1.3.1-alpha 1.3.1-beta]',
        '1.4.1-beta1',
        '1.4.1-beta2',
        '1.4.1 replaces 1.3.1 skips [1.1.0 1.2.1 1.3.1-alpha 1.3.1-beta 1.4.1-beta1 1.4.1-beta2]',
      ],
    );
  });

  it('success/input order does not matter and nothing crosses a major version', () => {
    const versions = { candidate: [], fast: [], stable: ['2.0.0', '1.1.0', '1.0.0', '2.1.0'].map(op) };
    const got = shape(versions, { major: true, minor: false, preference: 'major' });
    expect(got.channels).toEqual({
      'stable-v1': ['1.0.0', '1.1.0 replaces 1.0.0'],
      'stable-v2': ['2.0.0', '2.1.0 replaces 2.0.0'],
    });
    expect(got.defaultChannel).toBe('stable-v2');
  });

  it('success/v1.46 minor channels are linked each on its own (README example)', () => {
    const got = shape(readme, { major: false, minor: true, preference: 'minor', compat: 'v1.46' });
    expect(got.defaultChannel).toBe('stable-v1.0');
    expect(got.channels).toEqual({
      'candidate-v0.1': ['0.1.0', '0.1.1', '0.1.2', '0.1.3 skips [0.1.0 0.1.1 0.1.2]'],
      'candidate-v0.2': ['0.2.0', '0.2.1', '0.2.2 skips [0.2.0 0.2.1]'],
      'candidate-v0.3': ['0.3.0'],
      'candidate-v1.0': ['1.0.0', '1.0.1 skips [1.0.0]'],
      'candidate-v1.1': ['1.1.0'],
      'fast-v0.2': ['0.2.1', '0.2.2 skips [0.2.1]'],
      'fast-v0.3': ['0.3.0'],
      'fast-v1.0': ['1.0.1'],
      'fast-v1.1': ['1.1.0'],
      'stable-v1.0': ['1.0.1'],
    });
  });

  it('success/v1.46 skip-patch rules with pre-releases (major channel of the README versions)', () => {
    const stable = [
      '1.1.0',
      '1.2.1',
      '1.3.1-alpha',
      '1.3.1-beta',
      '1.3.1',
      '1.4.1-beta1',
      '1.4.1-beta2',
      '1.4.1',
    ];
    const got = shape(
      { candidate: [], fast: [], stable: stable.map(op) },
      { major: true, minor: false, preference: 'major', compat: 'v1.46' },
    );
    expect(got.channels['stable-v1']).toEqual([
      '1.1.0',
      '1.2.1 replaces 1.1.0 skips [1.1.0]',
      '1.3.1-alpha',
      '1.3.1-beta',
      '1.3.1 replaces 1.2.1 skips [1.2.1 1.3.1-alpha 1.3.1-beta]',
      '1.4.1-beta1',
      '1.4.1-beta2',
      '1.4.1 replaces 1.3.1 skips [1.3.1 1.4.1-beta1 1.4.1-beta2]',
    ]);
  });

  it('success/v1.46 skips come in version order, not sorted as text', () => {
    const got = shape(
      { candidate: [], fast: [], stable: ['1.0.9', '1.0.10', '1.0.11'].map(op) },
      { major: true, minor: false, preference: 'major', compat: 'v1.46' },
    );
    expect(got.channels['stable-v1']).toEqual(['1.0.9', '1.0.10', '1.0.11 skips [1.0.9 1.0.10]']);
  });

  it('success/v1.46 edges: each head skips its own minor and the head it replaces', () => {
    // the clusterpulse fast channel of the community catalog
    const versions = {
      candidate: [],
      fast: ['0.1.1', '0.2.0', '0.2.1', '0.2.2', '0.2.3', '0.3.0', '1.0.0', '1.0.1', '1.0.2'].map(op),
      stable: [],
    };
    const got = shape(versions, { major: true, minor: false, preference: 'major', compat: 'v1.46' });
    expect(got.defaultChannel).toBe('fast-v1');
    expect(got.channels).toEqual({
      'fast-v0': [
        '0.1.1',
        '0.2.0',
        '0.2.1',
        '0.2.2',
        '0.2.3 replaces 0.1.1 skips [0.1.1 0.2.0 0.2.1 0.2.2]',
        '0.3.0 replaces 0.2.3 skips [0.2.3]',
      ],
      'fast-v1': ['1.0.0', '1.0.1', '1.0.2 skips [1.0.0 1.0.1]'],
    });
  });
});

function tpl(text: string) {
  return parseSemverTemplate(readTemplateDocument(text, 'semver.yaml'));
}

function errorOf(fn: () => unknown): OpmError {
  try {
    fn();
  } catch (e) {
    if (e instanceof OpmError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

describe('parseSemverTemplate', () => {
  it('success/capitalised keys and defaults', () => {
    const t = tpl(
      '---\nSchema: olm.semver\nGenerateMajorChannels: true\nFast:\n  Bundles:\n  - Image: a\n  - Image: b\n',
    );
    expect(t.generateMajorChannels).toBe(true);
    expect(t.generateMinorChannels).toBe(false);
    expect(t.defaultChannelTypePreference).toBe('major');
    expect(t.bundles.fast).toEqual([
      { image: 'a', line: 6 },
      { image: 'b', line: 7 },
    ]);
  });

  it('success/neither flag means minor only; JSON input', () => {
    const t = tpl('{"schema":"olm.semver","stable":{"bundles":[{"image":"x"}]}}');
    expect(t.generateMinorChannels).toBe(true);
    expect(t.defaultChannelTypePreference).toBe('minor');
    expect(semverTemplateImages(t).map((i) => i.image)).toEqual(['x']);
  });

  it.each([
    [
      'unknown schema',
      'schema: olm.other\n',
      'render: unable to read file: readFile: input file has unknown schema, should be "olm.semver"',
    ],
    [
      'unknown field',
      'schema: olm.semver\ninvalid: 1\n',
      'render: unable to read file: error unmarshaling JSON: while decoding JSON: json: unknown field "invalid"',
    ],
    [
      'unknown nested field',
      'schema: olm.semver\nstable:\n  bundles:\n  - image: a\n    digest: b\n',
      'json: unknown field "digest"',
    ],
    [
      'wrong type',
      'schema: olm.semver\ngenerateMajorChannels: maybe\n',
      'json: cannot unmarshal string into Go struct field semverTemplate.generateMajorChannels of type bool',
    ],
    [
      'preference without its channels',
      'schema: olm.semver\ngenerateMajorChannels: true\ndefaultChannelTypePreference: minor\n',
      "schema attribute mismatch: DefaultChannelTypePreference set to 'minor' doesn't make sense if not generating minor-version channels",
    ],
    [
      'unknown preference',
      'schema: olm.semver\ndefaultChannelTypePreference: patch\n',
      "unknown DefaultChannelTypePreference: \"patch\"\nValid values are 'major' or 'minor'",
    ],
  ])('error/%s', (_n, text, message) => {
    const e = errorOf(() => tpl(text));
    expect(e.message).toContain(message);
    expect(e.at?.file).toBe('semver.yaml');
  });

  it('error/the line of the bad entry is reported', () => {
    const e = errorOf(() => tpl('schema: olm.semver\nstable:\n  bundles:\n  - image: a\n  - image: 3\n'));
    expect(e.at).toEqual({ file: 'semver.yaml', line: 5 });
  });
});

function bundle(name: string, version: string, pkg = 'testoperator'): Bundle {
  return {
    schema: 'olm.bundle',
    name,
    package: pkg,
    image: `quay.io/x/${name}`,
    properties: [{ type: 'olm.package', value: { packageName: pkg, version } }],
  };
}

describe('buildSemverCatalog', () => {
  const text = 'schema: olm.semver\nstable:\n  bundles:\n  - image: quay.io/x/a\n  - image: quay.io/x/b\n';

  it('success/package, channels and bundles; package metadata from the default channel head', () => {
    const t = tpl(text);
    const csv = {
      spec: { description: 'An operator', icon: [{ base64data: 'PHN2Zy8+', mediatype: 'image/svg+xml' }] },
    };
    const cfg = buildSemverCatalog(
      t,
      [
        {
          image: 'quay.io/x/a',
          bundles: [{ bundle: { ...bundle('op.v1.0.0', '1.0.0'), image: 'quay.io/x/a' } }],
        },
        {
          image: 'quay.io/x/b',
          bundles: [{ bundle: { ...bundle('op.v1.0.1', '1.0.1'), image: 'quay.io/x/b' }, csv }],
        },
      ],
      'current',
    );
    expect(cfg.packages).toEqual([
      {
        schema: 'olm.package',
        name: 'testoperator',
        defaultChannel: 'stable-v1.0',
        description: 'An operator',
        icon: { base64data: 'PHN2Zy8+', mediatype: 'image/svg+xml' },
      },
    ]);
    expect(cfg.channels).toEqual([
      {
        schema: 'olm.channel',
        name: 'stable-v1.0',
        package: 'testoperator',
        entries: [{ name: 'op.v1.0.0' }, { name: 'op.v1.0.1', skips: ['op.v1.0.0'] }],
      },
    ]);
    expect(cfg.bundles.map((b) => b.name)).toEqual(['op.v1.0.0', 'op.v1.0.1']);
    const legacy = buildSemverCatalog(
      t,
      [
        {
          image: 'quay.io/x/a',
          bundles: [{ bundle: { ...bundle('op.v1.0.0', '1.0.0'), image: 'quay.io/x/a' } }],
        },
        {
          image: 'quay.io/x/b',
          bundles: [{ bundle: { ...bundle('op.v1.0.1', '1.0.1'), image: 'quay.io/x/b' }, csv }],
        },
      ],
      'v1.46',
    );
    // opm 1.46's rules leave the package without description or icon
    expect(legacy.packages).toEqual([
      { schema: 'olm.package', name: 'testoperator', defaultChannel: 'stable-v1.0' },
    ]);
  });

  const img = (image: string, b: Bundle) => ({ image, bundles: [{ bundle: { ...b, image } }] });

  it.each([
    [
      'invalid version',
      [img('quay.io/x/a', bundle('a', '1.0')), img('quay.io/x/b', bundle('b', '1.0.1'))],
      'render: unable to post-process bundle info: bundle "a" has invalid version "1.0": No Major.Minor.Patch elements found',
      4,
    ],
    [
      'other package',
      [img('quay.io/x/a', bundle('a', '1.0.0')), img('quay.io/x/b', bundle('b', '1.0.1', 'other'))],
      'bundle "other" does not belong to this package: "testoperator"',
      5,
    ],
    [
      'build metadata only',
      [img('quay.io/x/a', bundle('a', '1.0.0+1')), img('quay.io/x/b', bundle('b', '1.0.0+2'))],
      'encountered bundle versions which differ only by build metadata, which cannot be ordered: bundle version "1.0.0+2" cannot be compared to "1.0.0"',
      5,
    ],
    [
      'two bundles from one image',
      [
        {
          image: 'quay.io/x/a',
          bundles: [{ bundle: bundle('a', '1.0.0') }, { bundle: bundle('c', '1.0.2') }],
        },
        img('quay.io/x/b', bundle('b', '1.0.1')),
      ],
      'bundle reference "quay.io/x/a" resulted in 2 bundles, expected 1',
      4,
    ],
  ])('error/%s', (_n, rendered, message, line) => {
    const e = errorOf(() => buildSemverCatalog(tpl(text), rendered));
    expect(e.message).toContain(message);
    expect(e.at).toEqual({ file: 'semver.yaml', line });
  });

  it('error/duplicate bundle in one list', () => {
    const t = tpl(
      'schema: olm.semver\nstable:\n  bundles:\n  - image: quay.io/x/a\n  - image: quay.io/x/a\n',
    );
    const e = errorOf(() => buildSemverCatalog(t, [img('quay.io/x/a', bundle('a', '1.0.0'))]));
    expect(e.message).toBe('render: unable to post-process bundle info: duplicate bundle name "a"');
  });
});
