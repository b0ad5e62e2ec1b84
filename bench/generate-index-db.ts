// A SQLite index database of the size of OpenShift 4.10's default catalogs (their index.db: 3,000
// and more bundles with every manifest, 40 MB and more), written the way `opm registry add` writes
// one: bundle directories on disk (a CSV with a Markdown description, an icon, alm-examples, CRD
// descriptors and an install strategy; one to three CRDs with an OpenAPI schema; the annotations),
// read by opm-ts's bundle parser, and added package by package in `replaces` mode by opm-ts's
// writer (src/action/registry-add, src/sqlite/write). Packages have from 4 to 36 bundles, every
// bundle in `stable` and in the channel of its minor version, replaces chains across minors,
// skipRange on each minor's first bundle; bundle images named by digest. (No `skips`: a skipped
// bundle inside a replaces chain is stranded in the catalog both opm and opm-ts render from it.)
//
// Deterministic: the same seed gives the same rows. The database is kept in bench/out/sqlite-index/
// under a name that carries GENERATOR (change it with the shape), so later runs reuse it.
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleRecord, type BundleRecord } from '../src/action/registry-add/bundle-record.js';
import { populate } from '../src/action/registry-add/populate.js';
import { newDatabaseContent } from '../src/sqlite/write/schema-13.js';
import { parseBundleDirSync } from '../src/bundle/parse.js';
import { writeDatabaseContent } from '../src/sqlite/write/content.js';
import { RowStore } from '../src/sqlite/write/row-store.js';
import { seededRandom } from '../test/seeded-random.js';
import { int, pick, words, WORDS, type Rand } from './random-text.js';

/** Bump when the shape of the database changes: cached copies of the old shape are not reused. */
const GENERATOR = 4;

const hex = (rand: Rand, n: number): string =>
  Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(rand() * 16)]).join('');

/** Markdown of about `bytes` bytes: headings, paragraphs and lists, as CSV descriptions are. */
function markdown(rand: Rand, bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const kind = rand();
    const part =
      kind < 0.15
        ? `## ${words(rand, int(rand, 2, 5))}`
        : kind < 0.35
          ? Array.from({ length: int(rand, 2, 6) }, () => `* ${words(rand, int(rand, 4, 14))}`).join('\n')
          : words(rand, int(rand, 20, 70)) + '.';
    parts.push(part);
    size += part.length + 2;
  }
  return parts.join('\n\n') + '\n';
}

interface Kind {
  kind: string;
  plural: string;
  group: string;
}

