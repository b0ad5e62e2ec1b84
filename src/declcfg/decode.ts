/**
 * Raw blob → typed FBC value (opm's Meta in `alpha/declcfg/declcfg.go` and the routing by schema in
 * `alpha/declcfg/load.go`). `schema`, `package` and `name` are read case-insensitively; typed
 * fields match JSON keys case-insensitively, as Go's encoding/json does. Output is what opm
 * produces; in addition, fields opm would drop silently are reported as warnings and every type
 * error is reported (opm stops at the first).
 */

import { RawJson } from '../go/raw-json.js';
import {
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_DEPRECATIONS,
  SCHEMA_PACKAGE,
  type Bundle,
  type Channel,
  type ChannelEntry,
  type Deprecation,
  type DeprecationEntry,
  type Icon,
  type Blob,
  type Package,
  type RelatedImage,
} from './types.js';
import { isRecord, isJsonObject, type JsonObject, type JsonValue } from '../go/json-value.js';
import { type Property } from '../property/types.js';
import { goFieldFor, goFold, goJsonKind, unmarshalFieldError } from '../go/json-decode.js';
import { base64ErrorAt } from '../go/base64.js';
import { compareUtf8 } from '../go/utf8.js';
import type { RuleId } from '../rules.js';
import { crdOfBundleObject } from '../crd-safety/bundle-crds.js';

export interface DecodeIssue {
  rule: RuleId;
  severity: 'error' | 'warning';
  message: string;
  package?: string;
  channel?: string;
  bundle?: string;
}

export interface DecodeOptions {
  /** Replace olm.bundle.object property values by `{}` once their data is checked (saves memory). */
  elidePayloads?: boolean;
  /** When eliding payloads, keep the annotations of the bundle's CSV (`Bundle.csvAnnotations`). */
  keepCsvAnnotations?: boolean;
  /** When eliding payloads, keep the CustomResourceDefinitions among them (`Bundle.crds`). */
  keepCrds?: boolean;
}

export interface DecodeResult {
  /** Undefined when the blob has errors. */
  blob: Blob | undefined;
  issues: DecodeIssue[];
}

/** Decoding state of one blob: where we are (for messages) and what went wrong. */
class Ctx {
  readonly issues: DecodeIssue[] = [];
  /** opm's prefix for typed decoding errors, e.g. `parse package`. */
  readonly prefix: string;
  readonly about: Pick<DecodeIssue, 'package' | 'channel' | 'bundle'>;
  constructor(prefix: string, about: Pick<DecodeIssue, 'package' | 'channel' | 'bundle'>) {
    this.prefix = prefix;
    this.about = about;
  }

  error(rule: RuleId, message: string): void {
    this.issues.push({ rule, severity: 'error', message, ...this.about });
  }

  /** Go's UnmarshalTypeError text, followed by the exact path. */
  typeError(v: JsonValue, struct: string, goPath: string, goType: string, path: string): void {
    const go = unmarshalFieldError(v, `${struct}.${goPath}`, goType);
    this.error('decode.field-type', `${this.prefix}: ${go} (at ${path})`);
  }

  unknown(path: string): void {
    this.issues.push({
      rule: 'decode.unknown-field',
      severity: 'warning',
      message: `unknown field "${path}" is ignored (opm drops it)`,
      ...this.about,
    });
  }

  /**
   * A channel entry field written as an empty string, which opm reads as absent but the schema (as
   * the CUE definition) rejects. The typed blob cannot show it to the schema checks, so it is said
   * here, in their words.
   */
  emptyChannelField(path: string): void {
    this.issues.push({
      rule: 'schema.olm.channel',
      severity: 'warning',
      message: `${path}: must NOT have fewer than 1 characters (leave the field out instead)`,
      ...this.about,
    });
  }

  get failed(): boolean {
    return this.issues.some((i) => i.severity === 'error');
  }
}

