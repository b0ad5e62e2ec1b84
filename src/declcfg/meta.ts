/**
 * A blob's meta as opm's declcfg.Meta reads it: its `schema`, `package` and `name`, whose keys Go's
 * decoder matches under its case folding (`SCHEMA`, `ſchema` and `pac\u212Aage` count), and opm's
 * check that a custom schema's names can be keys of its serve cache.
 */
import { goQuote } from '../go/fmt.js';
import { goFold } from '../go/json-decode.js';

export interface MetaFields {
  schema: string;
  package: string;
  name: string;
}

/**
 * The schema, package and name of a decoded blob. A key that folds to one of them fills it, a later
 * key overwriting an earlier one (Go's rule); a value that is not a string is no value.
 */
export function metaFields(value: Readonly<Record<string, unknown>>): MetaFields {
  const out: MetaFields = { schema: '', package: '', name: '' };
  for (const key of Object.keys(value)) {
    const folded = goFold(key);
    if (folded !== 'schema' && folded !== 'package' && folded !== 'name') continue;
    const v = value[key];
    if (typeof v === 'string') out[folded] = v;
  }
  return out;
}

const META_KEY_PART = /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/;

/**
 * opm's check of a custom-schema blob's schema and package, which name its serve-cache key (and
 * the ExperimentalRegistry query): the problem in opm's words (without their prefix), else undefined.
 */
export function metaKeyProblem(schema: string, packageName: string): string | undefined {
  const check = (what: string, value: string): string | undefined => {
    if (value === '') return `invalid ${what}: must not be empty`;
    if (!META_KEY_PART.test(value))
      return `invalid ${what} ${goQuote(value)}: must match ${META_KEY_PART.source}`;
    return undefined;
  };
  return check('schema', schema) ?? (packageName === '' ? undefined : check('packageName', packageName));
}
