/**
 * Seeded registry+v1 bundle directories for the differential test of `opm render <bundle dir>...`
 * (test/reference/bundle-dirs.test.ts): `manifests/` with a ClusterServiceVersion, CRDs and other
 * objects, as YAML (with the comments of yaml-comment-docs.ts everywhere) and as JSON files;
 * `metadata/annotations.yaml` with comments, package, channels and default channel; sometimes
 * `metadata/properties.yaml` and `dependencies.yaml` whose values are generated YAML. A directory
 * may be broken on purpose in one of the ways of `Breakage`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { commentedYaml, finishText, type CommentedYaml } from './yaml-comment-docs.js';

/**
 * What is wrong with a directory: nothing; a manifest that is no YAML (opm skips it, opm-ts refuses
 * the bundle: row 4 of docs/compatibility.md); a key written twice (both render it, opm-ts warns);
 * a manifest of several documents or an `olm.properties` annotation that is not JSON (the same,
 * row 5); no annotations file (both fail).
 */
export type Breakage =
  | 'none'
  | 'broken-manifest'
  | 'duplicate-key'
  | 'several-documents'
  | 'properties-not-json'
  | 'no-annotations';

const sp = (n: number): string => ' '.repeat(n);

interface Crd {
  group: string;
  plural: string;
  kind: string;
  versions: string[];
}

/** Lines of a YAML file, each entry with comment lines before it and now and then one after it. */
class Writer {
  text = '';
  private readonly y: CommentedYaml;
  constructor(y: CommentedYaml) {
    this.y = y;
  }
  /** `key: value` at `indent`. */
  entry(indent: number, key: string, value: string): this {
    this.text += `${this.y.lines(indent)}${sp(indent)}${key}: ${value}${this.y.after()}\n`;
    return this;
  }
  /** `key:` opening a nested block at `indent`. */
  open(indent: number, key: string): this {
    this.text += `${this.y.lines(indent)}${sp(indent)}${key}:${this.y.after(0.3)}\n`;
    return this;
  }
  /** `- key: value` at `indent` (the item's other entries at indent + 2). */
  item(indent: number, key: string, value: string): this {
    this.text += `${this.y.lines(indent)}${sp(indent)}- ${key}: ${value}${this.y.after()}\n`;
    return this;
  }
  /** `key:` followed by a generated value (scalar, block scalar, flow or nested block). */
  generated(indent: number, key: string): this {
    this.text += `${this.y.lines(indent)}${sp(indent)}${key}:${this.y.value(indent, 1)}`;
    return this;
  }
  /** Raw text. */
  raw(text: string): this {
    this.text += text;
    return this;
  }
  /** The text with trailing comment lines, CRLF and no final newline now and then. */
  done(): string {
    return finishText(this.text + this.y.lines(0, 0.3), this.y.rnd);
  }
}

// `olm.properties` annotations: JSON lists of {type, value} written as YAML strings.
const OLM_PROPERTIES = [
  `'[{"type": "olm.maxOpenShiftVersion", "value": "4.15"}]'`,
  `'[{"type":"com.example.flag","value": {"on" : true, "html": "<b>"}}]'`,
  `"[{\\"type\\": \\"com.example.n\\", \\"value\\": 1.50}]"`,
];

