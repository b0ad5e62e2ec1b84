/**
 * Parsing of bundle properties the way opm reads them (`alpha/property/property.go`): known
 * property types are decoded into fixed shapes, with Go encoding/json's rules (field names match
 * case-insensitively, unknown fields are ignored, `null` leaves a field empty, a wrong JSON type
 * fails with Go's message); every other type is opaque.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../go/json-value.js';
import type { Property } from './types.js';
import { RawJson } from '../go/raw-json.js';
import { goFieldKeys, goFold, unmarshalFieldError, unmarshalValueError } from '../go/json-decode.js';
import { base64ErrorAt } from '../go/base64.js';
import { compareUtf8 } from '../go/utf8.js';

export const TYPE_PACKAGE = 'olm.package';
export const TYPE_PACKAGE_REQUIRED = 'olm.package.required';
export const TYPE_GVK = 'olm.gvk';
export const TYPE_GVK_REQUIRED = 'olm.gvk.required';
export const TYPE_BUNDLE_OBJECT = 'olm.bundle.object';
export const TYPE_CSV_METADATA = 'olm.csv.metadata';
const TYPE_CHANNEL = 'olm.channel';

export interface PackageProperty {
  packageName: string;
  version: string;
  release: string;
}
export interface PackageRequiredProperty {
  packageName: string;
  versionRange: string;
}
export interface GvkProperty {
  group: string;
  kind: string;
  version: string;
}

export interface ParsedProperties {
  packages: PackageProperty[];
  packagesRequired: PackageRequiredProperty[];
  gvks: GvkProperty[];
  gvksRequired: GvkProperty[];
  bundleObjects: number;
  csvMetadata: number;
  others: number;
}

function isJsonValue(u: unknown): u is JsonValue {
  if (u === null || typeof u === 'boolean' || typeof u === 'string') return true;
  if (typeof u === 'number') return Number.isFinite(u);
  if (Array.isArray(u)) return u.every(isJsonValue);
  if (typeof u === 'object') return Object.values(u).every(isJsonValue);
  return false;
}

/** A property's value as plain JSON; undefined when the blob had no value at all. */
export function propertyValue(p: Property): JsonValue | undefined {
  // Typed properties may still lack a value at run time (blobs built by hand).
  const v = p.value as JsonValue | RawJson | undefined;
  if (v === undefined) return undefined;
  if (v instanceof RawJson) {
    const parsed = v.parse();
    return isJsonValue(parsed) ? parsed : null;
  }
  // Typed JSON (from the file parsers, which refuse what JSON cannot carry): walking it again to
  // check would cost a deep traversal of every value, csv metadata included.
  return v;
}

/** A property could not be decoded; `message` is opm's text. */
export class PropertyParseError extends Error {
  readonly index: number;
  readonly type: string;
  readonly detail: string;
  constructor(index: number, type: string, cause: string) {
    super(`parse property[${index}] of type "${type}": ${cause}`);
    this.name = 'PropertyParseError';
    this.index = index;
    this.type = type;
    this.detail = cause;
  }
}

/** Go's name for the JSON kind of a value in UnmarshalTypeError. */
type FieldKind = 'string' | 'bytes' | 'stringMap' | 'stringList' | 'list' | 'struct';

interface FieldSpec {
  json: string;
  kind: FieldKind;
  /** Go type text used in messages. */
  goType: string;
}

interface StructSpec {
  goName: string;
  fields: FieldSpec[];
}

const S = (json: string): FieldSpec => ({ json, kind: 'string', goType: 'string' });

const PACKAGE: StructSpec = { goName: 'Package', fields: [S('packageName'), S('version'), S('release')] };

const STRUCTS: Record<string, StructSpec> = {
  [TYPE_PACKAGE]: PACKAGE,
  [TYPE_PACKAGE_REQUIRED]: { goName: 'PackageRequired', fields: [S('packageName'), S('versionRange')] },
  [TYPE_GVK]: { goName: 'GVK', fields: [S('group'), S('kind'), S('version')] },
  [TYPE_GVK_REQUIRED]: { goName: 'GVKRequired', fields: [S('group'), S('kind'), S('version')] },
  [TYPE_CHANNEL]: { goName: 'Channel', fields: [S('channelName')] },
  [TYPE_BUNDLE_OBJECT]: {
    goName: 'BundleObject',
    fields: [{ json: 'data', kind: 'bytes', goType: '[]uint8' }],
  },
  [TYPE_CSV_METADATA]: {
    goName: 'CSVMetadata',
    fields: [
      { json: 'annotations', kind: 'stringMap', goType: 'map[string]string' },
      { json: 'apiServiceDefinitions', kind: 'struct', goType: 'v1alpha1.APIServiceDefinitions' },
      { json: 'crdDescriptions', kind: 'struct', goType: 'v1alpha1.CustomResourceDefinitions' },
      S('description'),
      S('displayName'),
      { json: 'installModes', kind: 'list', goType: '[]v1alpha1.InstallMode' },
      { json: 'keywords', kind: 'stringList', goType: '[]string' },
      { json: 'labels', kind: 'stringMap', goType: 'map[string]string' },
      { json: 'links', kind: 'list', goType: '[]v1alpha1.AppLink' },
      { json: 'maintainers', kind: 'list', goType: '[]v1alpha1.Maintainer' },
      S('maturity'),
      S('minKubeVersion'),
      { json: 'nativeAPIs', kind: 'list', goType: '[]v1.GroupVersionKind' },
      { json: 'provider', kind: 'struct', goType: 'v1alpha1.AppLink' },
    ],
  },
};

