/**
 * The messages of operator-registry's `api` package (registry.proto beside this file) as plain
 * data, with their protobuf encoding. Field numbers follow the proto; empty fields are left out as
 * proto3 does. `Bundle` is one type for the server and the on-disk cache: its encoding is what Go's
 * proto.Marshal writes (fields in field-number order), so a bundle read from a cache either opm
 * wrote encodes back to the bytes it was read from.
 */
import { decodeStrings, ProtoReader, ProtoWriter } from '../protobuf/wire.js';

export interface ApiDeprecation {
  message: string;
}

export interface ApiChannel {
  name: string;
  csvName: string;
  deprecation?: ApiDeprecation | undefined;
}

export interface ApiPackage {
  name: string;
  channels: ApiChannel[];
  defaultChannelName: string;
  deprecation?: ApiDeprecation | undefined;
}

export interface ApiGroupVersionKind {
  group: string;
  version: string;
  kind: string;
  plural?: string;
}

/** A Dependency or a Property: a type and its value as JSON text. */
export interface ApiTypedValue {
  type: string;
  value: string;
}

export type ApiDependency = ApiTypedValue;
export type ApiProperty = ApiTypedValue;

export interface ApiChannelEntry {
  packageName: string;
  channelName: string;
  bundleName: string;
  replaces: string;
}

export interface ApiBundle {
  csvName: string;
  packageName: string;
  channelName: string;
  csvJson: string;
  object: string[];
  bundlePath: string;
  providedApis: ApiGroupVersionKind[];
  requiredApis: ApiGroupVersionKind[];
  version: string;
  skipRange: string;
  dependencies: ApiDependency[];
  properties: ApiProperty[];
  replaces: string;
  skips: string[];
  deprecation?: ApiDeprecation | undefined;
}

/** A Bundle with every field at its default (nothing on the wire). */
export function emptyBundle(): ApiBundle {
  return {
    csvName: '',
    packageName: '',
    channelName: '',
    csvJson: '',
    object: [],
    bundlePath: '',
    providedApis: [],
    requiredApis: [],
    version: '',
    skipRange: '',
    dependencies: [],
    properties: [],
    replaces: '',
    skips: [],
  };
}

function deprecation(d: ApiDeprecation | undefined): Uint8Array | undefined {
  return d === undefined ? undefined : new ProtoWriter().string(1, d.message).finish();
}

function gvk(g: ApiGroupVersionKind): Uint8Array {
  return new ProtoWriter()
    .string(1, g.group)
    .string(2, g.version)
    .string(3, g.kind)
    .string(4, g.plural)
    .finish();
}

function typeValue(p: { type: string; value: string }): Uint8Array {
  return new ProtoWriter().string(1, p.type).string(2, p.value).finish();
}

export function encodePackageName(name: string): Uint8Array {
  return new ProtoWriter().string(1, name).finish();
}

export function encodePackage(p: ApiPackage): Uint8Array {
  const w = new ProtoWriter().string(1, p.name);
  for (const ch of p.channels) {
    w.message(
      2,
      new ProtoWriter()
        .string(1, ch.name)
        .string(2, ch.csvName)
        .message(3, deprecation(ch.deprecation))
        .finish(),
    );
  }
  return w.string(3, p.defaultChannelName).message(4, deprecation(p.deprecation)).finish();
}

export function encodeChannelEntry(e: ApiChannelEntry): Uint8Array {
  return new ProtoWriter()
    .string(1, e.packageName)
    .string(2, e.channelName)
    .string(3, e.bundleName)
    .string(4, e.replaces)
    .finish();
}

/** `proto.Marshal` of an `api.Bundle`. */
export function encodeBundle(b: ApiBundle): Uint8Array {
  const w = new ProtoWriter()
    .string(1, b.csvName)
    .string(2, b.packageName)
    .string(3, b.channelName)
    .string(4, b.csvJson)
    .strings(5, b.object)
    .string(6, b.bundlePath);
  for (const g of b.providedApis) w.message(7, gvk(g));
  for (const g of b.requiredApis) w.message(8, gvk(g));
  w.string(9, b.version).string(10, b.skipRange);
  for (const d of b.dependencies) w.message(11, typeValue(d));
  for (const p of b.properties) w.message(12, typeValue(p));
  return w.string(13, b.replaces).strings(14, b.skips).message(15, deprecation(b.deprecation)).finish();
}

const WIRE_BYTES = 2;

