/**
 * One bundle of an index database as opm turns it into an `olm.bundle`: the manifests of its
 * `bundle` column (JSON objects one after another) become `olm.bundle.object` properties, the rows
 * of `properties` and `dependencies` become properties (GVKs gathered, package dependencies as
 * `olm.package.required`, other dependencies dropped), each value compacted, repeats dropped,
 * sorted by type and value; related images come from the CSV among the manifests.
 */
import { OpmError } from '../errors.js';
import type { RelatedImage } from '../declcfg/types.js';
import type { Property } from '../property/types.js';
import { RawJson } from '../go/raw-json.js';
import { goStruct } from '../go/go-struct.js';
import { marshal } from '../go/json-encode.js';
import { goFieldFor } from '../go/json-decode.js';
import { goQuote } from '../go/fmt.js';
import { compareUtf8 } from '../go/utf8.js';
import { scanJsonValue } from '../go/json-scan.js';
import { appendRaw } from '../go/json-raw-layout.js';
import { isAscii } from 'node:buffer';

/** A row of `properties` or `dependencies`: its type and its value's JSON text. */
export interface TypedValue {
  type: string;
  value: string;
}

/** Drop repeats of the same type and value, keeping the first (opm's uniqueProps, uniqueDeps). */
export function uniqueTypedValues<T extends TypedValue>(list: readonly T[]): T[] {
  if (list.length <= 1) return [...list];
  const seen = new Set<string>();
  return list.filter((p) => {
    const k = `${p.type}/${p.value}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Go's decoder refuses deeper nesting. */
const MAX_DEPTH = 10000;

/** The objects of a `bundle` column: each one's base64 (of its bytes), and the CSV parsed. */
export interface BundleObjects {
  /** Each object's bytes. */
  bytes: Buffer[];
  csv: Record<string, unknown> | undefined;
}

/**
 * Split a `bundle` column (JSON objects one after another) into its objects, as Go's decoder reads
 * them: each keeps its bytes exactly. The first ClusterServiceVersion among them is the CSV.
 */
export function splitBundleObjects(raw: Uint8Array): BundleObjects {
  const buf = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const stored = buf.toString('utf8');
  // Offsets in the text are offsets in the bytes when every byte is ASCII (the usual case).
  const ascii = isAscii(buf);
  const bytes: Buffer[] = [];
  let csv: Record<string, unknown> | undefined;
  let pos = 0;
  for (;;) {
    while (pos < stored.length && /[ \t\r\n]/.test(stored[pos] as string)) pos++;
    if (pos >= stored.length) break;
    const r = scanJsonValue(stored, pos, MAX_DEPTH);
    if (!r.ok) throw new OpmError(`bundle manifests are not JSON: ${r.message}`);
    bytes.push(ascii ? buf.subarray(pos, r.end) : Buffer.from(stored.slice(pos, r.end), 'utf8'));
    if (csv === undefined) csv = csvOf(stored, pos, r.end);
    pos = r.end;
  }
  if (csv === undefined) throw new OpmError('no csv in bundle');
  return { bytes, csv };
}

/** The object at [start, end) parsed when its kind is ClusterServiceVersion. */
function csvOf(text: string, start: number, end: number): Record<string, unknown> | undefined {
  // Cheap first: most objects are not the CSV, and a CRD is large to parse.
  const at = text.indexOf('ClusterServiceVersion', start);
  if (at < 0 || at >= end) return undefined;
  const v: unknown = JSON.parse(text.slice(start, end));
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  return o.kind === 'ClusterServiceVersion' ? o : undefined;
}

/** A JSON object's string field as Go's decoder fills a struct field (names matched ignoring case). */
function stringField(o: Record<string, unknown>, name: string): string {
  let out = '';
  for (const k of Object.keys(o)) {
    if (goFieldFor(k, [name]) === name) {
      const v = o[k];
      if (typeof v === 'string') out = v;
    }
  }
  return out;
}

function parseObject(text: string, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new OpmError(`${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new OpmError(
      `${what}: json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go value`,
    );
  }
  return v as Record<string, unknown>;
}

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

function gvkOf(text: string, what: string): Gvk {
  const o = parseObject(text, what);
  return { group: stringField(o, 'group'), version: stringField(o, 'version'), kind: stringField(o, 'kind') };
}

/**
 * A property opm builds from a Go struct: its value as a plain object, which the writers write in
 * key order, the same as the struct's field order for every property built here; its text for
 * sorting and finding repeats.
 */
interface Built {
  type: string;
  text: string;
  value?: Record<string, string>;
  /** An object's bytes: its text is the base64 of a prefix until the whole is needed. */
  object?: Buffer;
}

function built(type: string, fields: Record<string, string>): Built {
  return { type, text: marshal(goStruct(fields), false), value: fields };
}

/** Compact JSON text, as Go's json.Compact writes it. */
function compact(text: string): string {
  // Without white space anywhere, there is none between tokens either: already compact.
  if (!/[ \t\r\n]/.test(text)) return text;
  const parts: string[] = [];
  appendRaw(parts, text, null, '', false);
  return parts.join('');
}

export interface BundleRows {
  bundleName: string;
  packageName: string;
  version: string;
  properties: readonly TypedValue[];
  dependencies: readonly TypedValue[];
  /** The bytes of each object. */
  objects: readonly Buffer[];
  /** Leave the objects' values empty (`{}`), in the order of `objectOrder`, to be filled when written. */
  deferObjects?: boolean;
}

/** What bundleProperties gives: the properties, and the objects in the order their properties take. */
export interface BuiltProperties {
  properties: Property[];
  objectOrder: Buffer[];
}

/** Bytes of a prefix that base64 keeps whole (a multiple of 3): most objects differ within it. */
const PREFIX_BYTES = 96;

/** The properties of a bundle, in the order opm's model conversion leaves them. */
export function bundleProperties(b: BundleRows): BuiltProperties {
  const out: Built[] = [];
  const provided = new Map<string, Gvk>();
  const required = new Map<string, Gvk>();
  const hasPackage = b.properties.some((p) => p.type === 'olm.package');
  b.properties.forEach((p, i) => {
    if (p.type === 'olm.gvk') {
      const g = gvkOf(
        p.value,
        `convert bundle ${goQuote(b.bundleName)}: convert properties: parse property[${i}] of type "olm.gvk"`,
      );
      provided.set(JSON.stringify([g.group, g.kind, g.version]), g);
    } else {
      out.push({ type: p.type, text: p.value });
    }
  });
  b.dependencies.forEach((d, i) => {
    const what = `convert bundle ${goQuote(b.bundleName)}: convert properties: parse property[${i}] of type ${goQuote(d.type)}`;
    if (d.type === 'olm.gvk') {
      const g = gvkOf(d.value, what);
      required.set(JSON.stringify([g.group, g.kind, g.version]), g);
    } else if (d.type === 'olm.package') {
      const o = parseObject(d.value, what);
      out.push(
        built('olm.package.required', {
          packageName: stringField(o, 'packageName'),
          versionRange: stringField(o, 'version'),
        }),
      );
    }
  });
  if (!hasPackage) out.push(built('olm.package', { packageName: b.packageName, version: b.version }));
  for (const g of provided.values())
    out.push(built('olm.gvk', { group: g.group, kind: g.kind, version: g.version }));
  for (const g of required.values())
    out.push(built('olm.gvk.required', { group: g.group, kind: g.kind, version: g.version }));
  // Objects are sorted by their base64; a prefix orders them unless two share it or one is shorter.
  const prefixes = b.objects.map((o) => o.toString('base64', 0, Math.min(o.length, PREFIX_BYTES)));
  const whole = b.objects.some((o) => o.length <= PREFIX_BYTES) || new Set(prefixes).size !== prefixes.length;
  b.objects.forEach((o, i) => {
    // Base64 needs no escaping: the text is the struct's JSON as it is (or the start of it).
    const text = whole ? `{"data":"${o.toString('base64')}"}` : `{"data":"${prefixes[i] ?? ''}`;
    out.push({ type: 'olm.bundle.object', text, value: {}, object: o });
  });
  const props: Built[] = [];
  for (const p of out) {
    if (p.value !== undefined) {
      props.push(p);
      continue;
    }
    try {
      props.push({ type: p.type, text: compact(p.text) });
    } catch {
      throw new OpmError(
        `bundle ${goQuote(b.bundleName)}: property of type ${goQuote(p.type)} is not JSON: ${p.text.slice(0, 80)}`,
      );
    }
  }
  props.sort((x, y) => compareUtf8(x.type, y.type) || compareUtf8(x.text, y.text));
  // Repeats of a type and value are next to each other once sorted: one of each is kept.
  const kept = props.filter((p, i) => {
    const prev = props[i - 1];
    return prev === undefined || prev.type !== p.type || prev.text !== p.text;
  });
  const objectOrder: Buffer[] = [];
  const properties = kept.map((p): Property => {
    if (p.object === undefined) return { type: p.type, value: p.value ?? new RawJson(p.text) };
    objectOrder.push(p.object);
    return { type: p.type, value: b.deferObjects === true ? {} : { data: p.object.toString('base64') } };
  });
  return { properties, objectOrder };
}

/** spec.relatedImages of the CSV, as opm reads them (name and image; none without a CSV). */
export function relatedImagesOf(csv: Record<string, unknown> | undefined): RelatedImage[] {
  if (csv === undefined) return [];
  const spec = Object.entries(csv).find(([k]) => goFieldFor(k, ['spec']) === 'spec')?.[1];
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return [];
  const list = Object.entries(spec).find(([k]) => goFieldFor(k, ['relatedImages']) === 'relatedImages')?.[1];
  if (!Array.isArray(list)) return [];
  return list.map((ri) => {
    const o =
      typeof ri === 'object' && ri !== null && !Array.isArray(ri) ? (ri as Record<string, unknown>) : {};
    return { name: stringField(o, 'name'), image: stringField(o, 'image') };
  });
}
