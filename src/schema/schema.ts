/**
 * JSON Schema checks of FBC blobs (schemas/*.json, written from the CUE definitions of FBC).
 * The validators are loaded (precompiled by the build) or compiled once, on first use, so commands
 * that never validate pay nothing (see standalone.ts).
 *
 * The schemas are the ones editors use, at least as strict as the CUE definitions of the FBC
 * documentation, and so stricter than opm in places (e.g. non-empty GVK groups, the shape of
 * olm.constraint values, which opm never reads). A catalog opm accepts must still pass, so schema
 * findings are warnings: errors come from the opm rules (src/model), which also cover every type
 * mismatch opm itself rejects. Where a schema constraint is one of opm's own checks, the finding is
 * left to the model (see OPM_ENFORCED), so that one problem is not reported twice.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { DeclarativeConfig, Location } from '../declcfg/types.js';
import { isRecord, isJsonObject, type JsonObject } from '../go/json-value.js';
import { goFold } from '../go/json-decode.js';
import type { Property } from '../property/types.js';
import type { Finding } from '../findings.js';
import type { RuleId } from '../rules.js';
import { matchFields, propertyFields, propertyValue } from '../property/property.js';
import { loadValidators } from './standalone.js';

/** The directory holding the schema files: `schemas/` at the package root. */
export function schemasDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'schemas');
    if (existsSync(path.join(candidate, 'meta.json'))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('schemas directory not found beside the opm-ts package');
    dir = parent;
  }
}

interface Validators {
  meta: ValidateFunction;
  bySchema: Map<string, ValidateFunction>;
  composeCatalog: ValidateFunction;
}

let compiled: Validators | undefined;

function validators(): Validators {
  if (compiled !== undefined) return compiled;
  const v = loadValidators(schemasDir());
  compiled = {
    meta: v.meta,
    bySchema: new Map([
      ['olm.package', v.olmPackage],
      ['olm.channel', v.olmChannel],
      ['olm.bundle', v.olmBundle],
      ['olm.deprecations', v.olmDeprecations],
    ]),
    composeCatalog: v.composeCatalog,
  };
  return compiled;
}

/**
 * The errors of `value` against schemas/compose-catalog.json (`opm compose`'s catalog file), in
 * ajv's form (`instancePath`, `keyword`, `params`); empty when it passes.
 */
export function composeCatalogErrors(value: unknown): ErrorObject[] {
  const validate = validators().composeCatalog;
  return validate(value) ? [] : [...(validate.errors ?? [])];
}

/** Whether some key of `value` fills a field under another spelling (so the keys must be renamed). */
function needsRename(value: JsonObject, fields: readonly string[], lower: ReadonlySet<string>): boolean {
  for (const k in value) {
    if (!fields.includes(k) && lower.has(goFold(k))) return true;
  }
  return false;
}

/**
 * A property as plain JSON, with the keys of known values spelled as their fields (Go matches them
 * case-insensitively). Values are used in place: only a value with keys to rename is copied, one
 * level deep.
 */
function propertyJson(p: Property): JsonObject {
  const out: JsonObject = { type: p.type };
  let value = propertyValue(p);
  // Known types only (olm.channel, also known, has no schema to check).
  const fields = propertyFields(p.type);
  if (fields !== undefined && isJsonObject(value) && needsRename(value, fields.names, fields.lower)) {
    const renamed: JsonObject = {};
    const matched = matchFields(value, fields.names);
    const used = new Set(matched.values());
    for (const [field, key] of matched) {
      const v = value[key];
      if (v !== undefined) renamed[field] = v;
    }
    for (const [k, v] of Object.entries(value)) if (!used.has(k)) renamed[k] = v;
    value = renamed;
  }
  if (value !== undefined) out.value = value;
  return out;
}

/** What the validators are given: plain objects, arrays and scalars, only read. */
type Data = Record<string, unknown>;

function isProperty(u: unknown): u is Property {
  return isRecord(u) && typeof u.type === 'string';
}

/**
 * A typed blob as the schema sees it, leaving out loader bookkeeping. Only the top level and the
 * properties are new objects; everything below is the typed value itself (built by the decoder
 * from parsed JSON, so it holds JSON values only), which the validators only read.
 */
function toJson(blob: object, elided: boolean): Data {
  const out: Data = {};
  const entries: [string, unknown][] = Object.entries(blob);
  for (const [k, v] of entries) {
    if (k === 'loc' || k === 'payloadsElided' || v === undefined) continue;
    if (k === 'properties' && Array.isArray(v)) {
      const list: unknown[] = v;
      const props: JsonObject[] = [];
      for (const p of list) {
        if (!isProperty(p)) continue;
        // Elided bundle objects carry `{}` instead of their data: nothing to check.
        if (elided && p.type === 'olm.bundle.object') continue;
        props.push(propertyJson(p));
      }
      out.properties = props;
      continue;
    }
    out[k] = v;
  }
  return out;
}

/** `/properties/3/value/version` → `properties[3].value.version`. */
export function fieldPath(pointer: string): string {
  if (pointer === '') return '(blob)';
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^[0-9]+$/.test(seg)) out += `[${seg}]`;
    else out += out === '' ? seg : `.${seg}`;
  }
  return out;
}

