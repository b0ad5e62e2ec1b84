/** Every schema file of schemas/ compiled together with ajv, as a generic JSON Schema tool would. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { validateCatalog } from '../../src/action/validate/validate.js';
import { walkCatalogDirSync } from '../../src/declcfg/load-walk.js';
import { parseCatalogText } from '../../src/declcfg/parse.js';
import { projectRoot } from '../corpus.js';

export const schemasDir = path.join(projectRoot(), 'schemas');

export function schemaFileNames(): string[] {
  return readdirSync(schemasDir)
    .filter((f) => f.endsWith('.json'))
    .sort();
}

export function readSchema(file: string): unknown {
  return JSON.parse(readFileSync(path.join(schemasDir, file), 'utf8'));
}

let ajv: Ajv | undefined;

/** The validator of one schema file, by file name (its $id). */
export function validatorOf(file: string): ValidateFunction {
  if (ajv === undefined) {
    ajv = new Ajv({ allErrors: true, strict: false });
    for (const f of schemaFileNames()) {
      const s = readSchema(f);
      if (typeof s === 'object' && s !== null) ajv.addSchema(s);
    }
  }
  const v = ajv.getSchema(file);
  if (v === undefined) throw new Error(`no schema ${file}`);
  return v;
}

export interface Violation {
  file: string;
  line: number;
  errors: string[];
}

export function catalogViolations(dir: string): { docs: number; violations: Violation[] } {
  const validate = validatorOf('catalog.json');
  const { files } = walkCatalogDirSync(dir);
  const violations: Violation[] = [];
  let docs = 0;
  for (const f of files) {
    for (const blob of parseCatalogText(readFileSync(f.abs, 'utf8')).blobs) {
      docs++;
      if (validate(blob.value)) continue;
      const errors = (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? e.keyword}`);
      violations.push({ file: f.rel, line: blob.line, errors });
    }
  }
  return { docs, violations };
}

/**
 * The blobs of a catalog directory that catalog.json rejects but `opm validate` does not warn about
 * (no warning on the blob's line), with the number of blobs checked and whether validate passed.
 */
export async function unwarnedViolations(
  dir: string,
): Promise<{ docs: number; passed: boolean; violations: Violation[]; unwarned: Violation[] }> {
  const { docs, violations } = catalogViolations(dir);
  const result = await validateCatalog(dir);
  const warned = new Set(
    result.findings.filter((f) => f.severity === 'warning').map((f) => `${f.file ?? ''}:${f.line ?? 0}`),
  );
  const unwarned = violations.filter((v) => !warned.has(`${v.file}:${v.line}`));
  return { docs, passed: result.passed, violations, unwarned };
}
