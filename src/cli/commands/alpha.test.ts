// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { corpusPath, haveCorpus } from '../../../test/corpus.js';
import { parseMermaid } from '../../../test/mermaid-check.js';
import { runOpm } from '../../../test/run-cli.js';
import { templateCases, writeBundleDirMap } from '../../../test/template-corpus.js';
import { parseCatalogText } from '../../declcfg/parse.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'opm-alpha-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const MIGRATE = ['--migrate-level', 'bundle-object-to-csv-metadata'];
// An unreachable registry: any pull attempt fails fast instead of reaching the network.
const OFFLINE_ENV = { HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9' };

describe.runIf(haveCorpus())('alpha render-template: community catalogs v4.21, byte for byte', () => {
  const cases = templateCases();
  it.each(cases.map((c) => [c.pkg, c] as const))('%s', async (_p, c) => {
    const dir = mkdtempSync(path.join(tmp, `${c.pkg}-`));
    const map = writeBundleDirMap(dir, c.bundleDirs);
    // The command line a catalog maintainer runs, with the semver rules of opm 1.46, which the
    // packages' Makefiles pin and which rendered the published catalogs.
    const r = await runOpm(
      [
        'alpha',
        'render-template',
        c.templateFile,
        '--bundle-dirs',
        map,
        ...MIGRATE,
        '--semver-compat',
        'v1.46',
        '-o',
        'yaml',
      ],
      {
        env: OFFLINE_ENV,
      },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(c.catalogFile, 'utf8'));
  });

  it('clusterpulse with current semver edges: opm 1.73 skips, package description and icon', async () => {
    const c = cases.find((x) => x.pkg === 'clusterpulse');
    if (c === undefined) throw new Error('clusterpulse case missing');
    const dir = mkdtempSync(path.join(tmp, 'clusterpulse-current-'));
    const map = writeBundleDirMap(dir, c.bundleDirs);
    const r = await runOpm(
      [
        'alpha',
        'render-template',
        'semver',
        c.templateFile,
        '--bundle-dirs',
        map,
        ...MIGRATE,
        '--semver-compat',
        'current',
      ],
      {
        env: OFFLINE_ENV,
      },
    );
    expect(r.code).toBe(0);
    const blobs = parseCatalogText(r.stdout).blobs.map((b) => b.value);
    const fastV0 = blobs.find((b) => b['name'] === 'fast-v0');
    expect(fastV0?.['entries']).toEqual([
      { name: 'clusterpulse.v0.1.1' },
      { name: 'clusterpulse.v0.2.0' },
      { name: 'clusterpulse.v0.2.1' },
      { name: 'clusterpulse.v0.2.2' },
      {
        name: 'clusterpulse.v0.2.3',
        replaces: 'clusterpulse.v0.1.1',
        skips: ['clusterpulse.v0.2.0', 'clusterpulse.v0.2.1', 'clusterpulse.v0.2.2'],
      },
      {
        name: 'clusterpulse.v0.3.0',
        replaces: 'clusterpulse.v0.2.3',
        skips: ['clusterpulse.v0.1.1', 'clusterpulse.v0.2.0', 'clusterpulse.v0.2.1', 'clusterpulse.v0.2.2'],
      },
    ]);
    const pkg = blobs.find((b) => b['schema'] === 'olm.package');
    expect(pkg?.['defaultChannel']).toBe('fast-v1');
    expect(String(pkg?.['description'])).toContain('ClusterPulse');
    expect(pkg?.['icon']).toMatchObject({ mediatype: 'image/svg+xml' });
  });

  it('convert-template basic then render-template reproduces the catalog', async () => {
    const c = cases.find((x) => x.pkg === 'kube-green');
    if (c === undefined) throw new Error('kube-green case missing');
    const converted = await runOpm(['alpha', 'convert-template', 'basic', c.catalogFile, '-o', 'yaml']);
    expect(converted.code).toBe(0);
    const dir = mkdtempSync(path.join(tmp, 'roundtrip-'));
    writeFileSync(path.join(dir, 'template.yaml'), converted.stdout);
    const map = writeBundleDirMap(dir, c.bundleDirs);
    const r = await runOpm(
      ['alpha', 'render-template', 'template.yaml', '--bundle-dirs', map, ...MIGRATE, '-o', 'yaml'],
      {
        cwd: dir,
        env: OFFLINE_ENV,
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(c.catalogFile, 'utf8'));
  });
});

const bundles = path.resolve('testdata/templates/bundles');

function fooMap(dir: string): string {
  return writeBundleDirMap(
    dir,
    new Map([
      ['quay.io/example/foo:0.1.0', path.join(bundles, 'foo-v0.1.0')],
      ['quay.io/example/foo:0.2.0', path.join(bundles, 'foo-v0.2.0')],
      ['quay.io/example/foo:0.2.1', path.join(bundles, 'foo-v0.2.1')],
    ]),
  );
}

const SEMVER_TEMPLATE = `Schema: olm.semver
GenerateMajorChannels: true
GenerateMinorChannels: true
Stable:
  Bundles:
  - Image: quay.io/example/foo:0.1.0
  - Image: quay.io/example/foo:0.2.0
  - Image: quay.io/example/foo:0.2.1
`;

describe('alpha render-template', () => {
  it('reads stdin, detects the type from a capitalised Schema key, writes JSON by default', async () => {
    const dir = mkdtempSync(path.join(tmp, 'stdin-'));
    const r = await runOpm(
      ['alpha', 'render-template', '--bundle-dirs', fooMap(dir), '--semver-compat', 'current'],
      {
        stdin: SEMVER_TEMPLATE,
      },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const blobs = r.stdout.split(/\n(?=\{)/).map((t): unknown => JSON.parse(t));
    expect(blobs[0]).toEqual({
      schema: 'olm.package',
      name: 'foo',
      defaultChannel: 'stable-v0.2',
      description: 'Runs foo.',
    });
    expect(blobs.slice(1, 4)).toEqual([
      {
        schema: 'olm.channel',
        name: 'stable-v0',
        package: 'foo',
        entries: [
          { name: 'foo.v0.1.0' },
          { name: 'foo.v0.2.0' },
          { name: 'foo.v0.2.1', replaces: 'foo.v0.1.0', skips: ['foo.v0.2.0'] },
        ],
      },
      { schema: 'olm.channel', name: 'stable-v0.1', package: 'foo', entries: [{ name: 'foo.v0.1.0' }] },
      {
        schema: 'olm.channel',
        name: 'stable-v0.2',
        package: 'foo',
        entries: [
          { name: 'foo.v0.2.0' },
          { name: 'foo.v0.2.1', replaces: 'foo.v0.1.0', skips: ['foo.v0.2.0'] },
        ],
      },
    ]);
    expect(blobs.slice(4).map((b) => (b as { image: string }).image)).toEqual([
      'quay.io/example/foo:0.1.0',
      'quay.io/example/foo:0.2.0',
      'quay.io/example/foo:0.2.1',
    ]);
  });

  it('TYPE alone reads stdin; TYPE and - too', async () => {
    const dir = mkdtempSync(path.join(tmp, 'type-'));
    const a = await runOpm(['alpha', 'render-template', 'semver', '--bundle-dirs', fooMap(dir)], {
      stdin: SEMVER_TEMPLATE,
    });
    const b = await runOpm(['alpha', 'render-template', 'semver', '-', '--bundle-dirs', fooMap(dir)], {
      stdin: SEMVER_TEMPLATE,
    });
    expect(a.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
  });

  it('-o mermaid is valid Mermaid whose edges are the channel entries', async () => {
    const dir = mkdtempSync(path.join(tmp, 'mermaid-'));
    const r = await runOpm(
      [
        'alpha',
        'render-template',
        '--bundle-dirs',
        fooMap(dir),
        '--semver-compat',
        'current',
        '-o',
        'mermaid',
      ],
      {
        stdin: SEMVER_TEMPLATE,
      },
    );
    expect(r.code).toBe(0);
    const doc = parseMermaid(r.stdout);
    const edges = doc.edges.map((e) => `${e.from} -${e.text}-> ${e.to}`).sort();
    expect(edges).toEqual(
      [
        'foo-stable-v0-foo.v0.1.0 -replace-> foo-stable-v0-foo.v0.2.1',
        'foo-stable-v0-foo.v0.2.0 -skip-> foo-stable-v0-foo.v0.2.1',
        'foo-stable-v0.2-foo.v0.1.0 -replace-> foo-stable-v0.2-foo.v0.2.1',
        'foo-stable-v0.2-foo.v0.2.0 -skip-> foo-stable-v0.2-foo.v0.2.1',
      ].sort(),
    );
    // v0 semantics are on for render-template: the skipped bundle is marked
    expect(doc.classes.get('skipped')).toEqual(['foo-stable-v0-foo.v0.2.0', 'foo-stable-v0.2-foo.v0.2.0']);
  });

  it('basic template: bundles rendered from their directories, other blobs passed through', async () => {
    const dir = mkdtempSync(path.join(tmp, 'basic-'));
    const tpl = `schema: olm.template.basic
entries:
- schema: olm.package
  name: foo
  defaultChannel: stable
- schema: olm.channel
  package: foo
  name: stable
  entries:
  - name: foo.v0.1.0
  - name: foo.v0.2.0
    replaces: foo.v0.1.0
- schema: olm.bundle
  image: quay.io/example/foo:0.1.0
- schema: olm.bundle
  image: quay.io/example/foo:0.2.0
- schema: example.other
  package: foo
  note: kept
`;
    writeFileSync(path.join(dir, 'basic.yaml'), tpl);
    const r = await runOpm(
      ['alpha', 'render-template', 'basic.yaml', '--bundle-dirs', fooMap(dir), ...MIGRATE, '-o', 'yaml'],
      {
        cwd: dir,
      },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const blobs = parseCatalogText(r.stdout).blobs.map((b) => b.value);
    expect(blobs.map((b) => `${String(b['schema'])}:${String(b['name'] ?? '')}`)).toEqual([
      'olm.package:foo',
      'olm.channel:stable',
      'olm.bundle:foo.v0.1.0',
      'olm.bundle:foo.v0.2.0',
      'example.other:',
    ]);
    const b = blobs[2];
    expect(b?.['image']).toBe('quay.io/example/foo:0.1.0');
    const types = (b?.['properties'] as { type: string }[] | undefined)?.map((p) => p.type);
    expect(types).toEqual(['olm.package', 'olm.csv.metadata']);
  });

  it.each([
    [
      'unknown schema',
      'schema: olm.fancy\n',
      /^error: <stdin>:1: auto-detecting template type: unknown template schema: olm\.fancy/,
    ],
    [
      'bundle entry with extra fields',
      'schema: olm.template.basic\nentries:\n- schema: olm.bundle\n  image: quay.io/example/foo:0.1.0\n  properties: []\n',
      /^error: <stdin>:3: rendering template: unexpected fields present in basic template bundle/,
    ],
    [
      'semver template with an invalid version',
      'schema: olm.semver\nstable:\n  bundles:\n  - image: quay.io/example/bad:1.0\n',
      /^error: <stdin>:4: rendering template: render: unable to post-process bundle info: bundle "foo\.v1\.0" has invalid version "1\.0"/,
    ],
    [
      'image neither mapped nor pullable',
      'schema: olm.template.basic\nentries:\n- schema: olm.bundle\n  image: quay.io/example/foo:0.1.0\n- schema: olm.bundle\n  image: quay.invalid/none:1\n',
      /^error: <stdin>:5: rendering template: .*quay\.invalid\/none:1/,
    ],
  ])('error/%s: one line naming the entry, exit 1, no output', async (_n, stdin, message) => {
    const dir = mkdtempSync(path.join(tmp, 'err-'));
    const map = writeBundleDirMap(
      dir,
      new Map([
        ['quay.io/example/foo:0.1.0', path.join(bundles, 'foo-v0.1.0')],
        ['quay.io/example/bad:1.0', path.join(bundles, 'bad-version')],
      ]),
    );
    const r = await runOpm(['alpha', 'render-template', '--bundle-dirs', map], { stdin, env: OFFLINE_ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
  });

  it('error/mapped bundle directory that does not exist', async () => {
    const dir = mkdtempSync(path.join(tmp, 'nodir-'));
    writeFileSync(path.join(dir, 'map.json'), JSON.stringify({ 'quay.io/example/foo:0.1.0': './missing' }));
    const r = await runOpm(['alpha', 'render-template', 'basic', '-', '--bundle-dirs', 'map.json'], {
      cwd: dir,
      stdin:
        'schema: olm.template.basic\nentries:\n- schema: olm.bundle\n  image: quay.io/example/foo:0.1.0\n',
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      `error: <stdin>:3: rendering template: bundle directory "${path.join(dir, 'missing')}"`,
    );
    expect(r.stderr).toContain('does not exist (fix its entry in map.json)');
  });

  it('error/bad TYPE and bad output are usage errors', async () => {
    const t = await runOpm(['alpha', 'render-template', 'fancy', 'x.yaml']);
    expect(t.code).toBe(2);
    expect(t.stderr).toContain('invalid template type "fancy", must be one of: [basic semver substitutes]');
    const o = await runOpm(['alpha', 'render-template', '-o', 'toml'], { stdin: SEMVER_TEMPLATE });
    expect(o.code).toBe(2);
    expect(o.stderr).toContain('invalid --output value "toml", expected (json|yaml|mermaid)');
  });
});

describe('alpha convert-template', () => {
  const fbc = `---
schema: olm.package
name: foo
defaultChannel: stable
description: a <b> & c
---
schema: olm.channel
package: foo
name: stable
entries:
- name: foo.v0.1.0
---
schema: olm.bundle
package: foo
name: foo.v0.1.0
image: quay.io/example/foo:0.1.0
properties:
- type: olm.package
  value: {packageName: foo, version: 0.1.0}
`;

  it('basic -o json: opm layout, HTML escaped, bundles reduced to their image', async () => {
    const r = await runOpm(['alpha', 'convert-template', 'basic'], { stdin: fbc });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`{
    "schema": "olm.template.basic",
    "entries": [
        {
            "defaultChannel": "stable",
            "description": "a \\u003cb\\u003e \\u0026 c",
            "name": "foo",
            "schema": "olm.package"
        },
        {
            "entries": [
                {
                    "name": "foo.v0.1.0"
                }
            ],
            "name": "stable",
            "package": "foo",
            "schema": "olm.channel"
        },
        {
            "schema": "olm.bundle",
            "image": "quay.io/example/foo:0.1.0"
        }
    ]
}
`);
  });

  it('substitutes -o yaml keeps blobs and adds substitutions', async () => {
    const dir = mkdtempSync(path.join(tmp, 'convert-'));
    writeFileSync(path.join(dir, 'catalog.yaml'), fbc);
    const r = await runOpm(['alpha', 'convert-template', 'substitutes', 'catalog.yaml', '-o', 'yaml'], {
      cwd: dir,
    });
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('---\nentries:\n- defaultChannel: stable\n')).toBe(true);
    expect(r.stdout.endsWith('schema: olm.template.substitutes\nsubstitutions: []\n\n')).toBe(true);
    expect(r.stdout).toContain('- image: quay.io/example/foo:0.1.0\n  name: foo.v0.1.0\n  package: foo\n');
  });

  it('error/missing file', async () => {
    const r = await runOpm(['alpha', 'convert-template', 'basic', 'nope.yaml'], { cwd: tmp });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unable to open input: "nope.yaml"');
  });
});

describe.runIf(haveCorpus())('alpha list and render-graph', () => {
  it('list packages, channels and bundles: aligned tables', async () => {
    const index = corpusPath('opm-testdata', 'list-index');
    const p = await runOpm(['alpha', 'list', 'packages', index]);
    expect(p.stderr).toBe('');
    expect(p.stdout).toBe(
      'NAME  DISPLAY NAME  DEFAULT CHANNEL\nbar   Bar Operator  beta\nfoo   Foo Operator  beta\n',
    );
    const c = await runOpm(['alpha', 'list', 'channels', index, 'foo']);
    expect(c.stdout).toBe(
      'PACKAGE  CHANNEL  HEAD\nfoo      beta     foo.v0.2.0\nfoo      stable   foo.v0.2.0\n',
    );
    const b = await runOpm(['alpha', 'list', 'bundles', index, 'bar']);
    const lines = b.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PACKAGE +CHANNEL +BUNDLE +REPLACES +SKIPS +SKIP RANGE +IMAGE$/);
    expect(lines.slice(1).map((l) => l.split(/ {2,}/))).toEqual([
      ['bar', 'beta', 'bar.v0.1.0', '<0.1.0', 'test.registry/bar-operator/bar-bundle:v0.1.0'],
      [
        'bar',
        'beta',
        'bar.v0.2.0',
        'bar.v0.1.0',
        'bar.v0.1.1,bar.v0.1.2',
        '<0.2.0',
        'test.registry/bar-operator/bar-bundle:v0.2.0',
      ],
      [
        'bar',
        'stable',
        'bar.v0.2.0',
        'bar.v0.1.0',
        'bar.v0.1.1,bar.v0.1.2',
        '<0.2.0',
        'test.registry/bar-operator/bar-bundle:v0.2.0',
      ],
    ]);
    // every column starts where the header's column starts
    const starts = (l: string) => [...l.matchAll(/(?:^| {2,})(\S)/g)].map((m) => m.index + m[0].length - 1);
    expect(starts(lines[2] ?? '')).toEqual(starts(lines[0] ?? ''));
    const missing = await runOpm(['alpha', 'list', 'channels', index, 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('package "nope" not found');
  });

  it('render-graph of a catalog directory: valid Mermaid, edges are the channel entries', async () => {
    const dir = corpusPath('community-catalog-v4.21', 'kube-green');
    const r = await runOpm(['alpha', 'render-graph', dir]);
    expect(r.code).toBe(0);
    const doc = parseMermaid(r.stdout);
    const catalog = parseCatalogText(readFileSync(path.join(dir, 'catalog.yaml'), 'utf8')).blobs.map(
      (b) => b.value,
    );
    const want: string[] = [];
    for (const ch of catalog.filter((b) => b['schema'] === 'olm.channel')) {
      const id = (n: string) => `kube-green-${String(ch['name'])}-${n}`;
      for (const e of ch['entries'] as { name: string; replaces?: string; skips?: string[] }[]) {
        if (e.replaces) want.push(`${id(e.replaces)} -replace-> ${id(e.name)}`);
        for (const s of e.skips ?? []) want.push(`${id(s)} -skip-> ${id(e.name)}`);
      }
    }
    expect(doc.edges.map((e) => `${e.from} -${e.text}-> ${e.to}`).sort()).toEqual(want.sort());
    expect(r.stdout).not.toContain('linkStyle');
    const v0 = parseMermaid((await runOpm(['alpha', 'render-graph', '--draw-v0-semantics', dir])).stdout);
    expect(v0.edges).toHaveLength(doc.edges.length);
  });

  it('render-graph of the whole v4.21 catalog with v0 semantics: valid, red links are the links into skipped bundles and repeated skips', async () => {
    const r = await runOpm([
      'alpha',
      'render-graph',
      '--draw-v0-semantics',
      corpusPath('community-catalog-v4.21'),
    ]);
    expect(r.code).toBe(0);
    const doc = parseMermaid(r.stdout);
    const packages = new Set(
      doc.subgraphs.filter((g) => !g.id.includes('-') || g.id.startsWith('subgraph-')).map((g) => g.label),
    );
    expect(packages.size).toBe(33);
    const skipped = new Set([
      ...(doc.classes.get('skipped') ?? []),
      ...(doc.classes.get('deprecatedskipped') ?? []),
    ]);
    expect(doc.linkStyles.length).toBeGreaterThan(0);
    for (const i of doc.linkStyles) {
      const e = doc.edges[i];
      // a link into a skipped bundle, or a second skip of an already skipped bundle
      expect(e !== undefined && (skipped.has(e.to) || e.text === 'skip')).toBe(true);
    }
  });

  it('render-graph refuses a bundle directory', async () => {
    const r = await runOpm(['alpha', 'render-graph', path.join(bundles, 'foo-v0.1.0')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('not allowed');
  });
});