/**
 * Where a field sits: the Go struct it belongs to, its Go path and our path (with indices). The
 * paths are only spelt out for a message: a catalog decodes hundreds of thousands of fields and
 * almost never needs one.
 */
class At {
  readonly struct: string;
  private readonly parent: At | undefined;
  /** The field name under the parent, or the element index in it. */
  private readonly step: string | number | undefined;

  constructor(struct: string, parent?: At, step?: string | number) {
    this.struct = struct;
    this.parent = parent;
    this.step = step;
  }

  /** The same place, as a field of another Go struct. */
  as(struct: string): At {
    return new At(struct, this.parent, this.step);
  }

  /** Go's path of struct fields: elements add nothing to it. */
  get goPath(): string {
    const { parent, step } = this;
    if (parent === undefined || step === undefined) return '';
    if (typeof step === 'number') return parent.goPath;
    const up = parent.goPath;
    return up === '' ? step : `${up}.${step}`;
  }

  get path(): string {
    const { parent, step } = this;
    if (parent === undefined || step === undefined) return '';
    const up = parent.path;
    if (typeof step === 'number') return `${up}[${step}]`;
    return up === '' ? step : `${up}.${step}`;
  }
}

function child(at: At, key: string, struct = at.struct): At {
  return new At(struct, at, key);
}

function element(at: At, i: number, struct: string): At {
  return new At(struct, at, i);
}

/**
 * Match an object's keys to known field names, exactly or else ignoring case; later keys win.
 * Unknown keys are reported.
 */
function fields<K extends string>(obj: JsonObject, known: readonly K[], ctx: Ctx, at: At): Map<K, JsonValue> {
  const out = new Map<K, JsonValue>();
  for (const k of Object.keys(obj)) {
    const name = goFieldFor(k, known);
    if (name === undefined) ctx.unknown(at.path === '' ? k : `${at.path}.${k}`);
    else out.set(name, obj[k] as JsonValue);
  }
  return out;
}

function str(v: JsonValue | undefined, ctx: Ctx, at: At): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  ctx.typeError(v, at.struct, at.goPath, 'string', at.path);
  return '';
}

/** A JSON array decoded element by element; null or missing gives undefined (Go's nil slice). */
function list<T>(
  v: JsonValue | undefined,
  ctx: Ctx,
  at: At,
  goType: string,
  one: (x: JsonValue, at: At) => T,
  elemStruct = at.struct,
): T[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) {
    ctx.typeError(v, at.struct, at.goPath, goType, at.path);
    return undefined;
  }
  return v.map((x, i) => one(x, element(at, i, elemStruct)));
}

/** A JSON object for a Go struct; null gives an empty object (Go leaves the zero value). */
function struct(v: JsonValue, ctx: Ctx, at: At, goType: string): JsonObject | undefined {
  if (v === null) return {};
  if (isJsonObject(v)) return v;
  ctx.typeError(v, at.struct, at.goPath, goType, at.path);
  return undefined;
}

function strings(v: JsonValue | undefined, ctx: Ctx, at: At): string[] | undefined {
  return list(v, ctx, at, '[]string', (x, a) => str(x, ctx, a));
}

function properties(v: JsonValue | undefined, ctx: Ctx, at: At): Property[] | undefined {
  const a = child(at, 'properties');
  return list(
    v,
    ctx,
    a,
    '[]property.Property',
    (x, pa) => {
      const o = struct(x, ctx, pa, 'property.Property');
      if (!o) return { type: '', value: null };
      // The usual property, `type` (a string) and `value` and nothing else, is taken as it is.
      const { type, value } = o;
      if (typeof type === 'string' && value !== undefined && Object.keys(o).length === 2)
        return { type, value: value ?? null };
      const f = fields(o, ['type', 'value'] as const, ctx, pa);
      // A missing value is kept as null (opm keeps an empty raw value there). The value is the parsed
      // one itself, never to be changed in place: the JSON writer may trust it as read (native-json.ts).
      return { type: str(f.get('type'), ctx, child(pa, 'type')), value: f.get('value') ?? null };
    },
    'Property',
  );
}

