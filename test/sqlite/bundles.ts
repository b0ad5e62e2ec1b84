// Bundle directories written at test time for index databases: a CSV (replaces, skips, skipRange,
// icon, related images, owned and required CRDs), its CRDs, the annotations, and optional
// dependencies and properties files. Pushed as bundle images, they are what `registry add` reads.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface BundleSpec {
  pkg: string;
  version: string;
  channels: string[];
  defaultChannel?: string;
  replaces?: string;
  skips?: string[];
  skipRange?: string;
  /** Base64 icon data (as written into the CSV) and its media type. */
  icon?: { data: string; mediatype: string };
  relatedImages?: Array<{ name: string; image: string }>;
  /** Kinds of CRDs the bundle owns (group `<pkg>.example.com`, version v1). */
  owns?: string[];
  /** CRDs required: `<plural>.<group>` with kind and version. */
  requires?: Array<{ name: string; kind: string; version: string }>;
  dependencies?: unknown[];
  properties?: unknown[];
  /** Padding in the CSV's description, to make large databases. */
  descriptionBytes?: number;
  /** The image's tag (default: the version), for a second image of the same CSV. */
  tag?: string;
  /** The CSV's `olm.substitutesFor` annotation (an alpha feature of opm's `--enable-alpha`). */
  substitutesFor?: string;
}

export const csvName = (pkg: string, version: string): string => `${pkg}.v${version}`;

function crd(pkg: string, kind: string): Record<string, unknown> {
  const group = `${pkg}.example.com`;
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

/** Write the bundle directory of `b` under `dir` and return its path. */
export function writeBundle(dir: string, b: BundleSpec): string {
  const root = path.join(dir, `${b.pkg}-${b.tag ?? b.version}`);
  mkdirSync(path.join(root, 'manifests'), { recursive: true });
  mkdirSync(path.join(root, 'metadata'), { recursive: true });
  const name = csvName(b.pkg, b.version);
  const annotations: Record<string, string> = {};
  if (b.skipRange !== undefined) annotations['olm.skipRange'] = b.skipRange;
  if (b.substitutesFor !== undefined) annotations['olm.substitutesFor'] = b.substitutesFor;
  const owned = (b.owns ?? []).map((kind) => ({
    name: `${kind.toLowerCase()}s.${b.pkg}.example.com`,
    kind,
    version: 'v1',
    displayName: kind,
  }));
  const csv = {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name, namespace: 'placeholder', annotations },
    spec: {
      displayName: b.pkg,
      description: 'x'.repeat(b.descriptionBytes ?? 8),
      version: b.version,
      ...(b.replaces === undefined ? {} : { replaces: b.replaces }),
      ...(b.skips === undefined ? {} : { skips: b.skips }),
      ...(b.icon === undefined ? {} : { icon: [{ base64data: b.icon.data, mediatype: b.icon.mediatype }] }),
      ...(b.relatedImages === undefined ? {} : { relatedImages: b.relatedImages }),
      customresourcedefinitions: { owned, ...(b.requires === undefined ? {} : { required: b.requires }) },
      install: {
        strategy: 'deployment',
        spec: {
          deployments: [
            {
              name: `${b.pkg}-operator`,
              spec: {
                selector: { matchLabels: { app: b.pkg } },
                template: {
                  metadata: { labels: { app: b.pkg } },
                  spec: {
                    containers: [
                      { name: 'operator', image: `quay.io/example/${b.pkg}-operator:${b.tag ?? b.version}` },
                    ],
                  },
                },
              },
            },
          ],
        },
      },
      installModes: [{ type: 'AllNamespaces', supported: true }],
    },
  };
  writeFileSync(
    path.join(root, 'manifests', `${b.pkg}.clusterserviceversion.yaml`),
    JSON.stringify(csv, null, 2),
  );
  for (const kind of b.owns ?? []) {
    writeFileSync(
      path.join(root, 'manifests', `${kind.toLowerCase()}.crd.yaml`),
      JSON.stringify(crd(b.pkg, kind), null, 2),
    );
  }
  const lines = [
    'annotations:',
    '  operators.operatorframework.io.bundle.mediatype.v1: registry+v1',
    '  operators.operatorframework.io.bundle.manifests.v1: manifests/',
    '  operators.operatorframework.io.bundle.metadata.v1: metadata/',
    `  operators.operatorframework.io.bundle.package.v1: ${b.pkg}`,
    `  operators.operatorframework.io.bundle.channels.v1: ${b.channels.join(',')}`,
    ...(b.defaultChannel === undefined
      ? []
      : [`  operators.operatorframework.io.bundle.channel.default.v1: ${b.defaultChannel}`]),
  ];
  writeFileSync(path.join(root, 'metadata', 'annotations.yaml'), `${lines.join('\n')}\n`);
  if (b.dependencies !== undefined) {
    writeFileSync(
      path.join(root, 'metadata', 'dependencies.yaml'),
      JSON.stringify({ dependencies: b.dependencies }),
    );
  }
  if (b.properties !== undefined) {
    writeFileSync(
      path.join(root, 'metadata', 'properties.yaml'),
      JSON.stringify({ properties: b.properties }),
    );
  }
  return root;
}

/** The labels of a bundle image of `b` (the annotations, as `opm alpha bundle build` sets them). */
export function bundleLabels(b: BundleSpec): Record<string, string> {
  return {
    'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
    'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
    'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
    'operators.operatorframework.io.bundle.package.v1': b.pkg,
    'operators.operatorframework.io.bundle.channels.v1': b.channels.join(','),
    ...(b.defaultChannel === undefined
      ? {}
      : { 'operators.operatorframework.io.bundle.channel.default.v1': b.defaultChannel }),
  };
}