function csvYaml(
  y: CommentedYaml,
  name: string,
  version: string,
  crds: Crd[],
  duplicate: boolean,
  notJson: boolean,
): string {
  const w = new Writer(y);
  w.raw(y.lines(0, 0.5));
  w.entry(0, 'apiVersion', 'operators.coreos.com/v1alpha1').entry(0, 'kind', 'ClusterServiceVersion');
  // A key written twice at the top: go-yaml keeps the last value.
  if (duplicate) w.entry(0, 'kind', 'ClusterServiceVersion');
  w.open(0, 'metadata').entry(2, 'name', name).open(2, 'annotations');
  w.entry(4, 'olm.skipRange', y.pick([`'>=0.0.1 <${version}'`, `">=0.0.1 <${version}"`]));
  w.entry(4, 'capabilities', y.pick(['Basic Install', "'Seamless Upgrades'", 'a#b']));
  if (y.rnd() < 0.5) w.entry(4, 'example.com/note', y.pick(["'# not a comment'", '"a # b"', 'a#b']));
  // Properties of the CSV's own, as JSON text inside a YAML string.
  if (notJson) w.entry(4, 'olm.properties', "'not json # at all'");
  else if (y.rnd() < 0.3) w.entry(4, 'olm.properties', y.pick(OLM_PROPERTIES));
  w.open(0, 'spec').entry(2, 'version', y.pick([version, `'${version}'`, `"${version}"`]));
  if (y.rnd() < 0.2) w.entry(2, 'release', y.pick(['2', "'rc.1'", '1.5', '"0"']));
  w.entry(2, 'displayName', y.pick(['Demo #1', "'Demo # 2'", 'Demo']));
  w.raw(`${y.lines(2)}  description:${y.rnd() < 0.7 ? y.blockScalar(2) : ` ${y.scalar()}\n`}`);
  if (crds.length > 0) {
    w.open(2, 'customresourcedefinitions').open(4, 'owned');
    for (const c of crds) {
      const v = c.versions[0] ?? 'v1';
      w.item(6, 'name', `${c.plural}.${c.group}`).entry(8, 'version', v).entry(8, 'kind', c.kind);
    }
  }
  w.open(2, 'install').entry(4, 'strategy', 'deployment').open(4, 'spec').open(6, 'deployments');
  w.item(8, 'name', 'operator').open(10, 'spec').open(12, 'template').open(14, 'spec').open(16, 'containers');
  w.item(18, 'name', 'manager').entry(20, 'image', `quay.io/demo/${name}:${version}`);
  if (y.rnd() < 0.5) w.item(18, 'name', 'sidecar').entry(20, 'image', 'quay.io/demo/sidecar@sha256:0a1b');
  if (y.rnd() < 0.6) {
    w.open(2, 'relatedImages');
    w.item(4, 'name', y.pick(['a#b', "'# named'", 'plain'])).entry(6, 'image', 'quay.io/demo/related:1');
  }
  w.generated(2, 'extra');
  return w.done();
}

function crdYaml(y: CommentedYaml, c: Crd, duplicate: boolean): string {
  const w = new Writer(y);
  w.raw(y.lines(0, 0.5));
  w.entry(0, 'apiVersion', 'apiextensions.k8s.io/v1').entry(0, 'kind', 'CustomResourceDefinition');
  w.open(0, 'metadata').entry(2, 'name', `${c.plural}.${c.group}`);
  w.open(0, 'spec').entry(2, 'group', c.group).entry(2, 'scope', 'Namespaced');
  w.open(2, 'names').entry(4, 'kind', c.kind).entry(4, 'plural', c.plural);
  w.open(2, 'versions');
  c.versions.forEach((v, i) => {
    w.item(4, 'name', v)
      .entry(6, 'served', y.pick(['true', 'yes', 'false']))
      .entry(6, 'storage', String(i === 0));
    // A nested key written twice, as in some released CRDs.
    if (duplicate && i === 0) w.open(6, 'subresources').entry(8, 'status', '{}');
    if (y.rnd() < 0.5 || (duplicate && i === 0)) w.open(6, 'subresources').entry(8, 'status', '{}');
    w.open(6, 'schema').open(8, 'openAPIV3Schema');
    schemaProps(w, y, 10, 0);
  });
  return w.done();
}

// Property names of a CRD's schema, some holding `#` or `: `.
const SCHEMA_KEYS = ['spec', 'size', 'a#b', '"# quoted"', "'a: b'", 'image', 'é'];

/**
 * A JSON schema of the right shape (opm decodes a CRD into Kubernetes' types and fails on a value of
 * another type anywhere in it): types, string descriptions, nested properties.
 */
function schemaProps(w: Writer, y: CommentedYaml, indent: number, depth: number): void {
  w.entry(indent, 'type', 'object');
  w.raw(`${y.lines(indent)}${sp(indent)}description:${y.text(indent)}`);
  w.open(indent, 'properties');
  const keys = new Set(Array.from({ length: 1 + Math.floor(y.rnd() * 3) }, () => y.pick(SCHEMA_KEYS)));
  for (const k of keys) {
    w.open(indent + 2, k);
    if (depth < 2 && y.rnd() < 0.4) schemaProps(w, y, indent + 4, depth + 1);
    else {
      w.entry(indent + 4, 'type', y.pick(['string', 'integer', 'boolean', "'string'"]));
      if (y.rnd() < 0.5) w.raw(`${y.lines(indent + 4)}${sp(indent + 4)}description:${y.text(indent + 4)}`);
    }
  }
}

