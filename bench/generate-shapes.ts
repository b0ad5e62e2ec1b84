// Catalogs shaped like the two kinds users run opm on, written as opm writes YAML catalogs (one
// `catalog.yaml` per package folder, `---` before each blob, keys in Go's map order), with
// `olm.csv.metadata` in place of bundle objects as the published catalogs carry it:
//
// - certified: many packages with few bundles each and large CSV metadata (long descriptions,
//   CRD descriptions with many descriptors, alm-examples): 50 packages, 400 bundles, about 12 MB;
// - community: few packages with long channels (every bundle in several channels, replaces, skips
//   and skipRange on each entry), smaller metadata: 8 packages, 800 bundles, about 12 MB.
//
// Deterministic: the same shape and seed give the same bytes (mulberry32, test/seeded-random.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { toYaml } from '../src/declcfg/write.js';
import { seededRandom } from '../test/seeded-random.js';
import { int, pick, words, WORDS, type Rand } from './random-text.js';

/** Markdown of about `bytes` bytes: headings, paragraphs, lists, a code block, as CSV descriptions are. */
function markdown(rand: Rand, bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const kind = rand();
    let part: string;
    if (kind < 0.15) part = `## ${words(rand, int(rand, 2, 5))}`;
    else if (kind < 0.35)
      part = Array.from({ length: int(rand, 2, 6) }, () => `* ${words(rand, int(rand, 4, 14))}`).join('\n');
    else if (kind < 0.42)
      part =
        '```yaml\n' +
        Array.from(
          { length: int(rand, 3, 8) },
          (_, i) => `${'  '.repeat(i % 3)}key${i}: ${pick(rand, WORDS)}`,
        ).join('\n') +
        '\n```';
    else part = words(rand, int(rand, 20, 70)) + '.';
    parts.push(part);
    size += part.length + 2;
  }
  return parts.join('\n\n') + '\n';
}

const hex = (rand: Rand, n: number): string =>
  Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(rand() * 16)]).join('');

interface Crd {
  kind: string;
  plural: string;
  group: string;
}

function descriptor(rand: Rand, prefix: string): object {
  return {
    description: words(rand, int(rand, 8, 40)),
    displayName: words(rand, int(rand, 1, 3)),
    path: `${prefix}.${pick(rand, WORDS)}${int(rand, 0, 99)}`,
    'x-descriptors': [
      pick(rand, [
        'urn:alm:descriptor:com.tectonic.ui:text',
        'urn:alm:descriptor:com.tectonic.ui:number',
        'urn:alm:descriptor:com.tectonic.ui:booleanSwitch',
        'urn:alm:descriptor:io.kubernetes:Secret',
      ]),
    ],
  };
}

function csvMetadata(
  rand: Rand,
  pkg: string,
  version: string,
  crds: readonly Crd[],
  size: { description: number; descriptors: [number, number]; examples: number },
): object {
  const examples = crds.map((c) => ({
    apiVersion: `${c.group}/v1`,
    kind: c.kind,
    metadata: { name: `example-${c.plural}` },
    spec: Object.fromEntries(
      Array.from({ length: size.examples }, (_, i) => [
        `${pick(rand, WORDS)}${i}`,
        words(rand, int(rand, 1, 4)),
      ]),
    ),
  }));
  return {
    annotations: {
      'alm-examples': JSON.stringify(examples, null, 2),
      capabilities: pick(rand, ['Basic Install', 'Seamless Upgrades', 'Full Lifecycle', 'Deep Insights']),
      categories: pick(rand, ['Database', 'Storage', 'Networking', 'Monitoring', 'Security']),
      containerImage: `registry.example.com/${pkg}/manager@sha256:${hex(rand, 64)}`,
      createdAt: `2025-0${int(rand, 1, 9)}-1${int(rand, 0, 9)}T10:00:00Z`,
      description: words(rand, int(rand, 8, 20)),
      'features.operators.openshift.io/disconnected': 'true',
      'features.operators.openshift.io/fips-compliant': pick(rand, ['true', 'false']),
      'features.operators.openshift.io/proxy-aware': 'true',
      'operators.openshift.io/valid-subscription': '["' + words(rand, 3) + '"]',
      repository: `https://github.com/example/${pkg}`,
      support: words(rand, 2),
    },
    apiServiceDefinitions: {},
    capabilities: 'Seamless Upgrades',
    crdDescriptions: {
      owned: crds.map((c) => ({
        description: words(rand, int(rand, 10, 60)),
        displayName: words(rand, int(rand, 1, 3)),
        kind: c.kind,
        name: `${c.plural}.${c.group}`,
        resources: [{ kind: 'Deployment', name: '', version: 'v1' }],
        specDescriptors: Array.from({ length: int(rand, ...size.descriptors) }, () =>
          descriptor(rand, 'spec'),
        ),
        statusDescriptors: Array.from({ length: int(rand, 1, 4) }, () => descriptor(rand, 'status')),
        version: 'v1',
      })),
    },
    description: markdown(rand, size.description),
    displayName: `${pkg} operator`,
    installModes: [
      { supported: true, type: 'OwnNamespace' },
      { supported: true, type: 'SingleNamespace' },
      { supported: false, type: 'MultiNamespace' },
      { supported: true, type: 'AllNamespaces' },
    ],
    keywords: Array.from({ length: int(rand, 2, 6) }, () => pick(rand, WORDS)),
    links: [{ name: 'Documentation', url: `https://docs.example.com/${pkg}/${version}` }],
    maintainers: [{ email: `team@${pkg}.example.com`, name: words(rand, 2) }],
    maturity: pick(rand, ['stable', 'alpha', 'beta']),
    minKubeVersion: '1.25.0',
    provider: { name: words(rand, 2) },
  };
}

