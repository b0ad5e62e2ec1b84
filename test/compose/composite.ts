// The corpus composite of `opm compose`'s differential test and benchmark: every package of the
// corpus catalog (community-catalog-v4.21) as a catalog image of its own, and the newest bundle
// directory of each package of community-bundles as a bundle image, pushed to a registry on
// 127.0.0.1; and the catalog files of the documentation's shape that name them. The corpus is read in
// place.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BUNDLE_LABELS, CATALOG_LABELS, buildImage, pushImage } from '../registry/image-builder.js';
import { corpusPath, projectRoot } from '../corpus.js';

export interface Composite {
  /** The catalog images, one per package (`<host>/catalogs/<package>:v1`), by reference name. */
  catalogs: Array<{ name: string; image: string }>;
  /** The bundle images (`<host>/bundles/<package>:<version>`), by reference name. */
  bundles: Array<{ name: string; image: string }>;
}

const byVersion = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true });

/** Build the composite's images from the corpus and push them to the registry at `url` (`host`). */
export async function pushComposite(url: string, host: string): Promise<Composite> {
  const catalogRoot = corpusPath('community-catalog-v4.21');
  const catalogs: Composite['catalogs'] = [];
  for (const pkg of readdirSync(catalogRoot).sort()) {
    const image = await buildImage({
      layers: [{ dir: path.join(catalogRoot, pkg), prefix: `configs/${pkg}` }],
      labels: CATALOG_LABELS,
    });
    await pushImage(image, { url, repo: `catalogs/${pkg}`, tag: 'v1' });
    catalogs.push({ name: pkg, image: `${host}/catalogs/${pkg}:v1` });
  }
  const bundleRoot = corpusPath('community-bundles');
  const bundles: Composite['bundles'] = [];
  for (const pkg of readdirSync(bundleRoot).sort()) {
    const versions = readdirSync(path.join(bundleRoot, pkg))
      .filter((v) => existsSync(path.join(bundleRoot, pkg, v, 'manifests')))
      .sort(byVersion);
    const newest = versions[versions.length - 1];
    if (newest === undefined) continue;
    const image = await buildImage({
      layers: [{ dir: path.join(bundleRoot, pkg, newest) }],
      labels: BUNDLE_LABELS(pkg),
    });
    await pushImage(image, { url, repo: `bundles/${pkg}`, tag: newest });
    bundles.push({ name: `${pkg}-bundle`, image: `${host}/bundles/${pkg}:${newest}` });
  }
  return { catalogs, bundles };
}

/** A catalog file as the documentation writes it, naming `references`. */
export function writeCatalogFile(
  file: string,
  name: string,
  references: ReadonlyArray<{ name: string; image: string }>,
): void {
  const lines = [`name: ${name}`, `repo: quay.io/example/${name}`, 'tag: latest', 'references:'];
  for (const r of references) lines.push(`- name: ${r.name}`, `  image: ${r.image}`);
  writeFileSync(file, lines.join('\n') + '\n');
}

/** The documentation's script, test/compose/docs-script.sh (found from the project root, so bundled benchmarks find it too). */
export const DOCS_SCRIPT = path.join(projectRoot(), 'test', 'compose', 'docs-script.sh');
