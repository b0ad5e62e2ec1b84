/**
 * A bundle read from its image, in the shape `registry add` stores it: the values of its
 * operatorbundle row, its images, its APIs, and the properties and dependencies rows it brings.
 * Each value as opm v1.73 computes it from the same bundle directory.
 */
import { OpmError } from '../../errors.js';
import { RawJson } from '../../go/raw-json.js';
import { marshal } from '../../go/json-encode.js';
import { goStruct } from '../../go/go-struct.js';
import type { Obj } from '../../go/json-decode.js';
import type { RegistryBundle } from '../../bundle/parse.js';
import { annotationProperties, crdApis, objectJson } from '../../bundle/convert.js';
import { CHANNELS_LABEL, DEFAULT_CHANNEL_LABEL } from '../../bundle/labels.js';
import {
  csvAnnotations,
  csvRelatedImages,
  csvRelease,
  operatorImages,
  ownedApiServices,
  requiredApiServices,
  requiredCrds,
  splitCrdName,
} from '../../bundle/csv.js';

/** A row of the `api` table and of api_provider / api_requirer. */
export interface Api {
  group: string;
  version: string;
  kind: string;
  plural: string;
}

export interface BundleRecord {
  name: string;
  packageName: string;
  channels: string[];
  /** The annotations' default channel ('' when none). */
  defaultChannel: string;
  /** The bundle's image reference, as given. */
  image: string;
  version: string;
  skipRange: string;
  replaces: string;
  skips: string[];
  substitutesFor: string;
  /** The CSV's JSON (Go's encoder: keys sorted, a newline after). */
  csvJson: string;
  /** Every manifest's JSON, one after another. */
  bundleJson: string;
  /** Distinct images: the bundle's, the install deployments', the related ones. */
  images: string[];
  provided: Api[];
  required: Api[];
  /** Rows of `dependencies` (values stored as bytes, as opm's driver stores a []byte). */
  dependencies: Array<{ type: string; value: Uint8Array }>;
  /** Distinct (type, value) rows of `properties` the bundle brings. */
  properties: Array<{ type: string; value: string }>;
}

const enc = new TextEncoder();

function specString(csv: Obj, key: string): string {
  const spec = csv.spec;
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return '';
  const v = (spec as Obj)[key];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string')
    throw new OpmError(
      `unable to obtain ${key} : json: cannot unmarshal ${typeof v} into Go value of type string`,
    );
  return v;
}

function specStrings(csv: Obj, key: string): string[] {
  const spec = csv.spec;
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return [];
  const v = (spec as Obj)[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string'))
    throw new OpmError(`unable to obtain ${key} : json: cannot unmarshal into Go value of type []string`);
  return v as string[];
}

function apiKey(a: Api): string {
  return `${a.group}\u0000${a.version}\u0000${a.kind}\u0000${a.plural}`;
}

function distinctApis(list: Api[]): Api[] {
  const seen = new Map<string, Api>();
  for (const a of list) if (!seen.has(apiKey(a))) seen.set(apiKey(a), a);
  return [...seen.values()];
}

/** JSON text opm keeps for a value given as raw JSON: compacted, HTML escaped (json.Marshal of a RawMessage). */
function rawText(text: string): string {
  return marshal(new RawJson(text), true);
}

function gvkText(a: { group: string; kind: string; version: string }): string {
  return marshal(goStruct({ group: a.group, kind: a.kind, version: a.version }), true);
}

/** The record `registry add` makes of a bundle parsed from the image `image`. */
export function bundleRecord(b: RegistryBundle, image: string): BundleRecord {
  const csv = b.csv.object;
  const annotations = (() => {
    try {
      return csvAnnotations(csv);
    } catch {
      return {} as Obj;
    }
  })();
  const ann = (k: string): string => (typeof annotations[k] === 'string' ? (annotations[k] as string) : '');
  const version = specString(csv, 'version');
  const release = csvRelease(csv);

  const provided = distinctApis([
    ...crdApis(b),
    ...ownedApiServices(csv).map((a) => ({
      group: a.group,
      version: a.version,
      kind: a.kind,
      plural: a.name,
    })),
  ]);
  const requiredList: Api[] = [];
  for (const c of requiredCrds(csv)) {
    const split = splitCrdName(c.name);
    if (split === undefined) throw new OpmError(`couldn't parse plural.group from crd name: ${c.name}`);
    requiredList.push({ group: split.group, version: c.version, kind: c.kind, plural: split.plural });
  }
  for (const a of requiredApiServices(csv))
    requiredList.push({ group: a.group, version: a.version, kind: a.kind, plural: a.name });
  const required = distinctApis(requiredList);

  const images = new Set<string>();
  if (image !== '') images.add(image);
  for (const i of operatorImages(csv)) images.add(i);
  for (const r of csvRelatedImages(csv)) images.add(r.image);

  const dependencies = b.dependencies.map((d) => ({ type: d.type, value: enc.encode(d.text) }));
  for (const a of required) {
    dependencies.push({ type: 'olm.gvk', value: enc.encode(gvkText(a)) });
  }

  // The bundle's property set: its properties file, the derived package property, the CSV's
  // olm.properties annotation and the provided GVKs; each value compacted; repeats once.
  const props = new Map<string, { type: string; value: string }>();
  const add = (type: string, value: string): void => {
    const k = `${type}\u0000${value}`;
    if (!props.has(k)) props.set(k, { type, value });
  };
  for (const p of b.properties) add(p.type, p.text === '' ? 'null' : rawText(p.text));
  if (b.packageName !== '') {
    const pkg: Record<string, string> = { packageName: b.packageName, version };
    if (release !== '') pkg.release = release;
    add('olm.package', marshal(goStruct(pkg), true));
  }
  for (const p of annotationProperties(b, () => undefined))
    add(p.type, p.text === '' ? 'null' : rawText(p.text));
  for (const a of provided) add('olm.gvk', gvkText(a));

  return {
    name: b.name,
    packageName: b.packageName,
    channels: (b.annotations[CHANNELS_LABEL] ?? '')
      .split(',')
      .filter((_, i, all) => all.length > 1 || all[0] !== ''),
    defaultChannel: b.annotations[DEFAULT_CHANNEL_LABEL] ?? '',
    image,
    version,
    skipRange: ann('olm.skipRange'),
    replaces: specString(csv, 'replaces'),
    skips: specStrings(csv, 'skips'),
    substitutesFor: ann('olm.substitutesFor'),
    csvJson: `${objectJson(b.csv)}\n`,
    bundleJson: b.objects.map((m) => `${objectJson(m)}\n`).join(''),
    images: [...images],
    provided,
    required,
    dependencies,
    properties: [...props.values()],
  };
}
