/**
 * Our protobuf encoding and descriptors read back by protobufjs (another implementation): the
 * hand-declared FileDescriptorProtos describe the same messages and services as registry.proto,
 * and the messages we encode decode to what was encoded.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import { describe, expect, it } from 'vitest';
import { descriptorSet, HEALTH_FILE, REGISTRY_FILE, STRUCT_FILE } from './descriptors.js';
import { encodeBundle, encodePackage, type ApiBundle } from './messages.js';
import { encodeStruct } from '../protobuf/struct.js';
import { ProtoWriter } from '../protobuf/wire.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fromText = new protobuf.Root();
fromText.addJSON((protobuf.common.get('google/protobuf/struct.proto') as protobuf.INamespace).nested ?? {});
protobuf.parse(readFileSync(path.join(here, 'registry.proto'), 'utf8'), fromText, { keepCase: true });
fromText.resolveAll();

interface Described {
  fields: Record<string, { id: number; type: string; repeated: boolean }>;
}

function shape(root: protobuf.Root, name: string): Described {
  const t = root.lookupType(name);
  return {
    fields: Object.fromEntries(
      t.fieldsArray.map((f) => [
        f.name,
        { id: f.id, type: f.resolvedType?.fullName ?? f.type, repeated: f.repeated },
      ]),
    ),
  };
}

describe('descriptors', () => {
  const set = descriptorSet([REGISTRY_FILE, STRUCT_FILE, HEALTH_FILE]);
  const fileSet = (descriptor.FileDescriptorSet as unknown as protobuf.Type).decode(
    Buffer.concat(
      [...set.files.values()].map((f) => Buffer.concat([Buffer.from([0x0a]), varint(f.length), f])),
    ),
  );
  const fromDescriptors = (
    protobuf.Root as unknown as { fromDescriptor(d: unknown): protobuf.Root }
  ).fromDescriptor(fileSet);
  fromDescriptors.resolveAll();

  it('declare every message of registry.proto with the same fields', () => {
    const api = fromText.lookup('api') as protobuf.Namespace;
    const messages = api.nestedArray
      .filter((n): n is protobuf.Type => n instanceof protobuf.Type)
      .map((t) => t.name);
    expect(messages.length).toBe(20);
    for (const m of messages)
      expect(shape(fromDescriptors, `api.${m}`), m).toEqual(shape(fromText, `api.${m}`));
  });

  it('declare the services with the same methods and streaming', () => {
    for (const s of ['api.Registry', 'api.ExperimentalRegistry']) {
      const a = fromText.lookupService(s);
      const b = fromDescriptors.lookupService(s);
      const methods = (x: protobuf.Service) =>
        x.methodsArray.map((m) => [
          m.name,
          m.resolvedRequestType?.fullName,
          m.resolvedResponseType?.fullName,
          !!m.responseStream,
        ]);
      expect(methods(b)).toEqual(methods(a));
    }
    expect(fromDescriptors.lookupService('grpc.health.v1.Health').methodsArray.map((m) => m.name)).toEqual([
      'Check',
      'List',
      'Watch',
    ]);
  });

  it('index every symbol grpcurl asks for', () => {
    for (const s of [
      'api.Registry',
      'api.Registry.GetBundle',
      'api.Bundle',
      'google.protobuf.Struct',
      'grpc.health.v1.Health',
    ])
      expect(set.symbols.has(s), s).toBe(true);
    expect(set.imports.get('registry.proto')).toEqual(['google/protobuf/struct.proto']);
  });
});

function varint(n: number): Buffer {
  const out: number[] = [];
  let x = n;
  while (x > 0x7f) {
    out.push((x & 0x7f) | 0x80);
    x >>>= 7;
  }
  out.push(x);
  return Buffer.from(out);
}

describe('ProtoWriter', () => {
  it('writes every string as tag, UTF-8 length and UTF-8 bytes, short or long, one message after another', () => {
    const texts = [
      'a',
      'x'.repeat(85),
      'x'.repeat(86),
      'é'.repeat(85),
      '\u{1f600}'.repeat(40),
      'lone \ud800 surrogate',
      'y'.repeat(300),
      '€'.repeat(85),
      '',
    ];
    const w = new ProtoWriter();
    const expected: Buffer[] = [];
    for (const t of texts) {
      w.stringAlways(3, t);
      const bytes = Buffer.from(t, 'utf8');
      expected.push(Buffer.from([3 * 8 + 2]), varint(bytes.length), bytes);
    }
    expect(Buffer.from(w.finish()).equals(Buffer.concat(expected))).toBe(true);
  });
});

describe('messages', () => {
  it('a Bundle decodes to what was encoded, empty fields left out', () => {
    const b: ApiBundle = {
      csvName: 'a.v1',
      packageName: 'a',
      channelName: 'stable',
      csvJson: '{"kind":"ClusterServiceVersion"}',
      object: ['{"kind":"ClusterServiceVersion"}', ''],
      bundlePath: '',
      providedApis: [{ group: 'g', version: 'v1', kind: 'K' }],
      requiredApis: [],
      version: '1.0.0',
      skipRange: '<1.0.0',
      dependencies: [{ type: 'olm.gvk', value: '{}' }],
      properties: [{ type: 'olm.package', value: '{"packageName":"a","version":"1.0.0"}' }],
      replaces: 'a.v0',
      skips: ['a.v0.5', 'ünïcode'],
      deprecation: { message: 'old' },
    };
    const decoded = fromText
      .lookupType('api.Bundle')
      .toObject(fromText.lookupType('api.Bundle').decode(encodeBundle(b)));
    const { bundlePath: _p, requiredApis: _r, ...rest } = b;
    expect(decoded).toEqual(rest);
  });

  it('a Package keeps channel order and deprecations', () => {
    const t = fromText.lookupType('api.Package');
    const p = {
      name: 'p',
      channels: [
        { name: 'a', csvName: 'x', deprecation: { message: '' } },
        { name: 'b', csvName: 'y' },
      ],
      defaultChannelName: 'b',
    };
    expect(t.toObject(t.decode(encodePackage(p)))).toEqual({
      name: 'p',
      channels: [
        { name: 'a', csvName: 'x', deprecation: {} },
        { name: 'b', csvName: 'y' },
      ],
      defaultChannelName: 'b',
    });
  });

  it('a Struct carries every JSON kind, numbers as doubles', () => {
    const root = protobuf.Root.fromJSON(
      protobuf.common.get('google/protobuf/struct.proto') as protobuf.INamespace,
    );
    const t = root.lookupType('google.protobuf.Struct');
    const value = {
      s: 'x',
      n: 1.5,
      big: 1e21,
      zero: 0,
      t: true,
      f: false,
      nil: null,
      list: [1, 'a', []],
      o: { k: {} },
    };
    const decoded = t.toObject(t.decode(encodeStruct(value)), { enums: String }) as {
      fields: Record<string, unknown>;
    };
    const plain = (v: Record<string, unknown>): unknown => {
      const [kind, x] = Object.entries(v)[0] as [string, unknown];
      if (kind === 'nullValue') return null;
      if (kind === 'listValue')
        return ((x as { values?: Record<string, unknown>[] }).values ?? []).map(plain);
      if (kind === 'structValue')
        return Object.fromEntries(
          Object.entries((x as { fields?: Record<string, Record<string, unknown>> }).fields ?? {}).map(
            ([k, e]) => [k, plain(e)],
          ),
        );
      return x;
    };
    expect(
      Object.fromEntries(
        Object.entries(decoded.fields).map(([k, e]) => [k, plain(e as Record<string, unknown>)]),
      ),
    ).toEqual(value);
  });
});