/** Per struct: field names, fields by exact name, and lower-cased names; computed once. */
interface StructIndex {
  names: readonly string[];
  byName: ReadonlyMap<string, FieldSpec>;
  lower: ReadonlySet<string>;
}

const INDEXES = new Map<StructSpec, StructIndex>();

function indexOf(spec: StructSpec): StructIndex {
  let index = INDEXES.get(spec);
  if (index === undefined) {
    const names = spec.fields.map((f) => f.json);
    index = {
      names,
      byName: new Map(spec.fields.map((f) => [f.json, f])),
      lower: new Set(names.map((n) => n.toLowerCase())),
    };
    INDEXES.set(spec, index);
  }
  return index;
}

function fieldNames(spec: StructSpec): readonly string[] {
  return indexOf(spec).names;
}

function isStringOrNull(x: JsonValue): boolean {
  return x === null || typeof x === 'string';
}

/**
 * The common case, decoded in one pass: every key spelled exactly as its field (or matching no
 * field) and every value of its field's type. Returns undefined for anything else (other
 * spellings, type errors, bad base64), which the general decoding handles with Go's key order.
 */
function quickFields(value: JsonObject, spec: StructSpec): Map<string, string> | undefined {
  const { byName, lower } = indexOf(spec);
  const fields = new Map<string, string>();
  for (const key in value) {
    const field = byName.get(key);
    if (field === undefined) {
      if (lower.has(goFold(key))) return undefined;
      continue;
    }
    const v = value[key];
    if (v === undefined || v === null) continue;
    switch (field.kind) {
      case 'string':
        if (typeof v !== 'string') return undefined;
        fields.set(key, v);
        break;
      case 'bytes':
        if (typeof v !== 'string' || base64ErrorAt(v) !== undefined) return undefined;
        fields.set(key, v);
        break;
      case 'stringMap':
        if (!isJsonObject(v)) return undefined;
        for (const k in v) {
          const x = v[k];
          if (x === undefined || !isStringOrNull(x)) return undefined;
        }
        break;
      case 'stringList':
        if (!Array.isArray(v) || !v.every(isStringOrNull)) return undefined;
        break;
      case 'list':
        if (!Array.isArray(v)) return undefined;
        break;
      case 'struct':
        if (!isJsonObject(v)) return undefined;
        break;
    }
  }
  return fields;
}

/** The JSON field names of a known property type's value, and the same lower-cased; else undefined. */
export function propertyFields(
  type: string,
): { names: readonly string[]; lower: ReadonlySet<string> } | undefined {
  const spec = STRUCTS[type];
  return spec === undefined ? undefined : indexOf(spec);
}

/**
 * Map each key of `obj` to the struct field it fills under Go's rules: an exact name match wins,
 * else a case-insensitive one. Keys are visited in sorted order (the order of opm's normalized
 * blobs), so with several spellings of one field the last in that order wins.
 */
export function matchFields(obj: JsonObject, names: readonly string[]): Map<string, string> {
  return goFieldKeys(Object.keys(obj).sort(compareUtf8), names);
}