function describe(e: ErrorObject, data: Data): string {
  let field = fieldPath(e.instancePath);
  const params: Record<string, unknown> = e.params;
  if (e.keyword === 'required' && typeof params.missingProperty === 'string') {
    field = field === '(blob)' ? params.missingProperty : `${field}.${params.missingProperty}`;
    return `${field}: is required`;
  }
  // Name the property type, so `properties[3]` reads as what it is.
  const m = /^\/properties\/([0-9]+)/.exec(e.instancePath);
  if (m !== null) {
    const props = data.properties;
    const p = Array.isArray(props) ? props[Number(m[1])] : undefined;
    if (isRecord(p) && typeof p.type === 'string' && p.type !== '') field += ` (${p.type})`;
  }
  if (e.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    return `${field}: must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  if (e.keyword === 'not' && e.schemaPath.endsWith('/value/not')) return `${field}.value: must not be null`;
  if (e.keyword === 'not') {
    // The other `not`: a package reference carries no name.
    return `${field}.name: must be empty when the reference schema is olm.package`;
  }
  if (e.keyword === 'oneOf') {
    return `${field}: must have exactly one of gvk, package, cel, all, any, not`;
  }
  return `${field}: ${e.message ?? e.keyword}`;
}

/** The blob kinds whose schema findings have their own rule id (`schema.<kind>`). */
type SchemaKind<R> = R extends `schema.${infer K}` ? K : never;
type SchemaRuleName = SchemaKind<RuleId>;

/**
 * Schema constraints that opm checks itself (src/model reports them as errors, in opm's words):
 * by rule, the failing field (instance path, array indexes as `N`) and the keyword. Unknown fields
 * never reach the schemas here: the decoder drops them and reports `decode.unknown-field`.
 */
const OPM_ENFORCED: Partial<Record<string, readonly string[]>> = {
  'olm.package': ['/name minLength', '/defaultChannel minLength'],
  'olm.channel': [
    '/name minLength',
    '/package minLength',
    '/entries type',
    '/entries minItems',
    '/entries/N/name minLength',
    '/entries/N/skips/N minLength',
  ],
  'olm.bundle': ['/name minLength', '/package minLength'],
  'olm.deprecations': ['/package minLength'],
};

function opmEnforced(schemaName: string, e: ErrorObject, data: Data): boolean {
  const key = `${e.instancePath.replace(/\/[0-9]+(?=\/|$)/g, '/N')} ${e.keyword}`;
  if (OPM_ENFORCED[schemaName]?.includes(key) === true) return true;
  // opm requires an image only of bundles without olm.bundle.object properties (`bundle image
  // must be set`); with them, an empty image is tolerated and stays a warning here.
  if (schemaName === 'olm.bundle' && key === '/image minLength') {
    const props = data.properties;
    return !(Array.isArray(props) && props.some((p) => isRecord(p) && p.type === 'olm.bundle.object'));
  }
  return false;
}

/** Keywords that only say "a sub-schema failed"; the failure itself is reported on its own. */
const NOISE = new Set(['if', 'allOf', 'anyOf']);

function check(
  validate: ValidateFunction,
  schemaName: SchemaRuleName,
  data: Data,
  loc: Location | undefined,
  scope: { package?: string; channel?: string; bundle?: string },
  out: Finding[],
): void {
  if (validate(data)) return;
  const seen = new Set<string>();
  for (const e of validate.errors ?? []) {
    if (NOISE.has(e.keyword) || opmEnforced(schemaName, e, data)) continue;
    // `oneOf` failures inside a constraint are reported once, not per alternative.
    if (e.keyword === 'required' && e.schemaPath.includes('/oneOf/')) continue;
    const message = describe(e, data);
    if (seen.has(message)) continue;
    seen.add(message);
    const f: Finding = { rule: `schema.${schemaName}`, severity: 'warning', message };
    if (loc !== undefined) {
      f.file = loc.file;
      f.line = loc.line;
    }
    if (scope.package) f.package = scope.package;
    if (scope.channel) f.channel = scope.channel;
    if (scope.bundle) f.bundle = scope.bundle;
    out.push(f);
  }
}

/** Check every blob of a catalog against the schemas. */
export function schemaFindings(cfg: DeclarativeConfig): Finding[] {
  const v = validators();
  const out: Finding[] = [];
  const get = (s: string): ValidateFunction => v.bySchema.get(s) ?? v.meta;
  for (const p of cfg.packages)
    check(get('olm.package'), 'olm.package', toJson(p, false), p.loc, { package: p.name }, out);
  for (const c of cfg.channels) {
    check(
      get('olm.channel'),
      'olm.channel',
      toJson(c, false),
      c.loc,
      { package: c.package, channel: c.name },
      out,
    );
  }
  for (const b of cfg.bundles) {
    check(
      get('olm.bundle'),
      'olm.bundle',
      toJson(b, b.payloadsElided === true),
      b.loc,
      { package: b.package, bundle: b.name },
      out,
    );
  }
  for (const d of cfg.deprecations) {
    check(get('olm.deprecations'), 'olm.deprecations', toJson(d, false), d.loc, { package: d.package }, out);
  }
  for (const m of cfg.others) check(v.meta, 'meta', m.blob, m.loc, { package: m.package }, out);
  return out;
}
