/**
 * A small FBC directory reader for validate tests: YAML documents split on `---` lines, each blob
 * located at its first non-blank line. Enough for the hand-written fixtures.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import yaml from 'js-yaml';
import type { CatalogLoader } from '../../src/action/validate.js';
import { emptyConfig, type JsonObject, type Location } from '../../src/declcfg/types.js';
import type { Finding } from '../../src/findings.js';
import { isJsonObject, isJsonValue } from '../../src/property/property.js';

async function walk(root: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of (await readdir(path.join(root, rel), { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    const r = rel === '' ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) out.push(...(await walk(root, r)));
    else out.push(r);
  }
  return out;
}

const str = (o: JsonObject, k: string): string => {
  const v = o[k];
  return typeof v === 'string' ? v : '';
};

export const simpleLoader: CatalogLoader = async (dir) => {
  const cfg = emptyConfig();
  const findings: Finding[] = [];
  for (const file of await walk(dir)) {
    const lines = (await readFile(path.join(dir, file), 'utf8')).split('\n');
    let start = 0;
    const docs: { text: string; line: number }[] = [];
    for (let i = 0; i <= lines.length; i++) {
      if (i === lines.length || (lines[i] ?? '').startsWith('---')) {
        const chunk = lines.slice(start, i);
        const first = chunk.findIndex((l) => l.trim() !== '' && !l.startsWith('#'));
        if (first !== -1) docs.push({ text: chunk.join('\n'), line: start + first + 1 });
        start = i + 1;
      }
    }
    for (const d of docs) {
      const loc: Location = { file, line: d.line };
      let v: unknown;
      try {
        v = yaml.load(d.text, { schema: yaml.CORE_SCHEMA, json: true });
      } catch (e) {
        findings.push({ rule: 'parse.yaml', severity: 'error', message: String(e), file, line: d.line });
        continue;
      }
      if (!isJsonValue(v) || !isJsonObject(v)) continue;
      const props = Array.isArray(v.properties)
        ? v.properties.filter(isJsonObject).map((p) => ({ type: str(p, 'type'), value: p.value ?? null }))
        : undefined;
      switch (v.schema) {
        case 'olm.package':
          cfg.packages.push({
            schema: 'olm.package',
            name: str(v, 'name'),
            defaultChannel: str(v, 'defaultChannel'),
            ...(isJsonObject(v.icon)
              ? { icon: { base64data: str(v.icon, 'base64data'), mediatype: str(v.icon, 'mediatype') } }
              : {}),
            loc,
          });
          break;
        case 'olm.channel':
          cfg.channels.push({
            schema: 'olm.channel',
            name: str(v, 'name'),
            package: str(v, 'package'),
            entries: Array.isArray(v.entries)
              ? v.entries.filter(isJsonObject).map((e) => ({
                  name: str(e, 'name'),
                  ...(typeof e.replaces === 'string' ? { replaces: e.replaces } : {}),
                  ...(Array.isArray(e.skips)
                    ? { skips: e.skips.map((s) => (typeof s === 'string' ? s : '')) }
                    : {}),
                  ...(typeof e.skipRange === 'string' ? { skipRange: e.skipRange } : {}),
                }))
              : null,
            loc,
          });
          break;
        case 'olm.bundle':
          cfg.bundles.push({
            schema: 'olm.bundle',
            name: str(v, 'name'),
            package: str(v, 'package'),
            image: str(v, 'image'),
            ...(props ? { properties: props } : {}),
            ...(Array.isArray(v.relatedImages)
              ? {
                  relatedImages: v.relatedImages
                    .filter(isJsonObject)
                    .map((r) => ({ name: str(r, 'name'), image: str(r, 'image') })),
                }
              : {}),
            loc,
          });
          break;
        case 'olm.deprecations':
          cfg.deprecations.push({
            schema: 'olm.deprecations',
            package: str(v, 'package'),
            entries: Array.isArray(v.entries)
              ? v.entries.filter(isJsonObject).map((e) => ({
                  reference: isJsonObject(e.reference)
                    ? {
                        schema: str(e.reference, 'schema'),
                        ...(typeof e.reference.name === 'string' ? { name: e.reference.name } : {}),
                      }
                    : { schema: '' },
                  message: str(e, 'message'),
                }))
              : [],
            loc,
          });
          break;
        default:
          cfg.others.push({
            schema: str(v, 'schema'),
            package: str(v, 'package'),
            name: str(v, 'name'),
            blob: v,
            loc,
          });
      }
    }
  }
  return { cfg, findings };
};
