/**
 * registry.proto and the hand-written codecs agree (protobufjs reads the proto): every RPC's request
 * has a decoder and its response an encoder; a response with every field set encodes to the field
 * numbers and wire types the proto declares, every field present, and decodes under the proto's
 * names to what was encoded; a request with every field set, encoded by protobufjs, decodes under
 * the proto's names. An RPC added to the proto without its codecs fails here.
 */
import type protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import {
  apiMessages,
  checkAgainst,
  decodeAs,
  fullSample,
  nameOf,
  parseProto,
  registryProtoText,
  rpcsOf,
} from '../../test/serve/proto-shape.js';
import type { JsonObject } from '../go/json-value.js';
import { encodeStruct } from '../protobuf/struct.js';
import {
  decodeBundle,
  decodeCustomSchemasRequest,
  decodeEmptyRequest,
  decodeGetAllReplacementsRequest,
  decodeGetBundleInChannelRequest,
  decodeGetBundleRequest,
  decodeGetPackageRequest,
  decodeGetReplacementRequest,
  decodeProvidersRequest,
  encodeBundle,
  encodeChannelEntry,
  encodePackage,
  encodePackageName,
  type ApiBundle,
  type ApiChannelEntry,
  type ApiPackage,
} from './messages.js';

type Sample = Record<string, unknown>;

/** The encoder of each message the server sends, by the proto's name of its type. */
const ENCODERS: Readonly<Record<string, (m: Sample) => Uint8Array>> = {
  'api.PackageName': (m) => encodePackageName(m.name as string),
  'api.Package': (m) => encodePackage(m as unknown as ApiPackage),
  'api.Bundle': (m) => encodeBundle(m as unknown as ApiBundle),
  'api.ChannelEntry': (m) => encodeChannelEntry(m as unknown as ApiChannelEntry),
};

/** google.protobuf.Struct is written from a JSON object, not from its fields. */
const STRUCT_SAMPLE: JsonObject = { s: 'x', n: 1.5, t: true, nil: null, list: [1, 'a', []], o: { k: {} } };

/** The decoder of each message the server reads (requests; Bundle from an on-disk cache). */
const DECODERS: Readonly<Record<string, (b: Uint8Array) => unknown>> = {
  'api.ListPackageRequest': decodeEmptyRequest,
  'api.ListBundlesRequest': decodeEmptyRequest,
  'api.GetPackageRequest': decodeGetPackageRequest,
  'api.GetBundleRequest': decodeGetBundleRequest,
  'api.GetBundleInChannelRequest': decodeGetBundleInChannelRequest,
  'api.GetAllReplacementsRequest': decodeGetAllReplacementsRequest,
  'api.GetReplacementRequest': decodeGetReplacementRequest,
  'api.GetAllProvidersRequest': decodeProvidersRequest,
  'api.GetLatestProvidersRequest': decodeProvidersRequest,
  'api.GetDefaultProviderRequest': decodeProvidersRequest,
  'api.ExperimentalListPackageCustomSchemasRequest': decodeCustomSchemasRequest,
  'api.Bundle': (b) => decodeBundle(b),
};

/** What of the proto `root` has no codec here: RPCs first, then messages no RPC reaches. */
function missingCodecs(root: protobuf.Root): string[] {
  const missing: string[] = [];
  const reached = new Set<string>();
  const reach = (t: protobuf.Type): void => {
    if (reached.has(nameOf(t))) return;
    reached.add(nameOf(t));
    for (const f of t.fieldsArray)
      if (f.resolvedType !== null && 'fieldsArray' in f.resolvedType) reach(f.resolvedType);
  };
  for (const rpc of rpcsOf(root)) {
    if (DECODERS[nameOf(rpc.request)] === undefined)
      missing.push(`${rpc.path}: no decoder of its request ${nameOf(rpc.request)}`);
    const response = nameOf(rpc.response);
    if (ENCODERS[response] === undefined && response !== 'google.protobuf.Struct')
      missing.push(`${rpc.path}: no encoder of its response ${response}`);
    reach(rpc.request);
    reach(rpc.response);
  }
  for (const t of apiMessages(root))
    if (!reached.has(nameOf(t))) missing.push(`${nameOf(t)}: no RPC sends or reads it`);
  return missing;
}

const root = parseProto(registryProtoText());

describe('registry.proto and the codecs of api-contract/', () => {
  it('every RPC has a decoder of its request and an encoder of its response', () => {
    expect(rpcsOf(root).length).toBe(11);
    expect(missingCodecs(root)).toEqual([]);
  });

  it('an RPC added to the proto without its codecs is reported', () => {
    const text = registryProtoText().replace(
      'service Registry {',
      'service Registry {\n  rpc GetNothing(GetNothingRequest) returns (Nothing) {}',
    );
    const added = parseProto(`${text}\nmessage GetNothingRequest { string id = 1; }\nmessage Nothing {}\n`);
    expect(missingCodecs(added)).toEqual([
      'api.Registry/GetNothing: no decoder of its request api.GetNothingRequest',
      'api.Registry/GetNothing: no encoder of its response api.Nothing',
    ]);
  });

  it.each(Object.keys(ENCODERS))(
    '%s: every field written with its number and wire type, read back under its name',
    (name) => {
      const t = root.lookupType(name);
      const sample = fullSample(t);
      const bytes = (ENCODERS[name] as (m: Sample) => Uint8Array)(sample);
      const { problems, seen } = checkAgainst(t, bytes);
      expect(problems).toEqual([]);
      // Every field of the type and of the types inside it is on the wire.
      const declared: string[] = [];
      const walk = (x: protobuf.Type): void => {
        for (const f of x.fieldsArray) {
          declared.push(`${nameOf(x)}.${f.name}`);
          if (f.resolvedType !== null && 'fieldsArray' in f.resolvedType) walk(f.resolvedType);
        }
      };
      walk(t);
      expect([...seen].sort()).toEqual([...new Set(declared)].sort());
      expect(decodeAs(t, bytes)).toEqual(sample);
    },
  );

  it('google.protobuf.Struct: written with the numbers and wire types of struct.proto', () => {
    const t = root.lookupType('google.protobuf.Struct');
    expect(checkAgainst(t, encodeStruct(STRUCT_SAMPLE)).problems).toEqual([]);
  });

  it.each(Object.keys(DECODERS))(
    '%s: every field read under its name from what protobufjs writes',
    (name) => {
      const t = root.lookupType(name);
      const sample = fullSample(t);
      const bytes = t.encode(t.fromObject(sample)).finish();
      expect((DECODERS[name] as (b: Uint8Array) => unknown)(bytes)).toEqual(sample);
    },
  );
});