/** Decode one known property value; returns Go's error text or the decoded string fields. */
function decodeStruct(
  value: JsonValue | undefined,
  spec: StructSpec,
): { error?: string; fields: Map<string, string> } {
  const fields = new Map<string, string>();
  if (value === undefined) return { error: 'unexpected end of JSON input', fields };
  if (value === null) return { fields };
  if (!isJsonObject(value)) {
    return {
      error: unmarshalValueError(value, `property.${spec.goName}`),
      fields,
    };
  }
  const quick = quickFields(value, spec);
  if (quick !== undefined) return { fields: quick };
  const matched = matchFields(value, fieldNames(spec));
  let error: string | undefined;
  const fail = (msg: string): void => {
    if (error === undefined) error = msg;
  };
  // Go reports the first type error met while reading the object, in key order.
  const order = [...matched.entries()].sort((a, b) => compareUtf8(a[1], b[1]));
  for (const [field, key] of order) {
    const spec2 = spec.fields.find((f) => f.json === field);
    const v = value[key];
    if (spec2 === undefined || v === undefined || v === null) continue;
    // Only built for a failure: most values have none, and csv metadata has many fields.
    const typeErr = (): string => unmarshalFieldError(v, `${spec.goName}.${field}`, spec2.goType);
    switch (spec2.kind) {
      case 'string':
        if (typeof v === 'string') fields.set(field, v);
        else fail(typeErr());
        break;
      case 'bytes':
        if (typeof v !== 'string') fail(typeErr());
        else {
          const at = base64ErrorAt(v);
          if (at !== undefined) fail(`illegal base64 data at input byte ${at}`);
          else fields.set(field, v);
        }
        break;
      case 'stringMap':
        if (!isJsonObject(v)) fail(typeErr());
        else
          for (const [k, x] of Object.entries(v)) {
            if (x !== null && typeof x !== 'string')
              fail(unmarshalFieldError(x, `${spec.goName}.${field}.${k}`, 'string'));
          }
        break;
      case 'stringList':
        if (!Array.isArray(v)) fail(typeErr());
        else
          for (const x of v) {
            if (x !== null && typeof x !== 'string')
              fail(unmarshalFieldError(x, `${spec.goName}.${field}`, 'string'));
          }
        break;
      case 'list':
        if (!Array.isArray(v)) fail(typeErr());
        break;
      case 'struct':
        if (!isJsonObject(v)) fail(typeErr());
        break;
    }
  }
  return error === undefined ? { fields } : { error, fields };
}

/**
 * opm's property.Parse: decode the known types, check the others are present. Throws
 * PropertyParseError (opm's message) at the first failure.
 */
function parseProperties(props: readonly Property[] | undefined): ParsedProperties {
  const out: ParsedProperties = {
    packages: [],
    packagesRequired: [],
    gvks: [],
    gvksRequired: [],
    bundleObjects: 0,
    csvMetadata: 0,
    others: 0,
  };
  (props ?? []).forEach((p, i) => {
    const value = propertyValue(p);
    const spec = STRUCTS[p.type];
    if (spec === undefined) {
      if (value === undefined) throw new PropertyParseError(i, p.type, 'unexpected end of JSON input');
      out.others++;
      return;
    }
    const { error, fields } = decodeStruct(value, spec);
    if (error !== undefined) throw new PropertyParseError(i, p.type, error);
    const f = (name: string): string => fields.get(name) ?? '';
    switch (p.type) {
      case TYPE_PACKAGE:
        out.packages.push({ packageName: f('packageName'), version: f('version'), release: f('release') });
        break;
      case TYPE_PACKAGE_REQUIRED:
        out.packagesRequired.push({ packageName: f('packageName'), versionRange: f('versionRange') });
        break;
      case TYPE_GVK:
        out.gvks.push({ group: f('group'), kind: f('kind'), version: f('version') });
        break;
      case TYPE_GVK_REQUIRED:
        out.gvksRequired.push({ group: f('group'), kind: f('kind'), version: f('version') });
        break;
      case TYPE_BUNDLE_OBJECT:
        out.bundleObjects++;
        break;
      case TYPE_CSV_METADATA:
        out.csvMetadata++;
        break;
      default:
        out.others++;
    }
  });
  return out;
}

/**
 * One `olm.package` value decoded as property.Parse decodes it (`index` is its place among the
 * bundle's properties, for the message). Throws PropertyParseError.
 */
export function parsePackageProperty(value: JsonValue | undefined, index: number): PackageProperty {
  const { error, fields } = decodeStruct(value, PACKAGE);
  if (error !== undefined) throw new PropertyParseError(index, TYPE_PACKAGE, error);
  const f = (name: string): string => fields.get(name) ?? '';
  return { packageName: f('packageName'), version: f('version'), release: f('release') };
}

export type PropertiesParse =
  { ok: true; value: ParsedProperties } | { ok: false; error: PropertyParseError };

/** Parse, returning the error instead of throwing. */
export function tryParseProperties(props: readonly Property[] | undefined): PropertiesParse {
  try {
    return { ok: true, value: parseProperties(props) };
  } catch (e) {
    if (e instanceof PropertyParseError) return { ok: false, error: e };
    throw e;
  }
}
