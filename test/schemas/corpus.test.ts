// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
/**
 * The editor schemas over every real catalog and template of the corpus: each document of a
 * catalog file against catalog.json, each template against its template schema. Where a strict
 * schema rejects what opm accepts, `opm validate` must say so as a warning on the same blob, and
 * the catalog must still pass.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseYamlDocuments } from '../yaml-documents.js';
import { corpusPath, haveCorpus, projectRoot } from '../corpus.js';
import { YamlLanguageServer } from '../yaml-language-server.js';
import { schemasDir, unwarnedViolations, validatorOf } from './schema-files.js';

function catalogDirs(): string[] {
  const decl = corpusPath('opm-testdata', 'index-declcfgs');
  return [
    corpusPath('community-catalog-v4.21'),
    corpusPath('cool-catalog', 'catalog'),
    corpusPath('opm-testdata', 'list-index'),
    ...readdirSync(decl)
      .sort()
      .map((d) => path.join(decl, d)),
  ];
}

const TEMPLATE_SCHEMAS: Record<string, string> = {
  'olm.template.basic': 'olm.template.basic.json',
  'olm.semver': 'olm.semver.json',
  'olm.template.substitutes': 'olm.template.substitutes.json',
};

describe.runIf(haveCorpus())('the editor schemas over the corpus', () => {
  it('every document of every corpus catalog matches catalog.json, or validate warns where it does not', async () => {
    let total = 0;
    for (const dir of catalogDirs()) {
      const r = await unwarnedViolations(dir);
      total += r.docs;
      expect({ dir, passed: r.passed, unwarned: r.unwarned }).toEqual({ dir, passed: true, unwarned: [] });
    }
    // The catalogs hold hundreds of blobs: the check above did run over them.
    expect(total).toBeGreaterThan(800);
  });

  it('every corpus catalog template matches its template schema', () => {
    const root = corpusPath('community-bundles');
    const checked: string[] = [];
    const failures: { file: string; errors: string[] }[] = [];
    for (const pkg of readdirSync(root).sort()) {
      const dir = path.join(root, pkg, 'catalog-templates');
      let names: string[];
      try {
        names = readdirSync(dir).sort();
      } catch {
        continue;
      }
      for (const name of names) {
        const file = path.join(dir, name);
        const doc = parseYamlDocuments(readFileSync(file, 'utf8'))[0]?.value;
        const schema =
          typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? (doc.schema ?? doc.Schema) : undefined;
        const schemaFile = typeof schema === 'string' ? TEMPLATE_SCHEMAS[schema] : undefined;
        expect({ file, schemaFile }).toEqual({ file, schemaFile: expect.any(String) });
        const validate = validatorOf(schemaFile ?? '');
        checked.push(`${pkg}/${name}`);
        if (!validate(doc)) {
          failures.push({ file, errors: (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`) });
        }
      }
    }
    expect(failures).toEqual([]);
    expect(checked.length).toBeGreaterThan(10);
  });
});

/** The name under which the editor holds an edited copy of a file (the corpus stays untouched). */
const edited = (file: string): string => `${file}.edited.yaml`;

describe.runIf(haveCorpus())('a real catalog and template in the editor', () => {
  it('yaml-language-server accepts them as they are and flags a misspelt field in each', async () => {
    const catalog = corpusPath('community-catalog-v4.21', 'kube-green', 'catalog.yaml');
    const template = corpusPath('community-bundles', 'kube-green', 'catalog-templates', 'basic-template.yaml');
    const server = await YamlLanguageServer.start(projectRoot(), {
      validate: true,
      schemas: {
        [path.join(schemasDir, 'catalog.json')]: [catalog, edited(catalog)],
        [path.join(schemasDir, 'olm.template.basic.json')]: [template, edited(template)],
      },
    });
    try {
      for (const [file, field] of [
        [catalog, 'replaces:'],
        [template, 'defaultChannel:'],
      ] as const) {
        const text = readFileSync(file, 'utf8');
        expect(await server.open(file, text)).toEqual([]);
        const line = text.split('\n').findIndex((l) => l.includes(field));
        expect(line).toBeGreaterThanOrEqual(0);
        // The same file, edited: the field on that line loses a letter.
        const lines = text.split('\n');
        lines[line] = (lines[line] ?? '').replace(field, field.slice(0, 3) + field.slice(4));
        const diagnostics = await server.open(edited(file), lines.join('\n'));
        expect(diagnostics.filter((d) => d.range.start.line === line).map((d) => d.message)).toContainEqual(
          expect.stringMatching(/not allowed/),
        );
      }
    } finally {
      await server.stop();
    }
  });
});