/** A CRD with an OpenAPI schema of `fields` described fields under spec and status. */
function crd(rand: Rand, k: Kind, fields: number): object {
  const props = (n: number): Record<string, object> =>
    Object.fromEntries(
      Array.from({ length: n }, (_, i) => [
        `${pick(rand, WORDS)}${i}`,
        i % 4 === 0
          ? { type: 'array', description: words(rand, int(rand, 6, 24)), items: { type: 'string' } }
          : {
              type: pick(rand, ['string', 'integer', 'boolean']),
              description: words(rand, int(rand, 6, 24)),
            },
      ]),
    );
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${k.plural}.${k.group}`,
      annotations: { 'controller-gen.kubebuilder.io/version': 'v0.8.0' },
    },
    spec: {
      group: k.group,
      names: { kind: k.kind, listKind: `${k.kind}List`, plural: k.plural, singular: k.kind.toLowerCase() },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              description: words(rand, 12),
              type: 'object',
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: { type: 'object', properties: props(fields) },
                status: { type: 'object', properties: props(Math.ceil(fields / 3)) },
              },
            },
          },
        },
      ],
    },
  };
}

function descriptor(rand: Rand, prefix: string): object {
  return {
    description: words(rand, int(rand, 6, 20)),
    displayName: words(rand, int(rand, 1, 3)),
    path: `${prefix}${pick(rand, WORDS)}${int(rand, 0, 99)}`,
    'x-descriptors': [
      pick(rand, ['urn:alm:descriptor:com.tectonic.ui:text', 'urn:alm:descriptor:io.kubernetes:Secret']),
    ],
  };
}

interface PackageShape {
  name: string;
  kinds: Kind[];
  /** Per kind, the CRD's fields under spec. */
  fields: number[];
  icon: string;
  descriptionBytes: number;
}

function csv(
  rand: Rand,
  p: PackageShape,
  version: string,
  replaces: string | undefined,
  skipRange: string | undefined,
  operatorImage: string,
): object {
  const name = `${p.name}.v${version}`;
  const examples = p.kinds.map((k) => ({
    apiVersion: `${k.group}/v1`,
    kind: k.kind,
    metadata: { name: `example-${k.kind.toLowerCase()}` },
    spec: { size: int(rand, 1, 5), [pick(rand, WORDS)]: words(rand, 2) },
  }));
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: {
      name,
      namespace: 'placeholder',
      annotations: {
        'alm-examples': JSON.stringify(examples, null, 2),
        capabilities: pick(rand, ['Basic Install', 'Seamless Upgrades', 'Full Lifecycle']),
        categories: pick(rand, ['Database', 'Storage', 'Networking', 'Monitoring', 'Security']),
        containerImage: operatorImage,
        createdAt: `2022-0${int(rand, 1, 9)}-1${int(rand, 0, 9)}T10:00:00Z`,
        description: words(rand, int(rand, 8, 20)),
        'operators.openshift.io/infrastructure-features': '["disconnected"]',
        repository: `https://github.com/example/${p.name}`,
        support: words(rand, 2),
        ...(skipRange === undefined ? {} : { 'olm.skipRange': skipRange }),
      },
    },
    spec: {
      displayName: `${p.name} operator`,
      description: markdown(rand, p.descriptionBytes),
      icon: [{ base64data: p.icon, mediatype: 'image/svg+xml' }],
      keywords: [pick(rand, WORDS), pick(rand, WORDS)],
      maintainers: [{ name: 'Example', email: 'operators@example.com' }],
      provider: { name: 'Example, Inc.' },
      links: [{ name: 'Documentation', url: `https://docs.example.com/${p.name}` }],
      maturity: pick(rand, ['stable', 'alpha']),
      minKubeVersion: '1.21.0',
      version,
      ...(replaces === undefined ? {} : { replaces: `${p.name}.v${replaces}` }),
      installModes: ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'].map((type, i) => ({
        type,
        supported: i !== 2,
      })),
      customresourcedefinitions: {
        owned: p.kinds.map((k) => ({
          name: `${k.plural}.${k.group}`,
          version: 'v1',
          kind: k.kind,
          displayName: k.kind,
          description: words(rand, int(rand, 6, 20)),
          specDescriptors: Array.from({ length: int(rand, 1, 3) }, () => descriptor(rand, '')),
          statusDescriptors: Array.from({ length: int(rand, 0, 1) }, () => descriptor(rand, '')),
        })),
      },
      install: {
        strategy: 'deployment',
        spec: {
          clusterPermissions: [
            {
              serviceAccountName: `${p.name}-controller`,
              rules: p.kinds.map((k) => ({
                apiGroups: [k.group],
                resources: [k.plural, `${k.plural}/status`],
                verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
              })),
            },
          ],
          deployments: [
            {
              name: `${p.name}-controller`,
              spec: {
                replicas: 1,
                selector: { matchLabels: { 'control-plane': p.name } },
                template: {
                  metadata: { labels: { 'control-plane': p.name } },
                  spec: {
                    serviceAccountName: `${p.name}-controller`,
                    containers: [
                      {
                        name: 'manager',
                        image: operatorImage,
                        args: ['--leader-elect', '--metrics-bind-address=127.0.0.1:8080'],
                        env: [
                          {
                            name: 'WATCH_NAMESPACE',
                            valueFrom: {
                              fieldRef: { fieldPath: "metadata.annotations['olm.targetNamespaces']" },
                            },
                          },
                        ],
                        resources: {
                          limits: { cpu: '500m', memory: '256Mi' },
                          requests: { cpu: '10m', memory: '64Mi' },
                        },
                      },
                    ],
                  },
                },
              },
            },
          ],
        },
      },
      relatedImages: [{ name: 'manager', image: operatorImage }],
    },
  };
}

