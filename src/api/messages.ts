/**
 * The messages of operator-registry's `api` package (registry.proto beside this file) as plain
 * data, with their protobuf encoding. Field numbers follow the proto; empty fields are left out as
 * proto3 does.
 */
import { decodeStrings, ProtoWriter } from './wire.js';

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

export interface ApiDependency {
  type: string;
  value: string;
}

export interface ApiProperty {
  type: string;
  value: string;
}

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