/** A CSV written as JSON: its name, version, owned CRDs and an operator image. */
function csvJson(y: CommentedYaml, name: string, version: string, crds: Crd[]): string {
  const obj = {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name, annotations: { 'olm.skipRange': `<${version}`, note: '# <not> a comment' } },
    spec: {
      version,
      description: 'line one\n# line two\n',
      customresourcedefinitions: {
        owned: crds.map((c) => ({ name: `${c.plural}.${c.group}`, version: c.versions[0], kind: c.kind })),
      },
      install: {
        strategy: 'deployment',
        spec: {
          deployments: [
            {
              name: 'operator',
              spec: {
                template: { spec: { containers: [{ name: 'm', image: `quay.io/demo/${name}:${version}` }] } },
              },
            },
          ],
        },
      },
      relatedImages: [{ name: 'related', image: 'quay.io/demo/related:1' }],
    },
  };
  return JSON.stringify(obj, null, y.pick([0, 2, 4]));
}

function crdJson(y: CommentedYaml, c: Crd): string {
  const obj = {
    apiVersion: 'apiextensions.k8s.io/v1beta1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${c.plural}.${c.group}` },
    spec: {
      group: c.group,
      version: c.versions[0],
      names: { kind: c.kind, plural: c.plural },
      versions: c.versions.map((v) => ({ name: v, served: true, storage: v === c.versions[0] })),
      validation: { openAPIV3Schema: { description: 'a <b> & "c" # d', type: 'object', maximum: 1.5e3 } },
    },
  };
  return JSON.stringify(obj, null, y.pick([0, 2, '\t']));
}

function otherYaml(y: CommentedYaml, i: number, duplicate: boolean): string {
  const w = new Writer(y);
  w.raw(y.lines(0, 0.5));
  w.entry(0, 'apiVersion', 'v1').entry(0, 'kind', y.pick(['ConfigMap', 'Secret', 'Service']));
  w.open(0, 'metadata').entry(2, 'name', `other-${i}`);
  if (duplicate) w.entry(2, 'name', `other-${i}-again`);
  if (y.rnd() < 0.5) w.open(2, 'labels').entry(4, 'app', y.pick(['a#b', "'x # y'", 'demo']));
  w.generated(0, 'data');
  return w.done();
}

function otherJson(y: CommentedYaml, i: number): string {
  const obj = {
    kind: 'Role',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    metadata: { name: `role-${i}`, annotations: { note: '# not a comment', html: '<&>' } },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
  };
  return JSON.stringify(obj, null, y.pick([0, 2, 4]));
}

function annotationsYaml(y: CommentedYaml, pkg: string): string {
  const w = new Writer(y);
  w.raw(y.lines(0, 0.6));
  w.open(0, 'annotations');
  const prefix = 'operators.operatorframework.io.bundle';
  w.entry(2, `${prefix}.mediatype.v1`, 'registry+v1');
  w.entry(2, `${prefix}.manifests.v1`, 'manifests/');
  w.entry(2, `${prefix}.metadata.v1`, 'metadata/');
  w.entry(2, `${prefix}.package.v1`, y.pick([pkg, `'${pkg}'`, `"${pkg}"`]));
  w.entry(2, `${prefix}.channels.v1`, y.pick(['stable', 'stable,fast', "'alpha, beta'"]));
  if (y.rnd() < 0.7) w.entry(2, `${prefix}.channel.default.v1`, 'stable');
  return w.done();
}

function propertiesYaml(y: CommentedYaml): string {
  const w = new Writer(y);
  w.raw(y.lines(0, 0.5)).open(0, 'properties');
  w.item(2, 'type', 'olm.maxOpenShiftVersion').entry(4, 'value', y.pick(['"4.15"', "'4.16'", '4.17']));
  for (let i = 0; i < 2; i++) w.item(2, 'type', `com.example.p${i}`).generated(4, 'value');
  return w.done();
}

function dependenciesYaml(y: CommentedYaml): string {
  const w = new Writer(y);
  w.raw(y.lines(0, 0.5)).open(0, 'dependencies');
  w.item(2, 'type', 'olm.package').open(4, 'value');
  w.entry(6, 'packageName', 'base').entry(6, 'version', y.pick(['">=1.0.0 <2.0.0"', "'>=0.1.0'", '1.2.3']));
  w.item(2, 'type', 'olm.gvk').open(4, 'value');
  w.entry(6, 'group', 'dep.io').entry(6, 'kind', 'Dep').entry(6, 'version', 'v1');
  if (y.rnd() < 0.5) w.item(2, 'type', 'olm.label').open(4, 'value').entry(6, 'label', "'needs-<x>'");
  return w.done();
}

