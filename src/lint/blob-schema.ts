/**
 * `blob.schema-misspelt`: a blob whose schema is a near miss of one opm reads (`olm.chanel`,
 * `OLM.Bundle`). opm keeps such a blob as one of an unknown schema and reads nothing from it, so a
 * misspelt channel shows only as its bundles being in no channel; this names the schema meant.
 */
import type { Meta } from '../declcfg/types.js';
import type { Finding } from '../findings.js';
import { finding } from './context.js';
import { editDistance } from './metadata.js';

/** The schemas opm decodes into its types. */
const KNOWN_SCHEMAS = ['olm.package', 'olm.channel', 'olm.bundle', 'olm.deprecations'] as const;

/** The known schema `schema` was probably meant as: the same but for letter case, or two edits away. */
export function intendedSchema(schema: string): string | undefined {
  const lower = schema.toLowerCase();
  const byCase = KNOWN_SCHEMAS.find((k) => k === lower);
  if (byCase !== undefined) return byCase;
  return KNOWN_SCHEMAS.find((k) => editDistance(lower, k, 2) <= 2);
}

export function blobSchemaFindings(blobs: readonly Meta[]): Finding[] {
  const out: Finding[] = [];
  for (const m of blobs) {
    const meant = intendedSchema(m.schema);
    if (meant === undefined) continue;
    out.push(
      finding(
        'blob.schema-misspelt',
        `schema ${JSON.stringify(m.schema)} is not one opm reads; did you mean ${JSON.stringify(meant)}? (opm ignores this blob)`,
        { loc: m.loc, package: m.package },
      ),
    );
  }
  return out;
}