function readGvk(r: ProtoReader): ApiGroupVersionKind {
  const g: ApiGroupVersionKind = { group: '', version: '', kind: '', plural: '' };
  while (!r.done()) {
    const [f, wire] = r.tag();
    if (wire !== WIRE_BYTES || f < 1 || f > 4) r.skip(wire);
    else if (f === 1) g.group = r.string();
    else if (f === 2) g.version = r.string();
    else if (f === 3) g.kind = r.string();
    else g.plural = r.string();
  }
  return g;
}

function readTypedValue(r: ProtoReader): ApiTypedValue {
  const t: ApiTypedValue = { type: '', value: '' };
  while (!r.done()) {
    const [f, wire] = r.tag();
    if (wire === WIRE_BYTES && f === 1) t.type = r.string();
    else if (wire === WIRE_BYTES && f === 2) t.value = r.string();
    else r.skip(wire);
  }
  return t;
}

type BundleString =
  'csvName' | 'packageName' | 'channelName' | 'csvJson' | 'bundlePath' | 'version' | 'skipRange' | 'replaces';
const BUNDLE_STRINGS: Readonly<Record<number, BundleString>> = {
  1: 'csvName',
  2: 'packageName',
  3: 'channelName',
  4: 'csvJson',
  6: 'bundlePath',
  9: 'version',
  10: 'skipRange',
  13: 'replaces',
};

/**
 * `proto.Unmarshal` into an `api.Bundle` (a cache's value): fields it does not know are skipped, as
 * any protobuf reader does; a GroupVersionKind read has its `plural`, empty or not. Without
 * `withManifests`, `csvJson` and `object` are left empty (ListBundles drops them for a bundle with
 * an image).
 */
export function decodeBundle(buf: Uint8Array, withManifests = true): ApiBundle {
  const b = emptyBundle();
  const r = new ProtoReader(buf);
  while (!r.done()) {
    const [f, wire] = r.tag();
    // Without manifests, the CSV and the objects (most of a bundle's bytes) are skipped unread.
    if (wire !== WIRE_BYTES || (!withManifests && (f === 4 || f === 5))) {
      r.skip(wire);
      continue;
    }
    const s = BUNDLE_STRINGS[f];
    if (s !== undefined) b[s] = r.string();
    else if (f === 5) b.object.push(r.string());
    else if (f === 7) b.providedApis.push(readGvk(r.sub()));
    else if (f === 8) b.requiredApis.push(readGvk(r.sub()));
    else if (f === 11) b.dependencies.push(readTypedValue(r.sub()));
    else if (f === 12) b.properties.push(readTypedValue(r.sub()));
    else if (f === 14) b.skips.push(r.string());
    else if (f === 15) {
      const d = { message: '' };
      const sub = r.sub();
      while (!sub.done()) {
        const [df, dw] = sub.tag();
        if (df === 1 && dw === WIRE_BYTES) d.message = sub.string();
        else sub.skip(dw);
      }
      b.deprecation = d;
    } else r.skip(wire);
  }
  return b;
}

// Requests: every field is a string.

export const decodeGetPackageRequest = (buf: Uint8Array) => decodeStrings(buf, { 1: 'name' });
export const decodeGetBundleRequest = (buf: Uint8Array) =>
  decodeStrings(buf, { 1: 'pkgName', 2: 'channelName', 3: 'csvName' });
export const decodeGetBundleInChannelRequest = (buf: Uint8Array) =>
  decodeStrings(buf, { 1: 'pkgName', 2: 'channelName' });
export const decodeGetAllReplacementsRequest = (buf: Uint8Array) => decodeStrings(buf, { 1: 'csvName' });
export const decodeGetReplacementRequest = (buf: Uint8Array) =>
  decodeStrings(buf, { 1: 'csvName', 2: 'pkgName', 3: 'channelName' });
/** GetAllProvidersRequest, GetLatestProvidersRequest and GetDefaultProviderRequest. */
export const decodeProvidersRequest = (buf: Uint8Array) =>
  decodeStrings(buf, { 1: 'group', 2: 'version', 3: 'kind', 4: 'plural' });
export const decodeCustomSchemasRequest = (buf: Uint8Array) =>
  decodeStrings(buf, { 1: 'schema', 2: 'packageName' });
/** ListPackageRequest and ListBundlesRequest: no fields (unknown ones are skipped). */
export const decodeEmptyRequest = (buf: Uint8Array) => decodeStrings(buf, {});
