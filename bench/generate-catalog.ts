// Writes a valid File-Based Catalog with `packages × bundlesPerPackage` bundles, each carrying
// olm.bundle.object payloads of about `payloadBytes` (base64 of JSON manifests), as opm's JSON.
// Deterministic: the same arguments give the same bytes.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { seededRandom } from '../test/seeded-random.js';

const WORDS: string[] =
  'operator catalog bundle channel upgrade cluster resource controller reconcile status spec field version install webhook namespace'.split(
    ' ',
  );

function text(rand: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)] ?? '');
  return out.join(' ');
}

function crd(rand: () => number, pkg: string, i: number, approxBytes: number): object {
  const props: Record<string, object> = {};
  let size = 0;
  for (let f = 0; size < approxBytes; f++) {
    const description = text(rand, 20);
    props[`field${f}`] = { type: f % 3 === 0 ? 'integer' : 'string', description };
    size += description.length + 40;
  }
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets${i}.${pkg}.example.com` },
    spec: {
      group: `${pkg}.example.com`,
      names: { kind: `Widget${i}`, plural: `widgets${i}` },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: props } },
        },
      ],
    },
  };
}

function csv(rand: () => number, pkg: string, name: string, version: string, approxBytes: number): object {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name, annotations: { 'alm-examples': '[]', capabilities: 'Basic Install' } },
    spec: {
      displayName: `${pkg} operator`,
      description: text(rand, Math.ceil(approxBytes / 8)),
      version,
      install: {
        strategy: 'deployment',
        spec: {
          deployments: [
            {
              name: pkg,
              spec: {
                template: {
                  spec: {
                    containers: [
                      { name: 'manager', image: `registry.example.com/${pkg}/manager:v${version}` },
                    ],
                  },
                },
              },
            },
          ],
        },
      },
    },
  };
}

const b64 = (obj: object): string => Buffer.from(JSON.stringify(obj)).toString('base64');

export interface GeneratedCatalog {
  packages: number;
  bundles: number;
  bytes: number;
}

export function generateCatalog(
  dir: string,
  { packages = 300, bundlesPerPackage = 10, payloadBytes = 330_000, seed = 1 } = {},
): GeneratedCatalog {
  const rand = seededRandom(seed);
  mkdirSync(dir, { recursive: true });
  let bundles = 0;
  let bytes = 0;
  for (let p = 0; p < packages; p++) {
    const pkg = `pkg-${String(p).padStart(4, '0')}`;
    const blobs: object[] = [
      { schema: 'olm.package', name: pkg, defaultChannel: 'stable', description: text(rand, 30) },
    ];
    const names: string[] = [];
    for (let b = 0; b < bundlesPerPackage; b++) names.push(`${pkg}.v1.${b}.0`);
    blobs.push({
      schema: 'olm.channel',
      name: 'stable',
      package: pkg,
      entries: names.map((n, b) =>
        b === 0 ? { name: n } : { name: n, replaces: names[b - 1], skipRange: `<1.${b}.0` },
      ),
    });
    blobs.push({
      schema: 'olm.channel',
      name: 'fast',
      package: pkg,
      entries: names.slice(-3).map((n, i, a) => (i === 0 ? { name: n } : { name: n, replaces: a[i - 1] })),
    });
    for (let b = 0; b < bundlesPerPackage; b++) {
      const version = `1.${b}.0`;
      const name = `${pkg}.v${version}`;
      const objects = [
        csv(rand, pkg, name, version, payloadBytes * 0.25),
        crd(rand, pkg, 1, payloadBytes * 0.25),
        crd(rand, pkg, 2, payloadBytes * 0.25),
      ];
      blobs.push({
        schema: 'olm.bundle',
        name,
        package: pkg,
        image: `registry.example.com/${pkg}/bundle:v${version}`,
        properties: [
          { type: 'olm.gvk', value: { group: `${pkg}.example.com`, kind: 'Widget1', version: 'v1' } },
          { type: 'olm.package', value: { packageName: pkg, version } },
          ...objects.map((o) => ({ type: 'olm.bundle.object', value: { data: b64(o) } })),
        ],
        relatedImages: [{ name: '', image: `registry.example.com/${pkg}/manager:v${version}` }],
      });
      bundles++;
    }
    const textOut = blobs.map((b) => JSON.stringify(b, null, 4) + '\n').join('');
    mkdirSync(path.join(dir, pkg), { recursive: true });
    writeFileSync(path.join(dir, pkg, 'catalog.json'), textOut);
    bytes += Buffer.byteLength(textOut);
  }
  return { packages, bundles, bytes };
}
