/**
 * The community-bundles corpus as template-rendering cases: for each package with a template mapped
 * to OpenShift v4.21 (ci.yaml `fbc.catalog_mapping`), the template, the catalog it must reproduce,
 * and a bundle directory map pairing each bundle image of that catalog with its version's folder (the
 * folder whose CSV has the catalog bundle's name).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseYamlDocuments } from './yaml-documents.js';
import { corpusPath } from './corpus.js';

export interface TemplateCase {
  pkg: string;
  templateFile: string;
  templateType: string;
  catalogFile: string;
  /** image reference → bundle directory */
  bundleDirs: Map<string, string>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** image → bundle name of every olm.bundle blob in a catalog file. */
function catalogImageNames(catalogFile: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const { value } of parseYamlDocuments(readFileSync(catalogFile, 'utf8'))) {
    if (!isRecord(value) || value.schema !== 'olm.bundle') continue;
    if (typeof value.image === 'string' && typeof value.name === 'string') out.set(value.image, value.name);
  }
  return out;
}

/** CSV name → version folder, for every version folder of a package. */
function bundleFoldersByName(pkgDir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(pkgDir, { withFileTypes: true })) {
    const manifests = path.join(pkgDir, entry.name, 'manifests');
    if (!entry.isDirectory() || entry.name === 'catalog-templates') continue;
    let files: string[];
    try {
      files = readdirSync(manifests);
    } catch {
      continue;
    }
    for (const f of files) {
      const text = readFileSync(path.join(manifests, f), 'utf8');
      if (!text.includes('ClusterServiceVersion')) continue;
      const csv = parseYamlDocuments(text)[0]?.value;
      if (!isRecord(csv) || csv.kind !== 'ClusterServiceVersion' || !isRecord(csv.metadata)) continue;
      if (typeof csv.metadata.name === 'string') out.set(csv.metadata.name, path.join(pkgDir, entry.name));
    }
  }
  return out;
}

export function templateCases(catalogName = 'v4.21'): TemplateCase[] {
  const root = corpusPath('community-bundles');
  const cases: TemplateCase[] = [];
  for (const pkg of readdirSync(root).sort()) {
    const ci = parseYamlDocuments(readFileSync(path.join(root, pkg, 'ci.yaml'), 'utf8'))[0]?.value;
    const fbc = isRecord(ci) ? ci.fbc : undefined;
    const mappings = isRecord(fbc) && Array.isArray(fbc.catalog_mapping) ? fbc.catalog_mapping : [];
    const m = mappings.find(
      (x) => isRecord(x) && Array.isArray(x.catalog_names) && x.catalog_names.includes(catalogName),
    );
    if (!isRecord(m) || typeof m.template_name !== 'string') continue;
    const catalogFile = corpusPath(`community-catalog-${catalogName}`, pkg, 'catalog.yaml');
    const bundleDirs = new Map<string, string>();
    const folders = bundleFoldersByName(path.join(root, pkg));
    for (const [image, name] of catalogImageNames(catalogFile)) {
      const folder = folders.get(name);
      if (folder !== undefined) bundleDirs.set(image, folder);
    }
    cases.push({
      pkg,
      templateFile: path.join(root, pkg, 'catalog-templates', m.template_name),
      templateType: typeof m.type === 'string' ? m.type : '',
      catalogFile,
      bundleDirs,
    });
  }
  return cases;
}

/** Write the map as YAML into `dir` with paths relative to it (the form users write). */
export function writeBundleDirMap(dir: string, dirs: Map<string, string>): string {
  const file = path.join(dir, 'bundle-dirs.yaml');
  const lines = [...dirs].map(
    ([image, d]) => `${JSON.stringify(image)}: ${JSON.stringify(path.relative(dir, d))}`,
  );
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}