export type Shape = 'certified' | 'community';

interface ShapeSpec {
  packages: number;
  bundlesPerPackage: number;
  crds: [number, number];
  description: number;
  descriptors: [number, number];
  examples: number;
  /** Channels besides `stable` (which holds every bundle): one per minor, and `fast`. */
  minorChannels: boolean;
  /** Entries skip this many bundles before the one they replace. */
  skips: number;
}

const SHAPES: Record<Shape, ShapeSpec> = {
  certified: {
    packages: 50,
    bundlesPerPackage: 8,
    crds: [2, 6],
    description: 6_000,
    descriptors: [5, 14],
    examples: 8,
    minorChannels: false,
    skips: 0,
  },
  community: {
    packages: 8,
    bundlesPerPackage: 100,
    crds: [1, 3],
    description: 4_000,
    descriptors: [3, 8],
    examples: 6,
    minorChannels: true,
    skips: 2,
  },
};

export interface GeneratedShape {
  shape: Shape;
  packages: number;
  bundles: number;
  bytes: number;
}

const blobYaml = (blob: object): string => '---\n' + toYaml(blob);

/** Writes the catalog of `shape` under `dir` (which should be empty). */
export function generateShape(dir: string, shape: Shape, seed = 1): GeneratedShape {
  const spec = SHAPES[shape];
  const rand = seededRandom(seed);
  let bundles = 0;
  let bytes = 0;
  for (let p = 0; p < spec.packages; p++) {
    const pkg = `${shape}-${pick(rand, WORDS)}-${String(p).padStart(3, '0')}`;
    const crds: Crd[] = Array.from({ length: int(rand, ...spec.crds) }, (_, i) => {
      const kind = `${pick(rand, WORDS).replace(/^./, (c) => c.toUpperCase())}${i}`;
      return { kind, plural: `${kind.toLowerCase()}s`, group: `${pkg}.example.com` };
    });
    const versions = Array.from(
      { length: spec.bundlesPerPackage },
      (_, b) => `1.${Math.floor(b / 10)}.${b % 10}`,
    );
    const names = versions.map((v) => `${pkg}.v${v}`);
    const entry = (b: number, first: number): object => {
      const e: Record<string, unknown> = { name: names[b] };
      if (b > first) e.replaces = names[b - 1];
      const skips = names.slice(Math.max(first, b - 1 - spec.skips), Math.max(first, b - 1));
      if (skips.length > 0) e.skips = skips;
      if (b > first) e.skipRange = `>=1.0.0 <${versions[b] ?? ''}`;
      return e;
    };
    const channels: object[] = [
      {
        schema: 'olm.channel',
        name: 'stable',
        package: pkg,
        entries: names.map((_, b) => entry(b, 0)),
      },
    ];
    if (spec.minorChannels) {
      for (let first = 0; first < names.length; first += 10)
        channels.push({
          schema: 'olm.channel',
          name: `stable-1.${first / 10}`,
          package: pkg,
          entries: names.slice(first, first + 10).map((_, i) => entry(first + i, first)),
        });
    }
    const fast = Math.max(0, names.length - 3);
    channels.push({
      schema: 'olm.channel',
      name: 'fast',
      package: pkg,
      entries: names.slice(fast).map((_, i) => entry(fast + i, fast)),
    });
    const texts: string[] = [
      blobYaml({
        defaultChannel: 'stable',
        description: markdown(rand, spec.description / 2),
        icon: {
          base64data: Buffer.from(`<svg>${words(rand, 40)}</svg>`).toString('base64'),
          mediatype: 'image/svg+xml',
        },
        name: pkg,
        schema: 'olm.package',
      }),
    ];
    channels.sort((a, b) => ((a as { name: string }).name < (b as { name: string }).name ? -1 : 1));
    for (const c of channels) texts.push(blobYaml(c));
    for (let b = 0; b < names.length; b++) {
      const version = versions[b] ?? '';
      const related = Array.from({ length: int(rand, 2, 6) }, (_, i) => ({
        image: `registry.example.com/${pkg}/component${i}@sha256:${hex(rand, 64)}`,
        name: `component${i}`,
      }));
      texts.push(
        blobYaml({
          image: `registry.example.com/${pkg}/bundle@sha256:${hex(rand, 64)}`,
          name: names[b],
          package: pkg,
          properties: [
            ...crds.map((c) => ({ type: 'olm.gvk', value: { group: c.group, kind: c.kind, version: 'v1' } })),
            { type: 'olm.package', value: { packageName: pkg, version } },
            {
              type: 'olm.csv.metadata',
              value: csvMetadata(rand, pkg, version, crds, spec),
            },
          ],
          relatedImages: related,
          schema: 'olm.bundle',
        }),
      );
      bundles++;
    }
    const text = texts.join('');
    mkdirSync(path.join(dir, pkg), { recursive: true });
    writeFileSync(path.join(dir, pkg, 'catalog.yaml'), text);
    bytes += Buffer.byteLength(text);
  }
  return { shape, packages: spec.packages, bundles, bytes };
}
