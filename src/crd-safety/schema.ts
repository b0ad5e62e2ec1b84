/**
 * A CRD version's OpenAPI schema as the API server holds it (apiextensions.k8s.io/v1
 * JSONSchemaProps, decoded by Go): unknown keys gone, zero values and absent ones alike except for
 * the fields Go keeps as pointers, raw JSON (defaults, enums, examples) as Go re-encodes it. The
 * upgrade checks compare schemas in this form, so that `required: []` and no `required` are one
 * thing, as they are to the cluster, while `x-kubernetes-list-type: ""` and none are not.
 */
import { compareUtf8 } from '../go/utf8.js';
import { marshal } from '../go/json-encode.js';
import { isRecord } from '../go/json-value.js';

/** A schema in normal form: only set fields, in Go's sense; nested schemas normalised too. */
export type Schema = Record<string, unknown>;

/** Fields that are plain Go strings: '' is the same as absent. */
const STRINGS = ['id', '$schema', 'description', 'type', 'format', 'title', 'pattern'];
/** Fields Go keeps as *string: '' is a value. */
const STRING_POINTERS = ['$ref', 'x-kubernetes-list-type', 'x-kubernetes-map-type'];
/** Plain Go bools: false is the same as absent. */
const BOOLS = [
  'exclusiveMaximum',
  'exclusiveMinimum',
  'uniqueItems',
  'nullable',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
];
/** *float64 and *int64 fields. */
const NUMBERS = [
  'maximum',
  'minimum',
  'multipleOf',
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'maxProperties',
  'minProperties',
];
const SCHEMA_LISTS = ['allOf', 'oneOf', 'anyOf'];
const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions'];
const STRING_LISTS = ['required', 'x-kubernetes-list-map-keys'];

/** Raw JSON as Go holds it after decoding a CRD: compact, keys sorted, HTML characters escaped. */
export function rawJson(v: unknown): string {
  return marshal(v);
}

function has(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** A value in normal form, or undefined when the schema has none (in Go's sense). */
export function normalizeSchema(v: unknown): Schema {
  const s: Schema = {};
  if (!isRecord(v)) return s;
  for (const k of STRINGS) if (typeof v[k] === 'string' && v[k] !== '') s[k] = v[k];
  for (const k of STRING_POINTERS) if (typeof v[k] === 'string') s[k] = v[k];
  for (const k of BOOLS) if (v[k] === true) s[k] = true;
  if (typeof v['x-kubernetes-preserve-unknown-fields'] === 'boolean')
    s['x-kubernetes-preserve-unknown-fields'] = v['x-kubernetes-preserve-unknown-fields'];
  for (const k of NUMBERS) if (typeof v[k] === 'number') s[k] = v[k];
  for (const k of ['default', 'example']) if (has(v[k])) s[k] = rawJson(v[k]);
  if (Array.isArray(v.enum) && v.enum.length > 0) s.enum = v.enum.map((e) => (e === null ? '' : rawJson(e)));
  for (const k of STRING_LISTS) {
    const l = v[k];
    if (Array.isArray(l) && l.length > 0) s[k] = l.map(String);
  }
  for (const k of SCHEMA_LISTS) {
    const l = v[k];
    if (Array.isArray(l) && l.length > 0) s[k] = l.map(normalizeSchema);
  }
  if (has(v.not)) s.not = normalizeSchema(v.not);
  for (const k of SCHEMA_MAPS) {
    const m = v[k];
    if (!isRecord(m) || Object.keys(m).length === 0) continue;
    const out: Record<string, Schema> = {};
    for (const [name, child] of Object.entries(m)) out[name] = normalizeSchema(child);
    s[k] = out;
  }
  if (has(v.items)) {
    s.items = Array.isArray(v.items)
      ? { schemas: v.items.map(normalizeSchema) }
      : { schema: normalizeSchema(v.items) };
  }
  for (const k of ['additionalProperties', 'additionalItems']) {
    const a = v[k];
    if (typeof a === 'boolean') s[k] = { allows: a };
    else if (isRecord(a)) s[k] = { allows: true, schema: normalizeSchema(a) };
  }
  if (isRecord(v.dependencies) && Object.keys(v.dependencies).length > 0) {
    const out: Record<string, unknown> = {};
    for (const [name, d] of Object.entries(v.dependencies)) {
      if (Array.isArray(d)) out[name] = d.length > 0 ? { property: d.map(String) } : {};
      else out[name] = isRecord(d) ? { schema: normalizeSchema(d) } : {};
    }
    s.dependencies = out;
  }
  if (isRecord(v.externalDocs)) {
    const d: Record<string, string> = {};
    for (const k of ['description', 'url'])
      if (typeof v.externalDocs[k] === 'string' && v.externalDocs[k] !== '') d[k] = v.externalDocs[k];
    s.externalDocs = d;
  }
  const rules = v['x-kubernetes-validations'];
  if (Array.isArray(rules) && rules.length > 0) s['x-kubernetes-validations'] = rules.map(normalizeRule);
  return s;
}

function normalizeRule(v: unknown): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  if (!isRecord(v)) return r;
  for (const k of ['rule', 'message', 'messageExpression', 'fieldPath'])
    if (typeof v[k] === 'string' && v[k] !== '') r[k] = v[k];
  if (typeof v.reason === 'string') r.reason = v.reason;
  if (typeof v.optionalOldSelf === 'boolean') r.optionalOldSelf = v.optionalOldSelf;
  return r;
}

/** Canonical text of a normalised value: equal texts, equal schemas (Go's semantic equality). */
export function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    isRecord(x) && !Array.isArray(x)
      ? Object.fromEntries(
          Object.keys(x)
            .sort(compareUtf8)
            .map((k) => [k, x[k]]),
        )
      : x,
  );
}