/**
 * Write bundle directory `index` of `seed` under `root` (package `pkg`, version 0.`index`.0) and
 * return its path. The same arguments write the same files.
 */
export function writeFuzzBundleDir(
  root: string,
  seed: number,
  index: number,
  pkg: string,
  breakage: Breakage,
): string {
  const y = commentedYaml(seed * 16 + index);
  const dir = path.join(root, `${pkg}-${index}`);
  const manifests = path.join(dir, 'manifests');
  const metadata = path.join(dir, 'metadata');
  mkdirSync(manifests, { recursive: true });
  mkdirSync(metadata, { recursive: true });
  const version = `0.${index}.${Math.floor(y.rnd() * 3)}`;
  const name = `${pkg}.v${version}`;
  const crds: Crd[] = Array.from({ length: Math.floor(y.rnd() * 3) }, (_, i) => ({
    group: y.pick(['example.com', 'demo.io', 'a.b.c']),
    plural: `widget${i}s`,
    kind: `Widget${i}`,
    versions: y.rnd() < 0.5 ? ['v1'] : ['v1', 'v1alpha1'],
  }));
  const duplicateIn = breakage === 'duplicate-key' ? y.pick(['csv', 'crd', 'other']) : '';
  const csvFile = y.pick(['csv.yaml', `${pkg}.clusterserviceversion.yaml`, 'x.yml']);
  const duplicateCsv = duplicateIn === 'csv' || (duplicateIn === 'crd' && crds.length === 0);
  const notJson = breakage === 'properties-not-json';
  if (!duplicateCsv && !notJson && y.rnd() < 0.15)
    writeFileSync(path.join(manifests, 'csv.json'), csvJson(y, name, version, crds));
  else writeFileSync(path.join(manifests, csvFile), csvYaml(y, name, version, crds, duplicateCsv, notJson));
  // What a bundle reader passes over: a hidden file and a folder.
  if (y.rnd() < 0.2) writeFileSync(path.join(manifests, '.hidden.yaml'), 'kind: [not read\n');
  if (y.rnd() < 0.2) mkdirSync(path.join(manifests, 'extra.yaml'), { recursive: true });
  crds.forEach((c, i) => {
    const json = y.rnd() < 0.3;
    writeFileSync(
      path.join(manifests, `${c.plural}.${c.group}.crd.${json ? 'json' : 'yaml'}`),
      json ? crdJson(y, c) : crdYaml(y, c, duplicateIn === 'crd' && i === 0),
    );
  });
  const others = Math.floor(y.rnd() * 3) + (duplicateIn === 'other' ? 1 : 0);
  for (let i = 0; i < others; i++) {
    const json = y.rnd() < 0.3 && !(duplicateIn === 'other' && i === 0);
    writeFileSync(
      path.join(manifests, `other-${i}.${json ? 'json' : 'yaml'}`),
      json ? otherJson(y, i) : otherYaml(y, i, duplicateIn === 'other' && i === 0),
    );
  }
  if (breakage === 'broken-manifest') {
    writeFileSync(path.join(manifests, 'zz-broken.yaml'), 'kind: ConfigMap\nmetadata: [unclosed # c\n');
  }
  if (breakage === 'several-documents') {
    writeFileSync(
      path.join(manifests, 'two-docs.yaml'),
      '# two documents\nkind: ConfigMap\nmetadata:\n  name: first\n---\nkind: ConfigMap\nmetadata:\n  name: second\n',
    );
  }
  if (breakage === 'no-annotations') {
    writeFileSync(path.join(metadata, 'notes.yaml'), '# no annotations here\nnotes: a#b # c\n');
  } else {
    if (y.rnd() < 0.15) {
      const a = {
        annotations: {
          'operators.operatorframework.io.bundle.package.v1': pkg,
          'operators.operatorframework.io.bundle.channels.v1': 'stable',
        },
      };
      writeFileSync(path.join(metadata, 'annotations.json'), JSON.stringify(a, null, 2));
    } else {
      writeFileSync(
        path.join(metadata, y.pick(['annotations.yaml', 'annotations.yml'])),
        annotationsYaml(y, pkg),
      );
    }
  }
  if (y.rnd() < 0.4) writeFileSync(path.join(metadata, 'properties.yaml'), propertiesYaml(y));
  if (y.rnd() < 0.3) writeFileSync(path.join(metadata, 'dependencies.yaml'), dependenciesYaml(y));
  return dir;
}