function icon(v: JsonValue | undefined, ctx: Ctx, at: At): Icon | undefined {
  if (v === undefined || v === null) return undefined;
  const a = child(at, 'icon');
  const o = struct(v, ctx, a, 'declcfg.Icon');
  if (!o) return undefined;
  const f = fields(o, ['base64data', 'mediatype'] as const, ctx, a.as('Icon'));
  const raw = f.get('base64data');
  let data = '';
  if (raw !== undefined && raw !== null) {
    if (typeof raw !== 'string') {
      ctx.typeError(raw, 'Icon', `${a.goPath}.base64data`, '[]uint8', `${a.path}.base64data`);
    } else {
      const bad = base64ErrorAt(raw);
      if (bad !== undefined)
        ctx.error('decode.field-type', `${ctx.prefix}: illegal base64 data at input byte ${bad}`);
      // Go decodes the bytes and writes them back as padded standard base64.
      else
        data = raw.includes('\n') || raw.includes('\r') ? Buffer.from(raw, 'base64').toString('base64') : raw;
    }
  }
  return { base64data: data, mediatype: str(f.get('mediatype'), ctx, child(a, 'mediatype', 'Icon')) };
}

function decodePackage(obj: JsonObject, ctx: Ctx): Package {
  const at = new At('Package');
  const f = fields(
    obj,
    ['schema', 'name', 'defaultChannel', 'icon', 'description', 'properties'] as const,
    ctx,
    at,
  );
  const out: Package = {
    schema: SCHEMA_PACKAGE,
    name: str(f.get('name'), ctx, child(at, 'name')),
    defaultChannel: str(f.get('defaultChannel'), ctx, child(at, 'defaultChannel')),
  };
  const ic = icon(f.get('icon'), ctx, at);
  if (ic) out.icon = ic;
  const description = str(f.get('description'), ctx, child(at, 'description'));
  if (description !== '') out.description = description;
  const props = properties(f.get('properties'), ctx, at);
  if (props && props.length > 0) out.properties = props;
  return out;
}

/**
 * The usual channel entry taken as it is: its fields spelt exactly, a name, and non-empty strings or
 * a non-empty list of strings for the others. A channel of a long-lived package has thousands of
 * entries, and matching each field of each by name (with a path for messages that never come) was
 * most of decoding it. Anything else (other keys, other spellings, empty or mistyped values) is
 * undefined, for the field-by-field decoding with its messages.
 */
function usualEntry(x: JsonValue): ChannelEntry | undefined {
  if (!isJsonObject(x)) return undefined;
  let name: string | undefined;
  let replaces: string | undefined;
  let skips: string[] | undefined;
  let skipRange: string | undefined;
  for (const k in x) {
    const v = x[k];
    switch (k) {
      case 'name':
        if (typeof v !== 'string') return undefined;
        name = v;
        break;
      case 'replaces':
        if (typeof v !== 'string' || v === '') return undefined;
        replaces = v;
        break;
      case 'skipRange':
        if (typeof v !== 'string' || v === '') return undefined;
        skipRange = v;
        break;
      case 'skips':
        if (!Array.isArray(v) || v.length === 0) return undefined;
        for (const s of v) if (typeof s !== 'string') return undefined;
        skips = v.slice() as string[];
        break;
      default:
        return undefined;
    }
  }
  if (name === undefined) return undefined;
  // The fields in the order the field-by-field decoding sets them.
  const entry: ChannelEntry = { name };
  if (replaces !== undefined) entry.replaces = replaces;
  if (skips !== undefined) entry.skips = skips;
  if (skipRange !== undefined) entry.skipRange = skipRange;
  return entry;
}

