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

/** A row of `properties` or `dependencies`: its type and its value's JSON text. */
export interface TypedValue {
  type: string;
  value: string;
}

/** Go's decoder refuses deeper nesting. */
const MAX_DEPTH = 10000;

/** The JSON texts of the objects in a `bundle` column, and the CSV's (`''` when there is none). */
export function splitBundleObjects(stored: string): { objects: string[]; csvJson: string } {
  const objects: string[] = [];
  let csvJson: string | undefined;
  let pos = 0;
  for (;;) {
    while (pos < stored.length && /[ \t\r\n]/.test(stored[pos] as string)) pos++;
    if (pos >= stored.length) break;
    const r = scanJsonValue(stored, pos, MAX_DEPTH);
    if (!r.ok) throw new OpmError(`bundle manifests are not JSON: ${r.message}`);
    const obj = stored.slice(pos, r.end);
    objects.push(obj);
    if (csvJson === undefined && kindOf(obj) === 'ClusterServiceVersion') csvJson = obj;
    pos = r.end;
  }
  if (csvJson === undefined) throw new OpmError('no csv in bundle');
  return { objects, csvJson };
}

function kindOf(obj: string): unknown {
  // Cheap first: most objects are not the CSV, and a CRD is large to parse.
  if (!obj.includes('ClusterServiceVersion')) return undefined;
  const v: unknown = JSON.parse(obj);
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>).kind
    : undefined;
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

/** Property text as opm builds it from a Go struct (field order kept, no HTML escaping). */
function built(type: string, fields: Record<string, string>): { type: string; text: string } {
  return { type, text: marshal(goStruct(fields), false) };
}

/** Compact JSON text, as Go's json.Compact writes it. */
function compact(text: string): string {
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
  objects: readonly string[];
}

/** The properties of a bundle, in the order opm's model conversion leaves them. */
export function bundleProperties(b: BundleRows): Property[] {
  const out: { type: string; text: string }[] = [];
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
  for (const o of b.objects) {
    out.push(built('olm.bundle.object', { data: Buffer.from(o, 'utf8').toString('base64') }));
  }
  const seen = new Set<string>();
  const props: { type: string; text: string }[] = [];
  for (const p of out) {
    let text: string;
    try {
      text = compact(p.text);
    } catch {
      throw new OpmError(
        `bundle ${goQuote(b.bundleName)}: property of type ${goQuote(p.type)} is not JSON: ${p.text.slice(0, 80)}`,
      );
    }
    const key = `${p.type}\0${text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    props.push({ type: p.type, text });
  }
  props.sort((x, y) => compareUtf8(x.type, y.type) || compareUtf8(x.text, y.text));
  return props.map((p) => ({ type: p.type, value: new RawJson(p.text) }));
}

/** spec.relatedImages of the CSV, as opm reads them (name and image; none without a CSV). */
export function relatedImagesOf(csvJson: string, bundleName: string): RelatedImage[] {
  if (csvJson === '') return [];
  const csv = parseObject(
    csvJson,
    `convert bundle ${goQuote(bundleName)}: get related iamges: unmarshal csv`,
  );
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