/** Writes one package's bundle directories under `dir` and reads them back as `registry add` does. */
function packageBundles(rand: Rand, dir: string, p: PackageShape, count: number): BundleRecord[] {
  const out: BundleRecord[] = [];
  const versions = Array.from({ length: count }, (_, i) => `1.${Math.floor(i / 5)}.${i % 5}`);
  versions.forEach((version, i) => {
    const minor = Math.floor(i / 5);
    const first = i % 5 === 0 && minor > 0;
    const operatorImage = `registry.example.com/${p.name}/manager@sha256:${hex(rand, 64)}`;
    const root = path.join(dir, `${p.name}-${version}`);
    mkdirSync(path.join(root, 'manifests'), { recursive: true });
    mkdirSync(path.join(root, 'metadata'), { recursive: true });
    const manifest = (file: string, obj: object): void =>
      writeFileSync(path.join(root, 'manifests', file), JSON.stringify(obj, null, 2) + '\n');
    manifest(
      `${p.name}.clusterserviceversion.yaml`,
      csv(
        rand,
        p,
        version,
        versions[i - 1],
        first ? `>=1.${minor - 1}.0 <1.${minor}.0` : undefined,
        operatorImage,
      ),
    );
    p.kinds.forEach((k, j) => manifest(`${k.group}_${k.plural}.yaml`, crd(rand, k, p.fields[j] ?? 10)));
    const annotations = {
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
      'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
      'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
      'operators.operatorframework.io.bundle.package.v1': p.name,
      'operators.operatorframework.io.bundle.channels.v1': `stable,stable-1.${minor}`,
      'operators.operatorframework.io.bundle.channel.default.v1': 'stable',
    };
    writeFileSync(path.join(root, 'metadata', 'annotations.yaml'), JSON.stringify({ annotations }) + '\n');
    const image = `registry.example.com/${p.name}/bundle@sha256:${hex(rand, 64)}`;
    out.push(bundleRecord(parseBundleDirSync(root), image));
    rmSync(root, { recursive: true, force: true });
  });
  return out;
}

export interface GeneratedIndexDb {
  file: string;
  packages: number;
  bundles: number;
  bytes: number;
  /** True when this call wrote it (false: the cached copy). */
  made: boolean;
}

/**
 * The database of `bundles` bundles or more (cached under `cacheDir`), written by opm-ts's
 * `registry add` steps. Packages are added in name order, each as one add of all its bundles.
 */
export function generateIndexDb(cacheDir: string, { bundles = 3000, seed = 1 } = {}): GeneratedIndexDb {
  const rand = seededRandom(seed);
  const counts: number[] = [];
  for (let total = 0; total < bundles;) {
    const n = Math.min(int(rand, 4, 36), Math.max(4, bundles - total));
    counts.push(n);
    total += n;
  }
  const total = counts.reduce((a, b) => a + b, 0);
  const file = path.join(cacheDir, `index-g${GENERATOR}-s${seed}-b${bundles}.db`);
  if (existsSync(file))
    return { file, packages: counts.length, bundles: total, bytes: statSync(file).size, made: false };
  mkdirSync(cacheDir, { recursive: true });
  const scratch = mkdtempSync(path.join(tmpdir(), 'opm-bench-index-db-'));
  try {
    const content = newDatabaseContent(new Date(Date.UTC(2022, 2, 10)));
    const t = new RowStore(content);
    counts.forEach((count, i) => {
      const name = `${pick(rand, WORDS)}-${pick(rand, WORDS)}-${String(i).padStart(3, '0')}`;
      const kinds = Array.from({ length: int(rand, 1, 3) }, (_, j) => {
        const kind = `${pick(rand, WORDS).replace(/^./, (c) => c.toUpperCase())}${j}`;
        return { kind, plural: `${kind.toLowerCase()}s`, group: `${name.replaceAll('-', '')}.example.com` };
      });
      const shape: PackageShape = {
        name,
        kinds,
        fields: kinds.map(() => int(rand, 3, 8)),
        icon: Buffer.from(
          `<svg xmlns="http://www.w3.org/2000/svg">${hex(rand, int(rand, 200, 500))}</svg>`,
        ).toString('base64'),
        descriptionBytes: int(rand, 300, 1000),
      };
      const err = populate(t, packageBundles(rand, scratch, shape, count), 'replaces');
      if (err !== undefined) throw new Error(`generating ${name}: ${err}`);
    });
    const part = `${file}.${process.pid}.part`;
    writeDatabaseContent(part, t.toContent());
    renameSync(part, file);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return { file, packages: counts.length, bundles: total, bytes: statSync(file).size, made: true };
}