function decodeChannel(obj: JsonObject, ctx: Ctx): Channel {
  const at = new At('Channel');
  const f = fields(obj, ['schema', 'name', 'package', 'entries', 'properties'] as const, ctx, at);
  const entries = list(
    f.get('entries'),
    ctx,
    child(at, 'entries'),
    '[]declcfg.ChannelEntry',
    (x, ea): ChannelEntry => {
      const usual = usualEntry(x);
      if (usual !== undefined) return usual;
      const o = struct(x, ctx, ea, 'declcfg.ChannelEntry') ?? {};
      const e = fields(o, ['name', 'replaces', 'skips', 'skipRange'] as const, ctx, ea);
      const entry: ChannelEntry = { name: str(e.get('name'), ctx, child(ea, 'name')) };
      const replaces = str(e.get('replaces'), ctx, child(ea, 'replaces'));
      if (replaces !== '') entry.replaces = replaces;
      else if (e.get('replaces') === '') ctx.emptyChannelField(child(ea, 'replaces').path);
      const skips = strings(e.get('skips'), ctx, child(ea, 'skips'));
      if (skips && skips.length > 0) entry.skips = skips;
      const skipRange = str(e.get('skipRange'), ctx, child(ea, 'skipRange'));
      if (skipRange !== '') entry.skipRange = skipRange;
      else if (e.get('skipRange') === '') ctx.emptyChannelField(child(ea, 'skipRange').path);
      return entry;
    },
    'ChannelEntry',
  );
  const out: Channel = {
    schema: SCHEMA_CHANNEL,
    name: str(f.get('name'), ctx, child(at, 'name')),
    package: str(f.get('package'), ctx, child(at, 'package')),
    entries: entries ?? null,
  };
  const props = properties(f.get('properties'), ctx, at);
  if (props && props.length > 0) out.properties = props;
  return out;
}

function decodeBundle(obj: JsonObject, ctx: Ctx, opts: DecodeOptions): Bundle {
  const at = new At('Bundle');
  const f = fields(
    obj,
    ['schema', 'name', 'package', 'image', 'properties', 'relatedImages'] as const,
    ctx,
    at,
  );
  const out: Bundle = {
    schema: SCHEMA_BUNDLE,
    name: str(f.get('name'), ctx, child(at, 'name')),
    package: str(f.get('package'), ctx, child(at, 'package')),
    image: str(f.get('image'), ctx, child(at, 'image')),
  };
  const props = properties(f.get('properties'), ctx, at);
  if (props && props.length > 0) {
    out.properties = props;
    if (checkBundleObjects(out, props, ctx, opts)) out.payloadsElided = true;
  }
  const related = list(
    f.get('relatedImages'),
    ctx,
    child(at, 'relatedImages'),
    '[]declcfg.RelatedImage',
    (x, ra): RelatedImage => {
      const o = struct(x, ctx, ra, 'declcfg.RelatedImage') ?? {};
      // The usual entry, two strings and nothing else, is taken as it is.
      const { name, image } = o;
      if (typeof name === 'string' && typeof image === 'string' && Object.keys(o).length === 2)
        return { name, image };
      const r = fields(o, ['name', 'image'] as const, ctx, ra);
      return {
        name: str(r.get('name'), ctx, child(ra, 'name')),
        image: str(r.get('image'), ctx, child(ra, 'image')),
      };
    },
    'RelatedImage',
  );
  if (related && related.length > 0) out.relatedImages = related;
  return out;
}

/**
 * olm.bundle.object values must hold base64 `data` (opm's readBundleObjects in
 * `alpha/declcfg/load.go` fails the load otherwise). With elidePayloads the checked values are
 * replaced by `{}`. Returns whether anything was elided.
 */