/**
 * Every schema of a version by its simple path (`^`, `^.spec.size`, `^.spec.items`,
 * `^.allOf[0]`, `^.patternProperties[^a]`), as crdify names them. Children are visited in the
 * order the cluster-side walker takes, so when two share a path the last one visited counts.
 */
export function flattenSchema(root: Schema | undefined): Map<string, Schema> {
  const out = new Map<string, Schema>();
  if (root === undefined) return out;
  const visit = (s: Schema, at: string): void => {
    out.set(at, s);
    const items = s.items as { schema?: Schema; schemas?: Schema[] } | undefined;
    if (items?.schema !== undefined) visit(items.schema, `${at}.items`);
    items?.schemas?.forEach((c, i) => visit(c, `${at}.items[${i}]`));
    for (const k of SCHEMA_LISTS)
      (s[k] as Schema[] | undefined)?.forEach((c, i) => visit(c, `${at}.${k}[${i}]`));
    if (s.not !== undefined) visit(s.not as Schema, `${at}.not`);
    for (const [n, c] of Object.entries((s.properties ?? {}) as Record<string, Schema>))
      visit(c, `${at}.${n}`);
    const ap = s.additionalProperties as { schema?: Schema } | undefined;
    if (ap?.schema !== undefined) visit(ap.schema, `${at}.additionalProperties`);
    for (const [n, c] of Object.entries((s.patternProperties ?? {}) as Record<string, Schema>))
      visit(c, `${at}.patternProperties[${n}]`);
    const ai = s.additionalItems as { schema?: Schema } | undefined;
    if (ai?.schema !== undefined) visit(ai.schema, `${at}.additionalItems`);
    for (const [n, c] of Object.entries((s.definitions ?? {}) as Record<string, Schema>))
      visit(c, `${at}.definitions[${n}]`);
    for (const [n, d] of Object.entries((s.dependencies ?? {}) as Record<string, { schema?: Schema }>))
      if (d.schema !== undefined) visit(d.schema, `${at}.dependencies[${n}]`);
  };
  visit(root, '^');
  return out;
}

/** A schema without its `properties` and `items` (those are compared at their own paths). */
export function withoutChildren(s: Schema): Schema {
  const { properties: _p, items: _i, ...rest } = s;
  return rest;
}
