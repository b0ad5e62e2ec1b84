import { describe, expect, it } from 'vitest';
import { decodeBundle, emptyBundle, encodeBundle, type ApiBundle } from '../api-contract/messages.js';
import { decodeStruct, encodeStruct } from './struct.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

function fullBundle(): ApiBundle {
  return {
    csvName: 'etcd.v0.9.2',
    packageName: 'etcd',
    channelName: 'alpha',
    csvJson: '{"kind":"ClusterServiceVersion"}',
    object: ['{"kind":"ClusterServiceVersion"}', '{"kind":"CustomResourceDefinition"}'],
    bundlePath: 'quay.io/example/etcd-bundle:v0.9.2',
    providedApis: [
      { group: 'etcd.database.coreos.com', version: 'v1beta2', kind: 'EtcdCluster', plural: '' },
    ],
    requiredApis: [{ group: 'x', version: 'v1', kind: 'Y', plural: 'ys' }],
    version: '0.9.2',
    skipRange: '>=0.9.0 <0.9.2',
    dependencies: [{ type: 'olm.package', value: '{"packageName":"cert-manager","version":">=1.0.0"}' }],
    properties: [{ type: 'olm.package', value: '{"packageName":"etcd","version":"0.9.2"}' }],
    replaces: 'etcd.v0.9.0',
    skips: ['etcd.v0.9.1', ''],
    deprecation: { message: 'é ünïcode' },
  };
}

describe('api.Bundle', () => {
  it('round-trips every field', () => {
    const b = fullBundle();
    expect(decodeBundle(encodeBundle(b))).toEqual(b);
  });

  it('read without manifests: every field but the CSV and the objects', () => {
    const b = fullBundle();
    expect(b.csvJson).not.toBe('');
    expect(b.object.length).toBeGreaterThan(0);
    expect(decodeBundle(encodeBundle(b), false)).toEqual({ ...b, csvJson: '', object: [] });
  });

  it('writes fields in field-number order, proto3 defaults left out', () => {
    const b = emptyBundle();
    expect(encodeBundle(b).length).toBe(0);
    b.csvName = 'a';
    b.skips = [''];
    b.deprecation = { message: '' };
    // 1:"a" (0a 01 61), 14:"" (72 00: a repeated item is written even when empty), 15:{} (7a 00).
    expect(hex(encodeBundle(b))).toBe('0a0161' + '7200' + '7a00');
  });

  it('skips fields it does not know', () => {
    const known = encodeBundle({ ...emptyBundle(), version: '1.0.0' });
    // Field 99 as a varint (tag 99<<3|0 = 0x98 0x06) and field 98 as bytes, before the known one.
    const withUnknown = Buffer.concat([Buffer.from('9806' + '05' + '9206' + '0178', 'hex'), known]);
    expect(decodeBundle(withUnknown).version).toBe('1.0.0');
  });

  it('refuses a length running past the message', () => {
    expect(() => decodeBundle(Buffer.from('0a05616263', 'hex'))).toThrow(/runs past/);
  });
});

describe('google.protobuf.Struct', () => {
  it('writes map entries in byte order of their keys, each value by its kind', () => {
    // {"b": true, "a": null}: entry a (key 0a0161, value 12 02 0800) then entry b (value 12 02 2001).
    expect(hex(encodeStruct({ b: true, a: null }))).toBe('0a070a0161120208000a070a016212022001');
    // A number is a double (field 2, fixed64): 1 = 0x3ff0000000000000, little-endian.
    expect(hex(encodeStruct({ n: 1 }))).toBe('0a0e0a016e1209' + '11000000000000f03f');
    // Byte order, not UTF-16 order: U+FF5E sorts before U+1F600.
    const keys = Object.keys(decodeStruct(encodeStruct({ '\u{1f600}': 1, '\uff5e': 2, Z: 3, a: 4 })));
    expect(keys).toEqual(['Z', 'a', '\uff5e', '\u{1f600}']);
  });

  it('round-trips nested objects, lists, empty values and a __proto__ key', () => {
    const v = JSON.parse(
      '{"s":"","n":-0.25,"big":1e21,"t":false,"z":null,"l":[1,"x",true,null,{},[]],"o":{"k":{"__proto__":1}}}',
    ) as Record<string, never>;
    const back = decodeStruct(encodeStruct(v));
    expect(back).toEqual(v);
    expect(Object.keys((back.o as Record<string, Record<string, unknown>>).k as object)).toEqual([
      '__proto__',
    ]);
  });
});
