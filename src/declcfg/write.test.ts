import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusPath, haveCorpus } from '../../test/corpus.js';
import { emitYaml } from '../yaml/emit.js';
import { parseYamlDocument } from '../yaml/yaml11.js';
import { RawJson } from '../go/raw-json.js';
import {
  emptyConfig,
  type Bundle,
  type Channel,
  type ChannelEntry,
  type DeclarativeConfig,
  type Deprecation,
  type Meta,
  type Package,
} from './types.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../go/json-value.js';
import type { Property } from '../property/types.js';
import { groupBlobs, toYaml, writeJson, writeJsonBytes, writeYaml, type DroppedBlob } from './write.js';
import { loadFile } from './load-file.js';

function pkg(name: string, extra: Partial<Package> = {}): Package {
  return { schema: 'olm.package', name, defaultChannel: '', ...extra };
}
function channel(pkgName: string, name: string, extra: Partial<Channel> = {}): Channel {
  return { schema: 'olm.channel', name, package: pkgName, entries: [], ...extra };
}
function bundle(pkgName: string, name: string, extra: Partial<Bundle> = {}): Bundle {
  return { schema: 'olm.bundle', name, package: pkgName, image: '', ...extra };
}
function meta(pkgName: string, schema: string, blob: JsonObject = {}): Meta {
  return { schema, package: pkgName, name: '', blob: { schema, package: pkgName, ...blob } };
}
function deprecation(pkgName: string): Deprecation {
  return { schema: 'olm.deprecations', package: pkgName, entries: [] };
}

/** A short label per blob of the output, in order. */
function order(cfg: DeclarativeConfig): string[] {
  return groupBlobs(cfg).flatMap((g) =>
    g.blobs.map((b) => {
      switch (b.kind) {
        case 'package':
          return `package ${b.value.name}`;
        case 'channel':
          return `channel ${b.value.package}/${b.value.name}`;
        case 'bundle':
          return `bundle ${b.value.package}/${b.value.name}${b.value.image}`;
        case 'deprecation':
          return `deprecation ${b.value.package}`;
        case 'other':
          return `other ${b.value.package}/${b.value.schema}${JSON.stringify(b.value.blob['n'] ?? '')}`;
      }
    }),
  );
}

describe('grouping and order', () => {
  it('writes packages in byte order with their blobs in opm order', () => {
    const cfg = emptyConfig();
    cfg.deprecations.push(deprecation('b'));
    cfg.others.push(meta('', 'z.other', { n: 1 }), meta('b', 'y.schema'), meta('b', 'x.schema'));
    cfg.others.push(meta('', 'a.other', { n: 2 }));
    cfg.bundles.push(bundle('b', 'b.v0.3.0'), bundle('b', 'b.v0.10.0'), bundle('B', 'B.v1'));
    cfg.channels.push(channel('b', 'stable'), channel('b', 'alpha'));
    cfg.packages.push(pkg('b'), pkg('B'), pkg('a'));
    expect(order(cfg)).toEqual([
      'package B',
      'bundle B/B.v1',
      'package a',
      'package b',
      'channel b/alpha',
      'channel b/stable',
      'bundle b/b.v0.10.0',
      'bundle b/b.v0.3.0',
      'other b/x.schema""',
      'other b/y.schema""',
      'deprecation b',
      'other /z.other1',
      'other /a.other2',
    ]);
  });

  it('keeps input order among equal names and equal schemas', () => {
    const cfg = emptyConfig();
    cfg.bundles.push(bundle('p', 'x', { image: '#1' }), bundle('p', 'a'), bundle('p', 'x', { image: '#2' }));
    cfg.others.push(meta('p', 's', { n: 1 }), meta('p', 'r'), meta('p', 's', { n: 2 }));
    cfg.packages.push(pkg('p', { defaultChannel: '1' }), pkg('p', { defaultChannel: '2' }));
    const labels = order(cfg);
    expect(labels).toEqual([
      'package p',
      'package p',
      'bundle p/a',
      'bundle p/x#1',
      'bundle p/x#2',
      'other p/r""',
      'other p/s1',
      'other p/s2',
    ]);
  });

  it('drops blobs with an empty package name and reports them', () => {
    const cfg = emptyConfig();
    cfg.packages.push(pkg(''));
    cfg.channels.push(channel('', 'c'));
    cfg.bundles.push(bundle('', 'b', { loc: { file: 'x.yaml', line: 3 } }));
    cfg.deprecations.push(deprecation(''));
    cfg.others.push(meta('', 'kept'));
    const seen: DroppedBlob[] = [];
    const json = [...writeJson(cfg, { onDropped: (d) => seen.push(d) })];
    expect(json).toEqual(['{\n    "package": "",\n    "schema": "kept"\n}\n']);
    expect(seen).toEqual([
      { schema: 'olm.package', name: '' },
      { schema: 'olm.channel', name: 'c' },
      { schema: 'olm.bundle', name: 'b', loc: { file: 'x.yaml', line: 3 } },
      { schema: 'olm.deprecations', name: '' },
    ]);
  });
});