function checkBundleObjects(b: Bundle, props: Property[], ctx: Ctx, opts: DecodeOptions): boolean {
  let elided = false;
  props.forEach((p, i) => {
    if (p.type !== 'olm.bundle.object') return;
    const where = `package "${b.package}", bundle "${b.name}": parse property at index ${i} as bundle object`;
    // Values decoded from catalog files are plain JSON, never RawJson.
    const v = p.value instanceof RawJson ? p.value.parse() : p.value;
    let problem: string | undefined;
    if (!isRecord(v)) {
      problem =
        v === null
          ? 'value is missing'
          : `value is ${typeof v === 'object' ? 'array' : typeof v}, not an object`;
    } else {
      const data: unknown = Object.entries(v).find(([k]) => goFold(k) === 'data')?.[1];
      if (data !== undefined && data !== null && typeof data !== 'string') {
        problem = `data is ${Array.isArray(data) ? 'array' : typeof data}, not a base64 string`;
      } else if (typeof data === 'string') {
        const bad = base64ErrorAt(data);
        if (bad !== undefined) problem = `illegal base64 data at input byte ${bad}`;
      }
    }
    if (problem !== undefined) {
      ctx.error('decode.bundle-object', `${where}: ${problem}`);
    } else if (opts.elidePayloads) {
      if (opts.keepCsvAnnotations === true && isRecord(v)) {
        const annotations = csvAnnotations(v);
        if (annotations !== undefined) b.csvAnnotations = annotations;
      }
      if (opts.keepCrds === true) {
        const crd = crdOfBundleObject(v);
        if (crd !== undefined) (b.crds ??= []).push(crd);
      }
      p.value = {};
      elided = true;
    }
  });
  return elided;
}

/**
 * The metadata.annotations of a bundle object that is a ClusterServiceVersion (JSON, as opm
 * renders bundles), or undefined. Only the first bytes are decoded to tell a CSV from the rest.
 */
