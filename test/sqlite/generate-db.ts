// A large index database for measurements: `packages` packages of `perPackage` bundles each, with
// their manifests (a CSV with an icon, related images and padding, and two CRDs), the rows
// `registry add` writes (replaces chains in two channels, properties, related images), made with
// the sqlite3 command line in one transaction.
import { schemaSql, sqlite3 } from './index-db.js';

const q = (s: string): string => `'${s.replaceAll("'", "''")}'`;

function crd(pkg: string, kind: string): Record<string, unknown> {
  const group = `${pkg}.example.com`;
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind, plural },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', description: 'y'.repeat(1500) } },
        },
      ],
    },
  };
}

export function generateIndexDb(file: string, packages: number, perPackage: number): void {
  const sql: string[] = [schemaSql(13), 'BEGIN;'];
  let entry = 1;
  for (let p = 0; p < packages; p++) {
    const pkg = `pkg-${String(p).padStart(4, '0')}`;
    const names = Array.from({ length: perPackage }, (_, i) => `${pkg}.v1.${i}.0`);
    sql.push(`INSERT INTO package VALUES (${q(pkg)}, 'stable');`);
    for (const [ch, from] of [
      ['stable', 0],
      ['fast', Math.floor(perPackage / 2)],
    ] as const) {
      sql.push(`INSERT INTO channel VALUES (${q(ch)}, ${q(pkg)}, ${q(names[perPackage - 1] as string)});`);
      const ids = names.slice(from).map(() => entry++);
      names.slice(from).forEach((n, i) => {
        const depth = ids.length - 1 - i;
        const replaces = i === 0 ? 'NULL' : String(ids[i - 1]);
        sql.push(
          `INSERT INTO channel_entry VALUES (${ids[i]}, ${q(ch)}, ${q(pkg)}, ${q(n)}, ${replaces}, ${depth});`,
        );
      });
    }
    names.forEach((name, i) => {
      const version = `1.${i}.0`;
      const image = `quay.io/example/${pkg}-bundle:${version}`;
      const csv = {
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'ClusterServiceVersion',
        metadata: { name, namespace: 'placeholder', annotations: { 'olm.skipRange': `<${version}` } },
        spec: {
          version,
          description: 'x'.repeat(4000),
          icon: [{ base64data: Buffer.from(`icon of ${pkg}`).toString('base64'), mediatype: 'image/png' }],
          relatedImages: [{ name: 'operator', image: `quay.io/example/${pkg}:${version}` }],
          ...(i === 0 ? {} : { replaces: names[i - 1] }),
          customresourcedefinitions: {
            owned: [{ name: `things.${pkg}.example.com`, kind: 'Thing', version: 'v1' }],
          },
        },
      };
      const csvText = JSON.stringify(csv);
      const bundle = csvText + JSON.stringify(crd(pkg, 'Thing')) + JSON.stringify(crd(pkg, 'Other'));
      sql.push(
        `INSERT INTO operatorbundle VALUES (${q(name)}, ${q(csvText)}, ${q(bundle)}, ${q(image)}, ${q(`<${version}`)}, ${q(version)}, ${q(i === 0 ? '' : (names[i - 1] as string))}, '', NULL);`,
        `INSERT INTO properties VALUES ('olm.package', ${q(JSON.stringify({ packageName: pkg, version }))}, ${q(name)}, ${q(version)}, ${q(image)});`,
        `INSERT INTO properties VALUES ('olm.gvk', ${q(JSON.stringify({ group: `${pkg}.example.com`, kind: 'Thing', version: 'v1' }))}, ${q(name)}, ${q(version)}, ${q(image)});`,
        `INSERT INTO related_image VALUES (${q(`quay.io/example/${pkg}:${version}`)}, ${q(name)});`,
        `INSERT INTO related_image VALUES (${q(image)}, ${q(name)});`,
      );
    });
  }
  sql.push('COMMIT;');
  sqlite3(file, sql.join('\n'));
}