describe('JSON output', () => {
  it('writes struct fields in declaration order with omitempty rules', () => {
    const cfg = emptyConfig();
    cfg.packages.push(
      pkg('p', {
        defaultChannel: 'stable',
        icon: { base64data: 'AAEC', mediatype: 'image/png' },
        description: '',
        properties: [],
      }),
    );
    cfg.channels.push(
      channel('p', 'stable', {
        entries: [
          { name: 'p.v2', replaces: 'p.v1', skips: ['p.v0'], skipRange: '<2.0.0' },
          { name: 'p.v1', replaces: '', skips: [] },
        ],
      }),
      channel('p', 'z', { entries: null }),
    );
    cfg.bundles.push(
      bundle('p', 'p.v1', {
        image: 'img<1>',
        properties: [
          { type: 'olm.package', value: { version: '1.0.0', packageName: 'p' } },
          { type: 'raw', value: new RawJson('{"z": 4.10, "a": "\\u003c"}') },
          { type: 'null', value: null },
        ],
        relatedImages: [{ name: '', image: 'img' }],
      }),
    );
    cfg.deprecations.push({
      schema: 'olm.deprecations',
      package: 'p',
      entries: [
        { reference: { schema: 'olm.package' }, message: 'gone' },
        { reference: { schema: 'olm.bundle', name: 'p.v1' }, message: 'a & b' },
      ],
    });
    expect([...writeJson(cfg)].join('')).toBe(
      [
        '{',
        '    "schema": "olm.package",',
        '    "name": "p",',
        '    "defaultChannel": "stable",',
        '    "icon": {',
        '        "base64data": "AAEC",',
        '        "mediatype": "image/png"',
        '    }',
        '}',
        '{',
        '    "schema": "olm.channel",',
        '    "name": "stable",',
        '    "package": "p",',
        '    "entries": [',
        '        {',
        '            "name": "p.v2",',
        '            "replaces": "p.v1",',
        '            "skips": [',
        '                "p.v0"',
        '            ],',
        '            "skipRange": "<2.0.0"',
        '        },',
        '        {',
        '            "name": "p.v1"',
        '        }',
        '    ]',
        '}',
        '{',
        '    "schema": "olm.channel",',
        '    "name": "z",',
        '    "package": "p",',
        '    "entries": null',
        '}',
        '{',
        '    "schema": "olm.bundle",',
        '    "name": "p.v1",',
        '    "package": "p",',
        '    "image": "img<1>",',
        '    "properties": [',
        '        {',
        '            "type": "olm.package",',
        '            "value": {',
        '                "packageName": "p",',
        '                "version": "1.0.0"',
        '            }',
        '        },',
        '        {',
        '            "type": "raw",',
        '            "value": {',
        '                "z": 4.10,',
        '                "a": "\\u003c"',
        '            }',
        '        },',
        '        {',
        '            "type": "null",',
        '            "value": null',
        '        }',
        '    ],',
        '    "relatedImages": [',
        '        {',
        '            "name": "",',
        '            "image": "img"',
        '        }',
        '    ]',
        '}',
        '{',
        '    "schema": "olm.deprecations",',
        '    "package": "p",',
        '    "entries": [',
        '        {',
        '            "reference": {',
        '                "schema": "olm.package"',
        '            },',
        '            "message": "gone"',
        '        },',
        '        {',
        '            "reference": {',
        '                "schema": "olm.bundle",',
        '                "name": "p.v1"',
        '            },',
        '            "message": "a & b"',
        '        }',
        '    ]',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('writes a bundle without name/package fields when they are empty only if it has a package', () => {
    const cfg = emptyConfig();
    cfg.bundles.push(bundle('p', '', { image: 'i' }));
    expect([...writeJson(cfg)]).toEqual([
      '{\n    "schema": "olm.bundle",\n    "package": "p",\n    "image": "i"\n}\n',
    ]);
  });
});

/** writeJsonBytes's chunks, copied as they come (each is only valid until the next). */
function jsonBytes(cfg: DeclarativeConfig): string[] {
  const out: string[] = [];
  for (const c of writeJsonBytes(cfg)) out.push(Buffer.from(c).toString('utf8'));
  return out;
}

describe('JSON output of blobs read from YAML', () => {
  /** A catalog loaded from one YAML file, as the loader loads it. */
  async function loadYaml(text: string): Promise<DeclarativeConfig> {
    const dir = mkdtempSync(path.join(tmpdir(), 'opm-write-'));
    try {
      const abs = path.join(dir, 'c.yaml');
      writeFileSync(abs, text);
      const { cfg, findings } = await loadFile({ abs, rel: 'c.yaml', size: Buffer.byteLength(text) }, {});
      expect(findings).toEqual([]);
      return cfg;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const bundleYaml = [
    '---',
    'image: quay.io/x/b:v1',
    'name: b.v1',
    'package: p',
    'properties:',
    '- type: olm.package',
    '  value:',
    '    packageName: p',
    '    version: 1.0.0',
    '- type: olm.gvk',
    '  value:',
    '    group: g',
    '    kind: K',
    '    version: v1',
    'schema: olm.bundle',
    '',
  ].join('\n');

  /**
   * Whether the writer takes the bundle's property values as read, without walking them: a key added
   * in place after loading (which nothing may do), out of Go's order, is then written where it was
   * put instead of in Go's order.
   */
  function takenAsRead(cfg: DeclarativeConfig): boolean {
    const value = cfg.bundles[0]?.properties?.[0]?.value;
    if (!isJsonObject(value)) throw new Error('no first property value');
    value['aaa'] = 'added';
    const text = [...writeJson(cfg)].join('');
    delete value['aaa'];
    const added = text.indexOf('"aaa": "added"');
    expect(added).toBeGreaterThan(0);
    return added > text.indexOf('"packageName": "p"');
  }

  it('takes the values of a document read in order as they are, and walks anything put there later', async () => {
    const cfg = await loadYaml(bundleYaml);
    const [b] = cfg.bundles;
    if (b === undefined) throw new Error('no bundle');
    expect(takenAsRead(cfg)).toBe(true);
    // A property added after loading (as a migration does), with its keys out of Go's order, and a
    // value replaced by another.
    b.properties?.push({ type: 'x.added', value: { z: -0, a: [2, 1] } });
    const gvk = b.properties?.[1];
    if (gvk !== undefined) gvk.value = { version: 'v2', kind: 'K', group: 'g' };
    const marked = [...writeJson(cfg)].join('');
    // The same blob cloned (as a worker hands it over) is walked throughout, and written the same.
    const clone = structuredClone(cfg);
    expect(takenAsRead(clone)).toBe(false);
    expect(marked).toBe([...writeJson(clone)].join(''));
    expect(marked).toContain('"a": [\n                    2,');
    expect(marked).toContain('"z": -0');
    expect(marked.indexOf('"group": "g"')).toBeLessThan(marked.indexOf('"version": "v2"'));
  });

  it('walks the values of a document with keys out of order, a -0, or a long payload', async () => {
    const unordered = bundleYaml.replace(
      '    packageName: p\n    version: 1.0.0',
      '    version: 1.0.0\n    packageName: p',
    );
    const negativeZero = bundleYaml.replace('version: 1.0.0', 'version: -0.0');
    const payload = bundleYaml.replace(
      '- type: olm.gvk\n  value:\n    group: g',
      `- type: olm.bundle.object\n  value:\n    data: ${'A'.repeat(20_000)}\n- type: olm.gvk\n  value:\n    group: g`,
    );
    for (const text of [unordered, negativeZero, payload]) {
      const cfg = await loadYaml(text);
      expect(takenAsRead(cfg)).toBe(false);
      expect([...writeJson(cfg)].join('')).toBe([...writeJson(structuredClone(cfg))].join(''));
    }
    expect([...writeJson(await loadYaml(negativeZero))].join('')).toContain('"version": -0');
    // A long string that is not a payload stays with JSON.stringify.
    expect(takenAsRead(await loadYaml(bundleYaml.replace('group: g', `group: ${'g'.repeat(20_000)}`)))).toBe(
      true,
    );
  });
});

describe('JSON output as bytes', () => {
  const payload = Buffer.alloc(300_000, 'payload').toString('base64');
  function bigConfig(): DeclarativeConfig {
    const cfg = emptyConfig();
    for (let i = 0; i < 12; i++) {
      cfg.bundles.push(
        bundle('p', `p.v${String(i).padStart(2, '0')}`, {
          image: `img:${i}`,
          properties: [
            { type: 'olm.bundle.object', value: { data: payload } },
            {
              type: 'olm.csv.metadata',
              value: { description: `line\n"${i}"\u2028 é ${'x'.repeat(i * 100)}` },
            },
          ],
        }),
      );
    }
    cfg.packages.push(pkg('p'));
    return cfg;
  }

  it('gives the same bytes as writeJson, in chunks of whole blobs', () => {
    const cfg = bigConfig();
    const chunks = jsonBytes(cfg);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.endsWith('}\n')).toBe(true);
    expect(chunks.join('')).toBe([...writeJson(cfg)].join(''));
  });

  it('hands out the blobs before one that fails, then throws', () => {
    const cfg = bigConfig();
    const bad = cfg.bundles[5];
    if (bad === undefined) throw new Error('no bundle');
    bad.payloadsElided = true;
    const seen: string[] = [];
    expect(() => {
      for (const c of writeJsonBytes(cfg)) seen.push(Buffer.from(c).toString('utf8'));
    }).toThrow(/without its object payloads/);
    const expected = [...writeJson({ ...cfg, bundles: cfg.bundles.slice(0, 5) })].join('');
    expect(seen.join('')).toBe(expected);
  });
});

describe('YAML output', () => {
  it('writes each blob as a --- document with sorted keys', () => {
    const cfg = emptyConfig();
    cfg.packages.push(pkg('p', { defaultChannel: 'stable', description: 'line 1\nline 2\n' }));
    cfg.bundles.push(
      bundle('p', 'p.v1', {
        properties: [{ type: 'raw', value: new RawJson('{"v": 4.10, "t": "2025-10-10"}') }],
      }),
    );
    cfg.channels.push(channel('p', 'stable', { entries: null }));
    expect([...writeYaml(cfg)]).toEqual([
      '---\ndefaultChannel: stable\ndescription: |\n  line 1\n  line 2\nname: p\nschema: olm.package\n',
      '---\nentries: null\nname: stable\npackage: p\nschema: olm.channel\n',
      '---\nimage: ""\nname: p.v1\npackage: p\nproperties:\n- type: raw\n  value:\n    t: "2025-10-10"\n    v: 4.1\nschema: olm.bundle\n',
    ]);
  });

  it('converts plain values with toYaml', () => {
    expect(toYaml({ b: [1, 'x'], a: 'no' })).toBe('a: "no"\nb:\n- 1\n- x\n');
  });
});

// ---------------------------------------------------------------------------------------------
// Corpus: decode opm's own output into the declcfg types, write it again, compare bytes.

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function str(o: JsonObject, k: string): string {
  const v = o[k];
  if (v === undefined) return '';
  if (typeof v !== 'string') throw new Error(`${k} is not a string`);
  return v;
}
function optStr(o: JsonObject, k: string): string | undefined {
  return o[k] === undefined ? undefined : str(o, k);
}
function list(o: JsonObject, k: string): JsonValue[] | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw new Error(`${k} is not a list`);
  return v;
}
function objects(o: JsonObject, k: string): JsonObject[] | undefined {
  return list(o, k)?.map((x) => {
    if (!isObject(x)) throw new Error(`${k} holds a non-object`);
    return x;
  });
}
function props(o: JsonObject): Property[] | undefined {
  return objects(o, 'properties')?.map((p) => ({ type: str(p, 'type'), value: p['value'] ?? null }));
}

function decode(values: JsonValue[]): DeclarativeConfig {
  const cfg = emptyConfig();
  for (const v of values) {
    if (!isObject(v)) throw new Error('blob is not an object');
    const schema = str(v, 'schema');
    if (schema === 'olm.package') {
      const icon = v['icon'];
      cfg.packages.push({
        schema,
        name: str(v, 'name'),
        defaultChannel: str(v, 'defaultChannel'),
        ...(isObject(icon)
          ? { icon: { base64data: str(icon, 'base64data'), mediatype: str(icon, 'mediatype') } }
          : {}),
        ...(v['description'] === undefined ? {} : { description: str(v, 'description') }),
        ...(v['properties'] === undefined ? {} : { properties: props(v) ?? [] }),
      });
    } else if (schema === 'olm.channel') {
      const entries = objects(v, 'entries')?.map((e): ChannelEntry => {
        const skips = list(e, 'skips')?.map((s) => (typeof s === 'string' ? s : ''));
        const replaces = optStr(e, 'replaces');
        const skipRange = optStr(e, 'skipRange');
        return {
          name: str(e, 'name'),
          ...(replaces === undefined ? {} : { replaces }),
          ...(skips === undefined ? {} : { skips }),
          ...(skipRange === undefined ? {} : { skipRange }),
        };
      });
      const p = props(v);
      cfg.channels.push({
        schema,
        name: str(v, 'name'),
        package: str(v, 'package'),
        entries: entries ?? null,
        ...(p === undefined ? {} : { properties: p }),
      });
    } else if (schema === 'olm.bundle') {
      const p = props(v);
      const related = objects(v, 'relatedImages')?.map((r) => ({
        name: str(r, 'name'),
        image: str(r, 'image'),
      }));
      cfg.bundles.push({
        schema,
        name: str(v, 'name'),
        package: str(v, 'package'),
        image: str(v, 'image'),
        ...(p === undefined ? {} : { properties: p }),
        ...(related === undefined ? {} : { relatedImages: related }),
      });
    } else if (schema === 'olm.deprecations') {
      cfg.deprecations.push({
        schema,
        package: str(v, 'package'),
        entries: (objects(v, 'entries') ?? []).map((e) => {
          const ref = e['reference'];
          if (!isObject(ref)) throw new Error('reference is not an object');
          const name = optStr(ref, 'name');
          return {
            reference: { schema: str(ref, 'schema'), ...(name === undefined ? {} : { name }) },
            message: str(e, 'message'),
          };
        }),
      });
    } else {
      cfg.others.push({ schema, package: str(v, 'package'), name: str(v, 'name'), blob: v });
    }
  }
  return cfg;
}

const CATALOG = 'community-catalog-v4.21';

function documents(text: string): string[] {
  return text
    .slice(4)
    .split(/^---\n/m)
    .map((d) => '---\n' + d);
}

describe('writers against opm-written catalogs', () => {
  if (!haveCorpus()) {
    it('has no corpus on this machine', () => {
      expect(haveCorpus()).toBe(false);
    });
    return;
  }
  const packages = readdirSync(corpusPath(CATALOG)).sort();

  it('writeYaml reproduces every catalog.yaml byte for byte', () => {
    let files = 0;
    let docs = 0;
    for (const p of packages) {
      const text = readFileSync(corpusPath(CATALOG, p, 'catalog.yaml'), 'utf8');
      const values = documents(text).map((d) => parseYamlDocument(d.slice(4)) ?? null);
      const chunks = [...writeYaml(decode(values))];
      docs += chunks.length;
      expect(chunks.join(''), p).toBe(text);
      files++;
    }
    console.log(`writeYaml corpus conformance: ${files}/33 files, ${docs} documents byte-equal`);
    expect(files).toBe(33);
    expect(docs).toBe(856);
  });

  it('writeJson output, read back and written as YAML, gives every document', () => {
    let equal = 0;
    for (const p of packages) {
      const text = readFileSync(corpusPath(CATALOG, p, 'catalog.yaml'), 'utf8');
      const docs = documents(text);
      const cfg = decode(docs.map((d) => parseYamlDocument(d.slice(4)) ?? null));
      const json = [...writeJson(cfg)];
      expect(json.length).toBe(docs.length);
      expect(jsonBytes(cfg).join('')).toBe(json.join(''));
      for (const [i, chunk] of json.entries()) {
        expect(chunk.endsWith('}\n')).toBe(true);
        const parsed: unknown = JSON.parse(chunk);
        expect('---\n' + emitYaml(parsed), `${p} document ${i}`).toBe(docs[i]);
        equal++;
      }
    }
    console.log(`writeJson corpus round trip: ${equal}/856 documents byte-equal as YAML`);
    expect(equal).toBe(856);
  });
});