function csvAnnotations(v: Record<string, unknown>): Record<string, string> | undefined {
  const data: unknown = Object.entries(v).find(([k]) => goFold(k) === 'data')?.[1];
  if (typeof data !== 'string') return undefined;
  const head = Buffer.from(data.slice(0, 400), 'base64').toString('utf8');
  if (!head.includes('ClusterServiceVersion')) return undefined;
  let csv: unknown;
  try {
    csv = JSON.parse(Buffer.from(data, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(csv) || !isRecord(csv.metadata) || !isRecord(csv.metadata.annotations)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, a] of Object.entries(csv.metadata.annotations)) if (typeof a === 'string') out[k] = a;
  return out;
}

function decodeDeprecation(obj: JsonObject, ctx: Ctx): Deprecation {
  const at = new At('Deprecation');
  const f = fields(obj, ['schema', 'package', 'entries'] as const, ctx, at);
  const entries = list(
    f.get('entries'),
    ctx,
    child(at, 'entries'),
    '[]declcfg.DeprecationEntry',
    (x, ea): DeprecationEntry => {
      const o = struct(x, ctx, ea, 'declcfg.DeprecationEntry') ?? {};
      const e = fields(o, ['reference', 'message'] as const, ctx, ea);
      const ra = child(ea, 'reference');
      const ro = e.get('reference');
      const r = (ro === undefined ? {} : struct(ro, ctx, ra, 'declcfg.PackageScopedReference')) ?? {};
      const rf = fields(r, ['schema', 'name'] as const, ctx, ra.as('PackageScopedReference'));
      const reference: DeprecationEntry['reference'] = {
        schema: str(rf.get('schema'), ctx, child(ra, 'schema', 'PackageScopedReference')),
      };
      const name = str(rf.get('name'), ctx, child(ra, 'name', 'PackageScopedReference'));
      if (name !== '') reference.name = name;
      return { reference, message: str(e.get('message'), ctx, child(ea, 'message')) };
    },
    'DeprecationEntry',
  );
  return {
    schema: SCHEMA_DEPRECATIONS,
    package: str(f.get('package'), ctx, child(at, 'package')),
    // Absent entries stay null: opm writes them back as `null`.
    entries: entries ?? null,
  };
}

/** Compact JSON of a blob for messages, shortened. */
function preview(obj: JsonObject): string {
  const s = JSON.stringify(obj);
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

/** The top-level `schema`, `package` and `name` (any case), and duplicate keys under case folding. */
function readMeta(obj: JsonObject): {
  meta?: { schema: string; package: string; name: string };
  issue?: DecodeIssue;
} {
  const keys = Object.keys(obj);
  // The usual blob: no two keys equal under case folding, and the three written as they are.
  const folded = new Set<string>();
  for (const k of keys) folded.add(goFold(k));
  if (folded.size === keys.length && 'schema' in obj && typeof obj.schema === 'string' && obj.schema !== '') {
    const { package: pkg, name } = obj;
    if (
      (typeof pkg === 'string' || (pkg === undefined && !folded.has('package'))) &&
      (typeof name === 'string' || (name === undefined && !folded.has('name')))
    ) {
      return { meta: { schema: obj.schema, package: pkg ?? '', name: name ?? '' } };
    }
  }
  const byFold = new Map<string, string[]>();
  for (const k of keys) {
    const fold = goFold(k);
    const ks = byFold.get(fold);
    if (ks) ks.push(k);
    else byFold.set(fold, [k]);
  }
  const dups = [...byFold]
    .filter(([, ks]) => ks.length > 1)
    .sort(([a], [b]) => compareUtf8(a, b))
    .map(([fold, ks]) => `duplicate keys for key "${fold}": [${[...ks].sort(compareUtf8).join(' ')}]`);
  if (dups.length > 0) {
    const message = dups.length === 1 ? (dups[0] ?? '') : `[${dups.join(', ')}]`;
    return { issue: { rule: 'decode.duplicate-key', severity: 'error', message } };
  }
  const meta = { schema: '', package: '', name: '' };
  for (const key of ['schema', 'package', 'name'] as const) {
    const k = byFold.get(key)?.[0];
    const v = k === undefined ? undefined : obj[k];
    // A null is not a string to opm either: only a key left out is.
    if (v === undefined) continue;
    if (typeof v !== 'string') {
      const message = `expected value for key "${key}" to be a string, got ${goJsonKind(v)}: ${JSON.stringify(v)}`;
      return { issue: { rule: 'decode.meta-type', severity: 'error', message } };
    }
    meta[key] = v;
  }
  if (meta.schema === '') {
    const message = `object '${preview(obj)}' is missing root schema field`;
    return { issue: { rule: 'decode.schema-missing', severity: 'error', message } };
  }
  return { meta };
}

/** Decode one raw blob. */
export function decodeBlob(obj: JsonObject, opts: DecodeOptions = {}): DecodeResult {
  const { meta, issue } = readMeta(obj);
  if (!meta) return { blob: undefined, issues: issue ? [issue] : [] };
  const pkg = meta.package;
  let blob: Blob;
  let ctx: Ctx;
  switch (meta.schema) {
    case SCHEMA_PACKAGE:
      ctx = new Ctx('parse package', { package: meta.name });
      blob = { kind: 'package', value: decodePackage(obj, ctx) };
      break;
    case SCHEMA_CHANNEL:
      ctx = new Ctx('parse channel', { package: pkg, channel: meta.name });
      blob = { kind: 'channel', value: decodeChannel(obj, ctx) };
      break;
    case SCHEMA_BUNDLE:
      ctx = new Ctx('parse bundle', { package: pkg, bundle: meta.name });
      blob = { kind: 'bundle', value: decodeBundle(obj, ctx, opts) };
      break;
    case SCHEMA_DEPRECATIONS:
      ctx = new Ctx('parse deprecation', { package: pkg });
      blob = { kind: 'deprecation', value: decodeDeprecation(obj, ctx) };
      break;
    default:
      return {
        blob: { kind: 'other', value: { schema: meta.schema, package: pkg, name: meta.name, blob: obj } },
        issues: [],
      };
  }
  return { blob: ctx.failed ? undefined : blob, issues: ctx.issues };
}
