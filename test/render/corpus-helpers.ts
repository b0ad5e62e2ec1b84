import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parseYamlDocuments } from '../yaml-documents.js';
import type { JsonObject, JsonValue } from '../../src/go/json-value.js';
import { corpusPath } from '../corpus.js';

export interface CorpusBundleDir {
  pkg: string;
  version: string;
  dir: string;
}

/** Every bundle directory (manifests/ + metadata/) of corpus/community-bundles. */
export function communityBundleDirs(): CorpusBundleDir[] {
  const root = corpusPath('community-bundles');
  const out: CorpusBundleDir[] = [];
  for (const pkg of readdirSync(root).sort()) {
    const pdir = path.join(root, pkg);
    if (!statSync(pdir).isDirectory()) continue;
    for (const version of readdirSync(pdir).sort()) {
      const dir = path.join(pdir, version);
      if (existsSync(path.join(dir, 'manifests')) && existsSync(path.join(dir, 'metadata'))) {
        out.push({ pkg, version, dir });
      }
    }
  }
  return out;
}

function isObj(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The olm.bundle blobs of a package of corpus/community-catalog-v4.21, by bundle name, with their YAML text. */
export function catalogBundles(pkg: string): Map<string, { blob: JsonObject; yaml: string }> {
  const file = corpusPath('community-catalog-v4.21', pkg, 'catalog.yaml');
  const out = new Map<string, { blob: JsonObject; yaml: string }>();
  if (!existsSync(file)) return out;
  const text = readFileSync(file, 'utf8');
  // Each document opm writes starts with its own `---` line.
  const texts = text
    .split(/^---\n/m)
    .filter((t) => t.trim() !== '')
    .map((t) => '---\n' + t);
  const docs = parseYamlDocuments(text);
  docs.forEach((d, i) => {
    const blob = d.value;
    if (isObj(blob) && blob.schema === 'olm.bundle' && typeof blob.name === 'string') {
      out.set(blob.name, { blob, yaml: texts[i] ?? '' });
    }
  });
  return out;
}
