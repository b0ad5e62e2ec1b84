import { describe, expect, it } from 'vitest';
import { decodeBundle, emptyBundle, encodeBundle, type ApiBundle } from '../api-contract/messages.js';
import { ProtoWriter } from '../protobuf/wire.js';
import { ListedBundleReader } from './listed-bundle.js';
import type { StoredValue } from './pogreb.js';

/**
 * A value held in memory, opened as the pogreb reader opens one (its first bytes read into the
 * head given), counting the bytes read from it.
 */
function stored(bytes: Uint8Array): {
  open: (head: Uint8Array) => { value: StoredValue; headLength: number };
  bytesRead: number;
} {
  const s = {
    bytesRead: 0,
    open: (head: Uint8Array) => {
      const headLength = Math.min(head.length, bytes.length);
      head.set(bytes.subarray(0, headLength));
      s.bytesRead += headLength;
      const value: StoredValue = {
        size: bytes.length,
        read(into, at, length, position) {
          if (position + length > bytes.length) throw new Error('read past the value');
          into.set(bytes.subarray(position, position + length), at);
          s.bytesRead += length;
        },
      };
      return { value, headLength };
    },
  };
  return s;
}

/** What ListBundles sends for a stored bundle when it is decoded and encoded again. */
const decodedAndEncoded = (bytes: Uint8Array): Uint8Array =>
  encodeBundle({ ...decodeBundle(bytes, false), csvJson: '', object: [] });

function bundle(over: Partial<ApiBundle> = {}): ApiBundle {
  return {
    ...emptyBundle(),
    csvName: 'op.v1.0.0',
    packageName: 'op',
    channelName: 'stable',
    csvJson: `{"kind":"ClusterServiceVersion","spec":"${'x'.repeat(30_000)}"}`,
    object: [`{"a":"${'y'.repeat(12_000)}"}`, '', `{"b":"${'z'.repeat(9_000)}"}`],
    bundlePath: 'quay.io/acme/op-bundle@sha256:' + 'a'.repeat(64),
    providedApis: [
      { group: 'acme.io', version: 'v1', kind: 'Thing', plural: 'things' },
      { group: '', version: '', kind: '' },
    ],
    requiredApis: [{ group: 'other.io', version: 'v1beta1', kind: 'Other' }],
    version: '1.0.0',
    skipRange: '<1.0.0',
    dependencies: [{ type: 'olm.package', value: '{"packageName":"dep","version":">=1.0.0"}' }],
    properties: [
      { type: 'olm.package', value: '{"packageName":"op","version":"1.0.0"}' },
      { type: 'olm.csv.metadata', value: `{"description":"${'é'.repeat(100)}"}` },
    ],
    replaces: 'op.v0.9.0',
    skips: ['op.v0.8.0', ''],
    deprecation: { message: '' },
    ...over,
  };
}

const reader = new ListedBundleReader();

describe('ListBundles messages from stored bundles', () => {
  it('are the bytes decoding and encoding gives, the manifests left unread', () => {
    for (const b of [
      bundle(),
      bundle({ deprecation: { message: 'use another ✓' }, object: [], csvJson: '' }),
      bundle({ providedApis: [], requiredApis: [], dependencies: [], properties: [], skips: [] }),
      bundle({ csvName: '', packageName: '', skipRange: '', replaces: '', deprecation: undefined }),
      // Kept fields longer than a read: the reads grow to hold them.
      bundle({ properties: [{ type: 'olm.csv.metadata', value: `"${'é'.repeat(20_000)}"` }] }),
    ]) {
      const bytes = encodeBundle(b);
      const value = stored(bytes);
      const listed = reader.read(value.open);
      expect(listed).toBeDefined();
      expect(Buffer.from(listed as Uint8Array).equals(decodedAndEncoded(bytes))).toBe(true);
      if (b.csvJson !== '' && bytes.length < 60_000) expect(value.bytesRead).toBeLessThan(bytes.length / 2);
    }
  });

  it('a bundle without an image is left to the caller (its message keeps its manifests)', () => {
    expect(reader.read(stored(encodeBundle(bundle({ bundlePath: '' }))).open)).toBeUndefined();
  });

  it('bytes not written as proto writes them are left to the caller', () => {
    const w = (): ProtoWriter => new ProtoWriter().string(1, 'op.v1').string(6, 'quay.io/acme/op:1');
    const cases: Record<string, Uint8Array> = {
      'fields out of order': new ProtoWriter().string(6, 'quay.io/acme/op:1').string(1, 'op.v1').finish(),
      'a singular field twice': w().string(9, '1.0.0').string(9, '1.0.1').finish(),
      'an unknown field': w().string(16, 'x').finish(),
      'a varint field': w().uint(9, 3).finish(),
      'an empty singular string': w().bytes(9, new Uint8Array(0)).finish(),
      'invalid UTF-8': w().bytes(9, Uint8Array.of(0xff, 0xfe)).finish(),
      'invalid UTF-8 in a nested message': w()
        .message(7, new ProtoWriter().bytes(1, Uint8Array.of(0xc3)).finish())
        .finish(),
      'a nested field out of order': w()
        .message(7, new ProtoWriter().string(2, 'v1').string(1, 'g').finish())
        .finish(),
      'an empty nested string': w()
        .message(12, new ProtoWriter().bytes(1, new Uint8Array(0)).finish())
        .finish(),
      'an unknown nested field': w().message(11, new ProtoWriter().string(3, 'x').finish()).finish(),
      // Field 9, length 1 written in two bytes.
      'a longer varint than needed': Buffer.concat([w().finish(), Uint8Array.of(0x4a, 0x81, 0x00, 0x31)]),
      truncated: w().finish().subarray(0, 10),
    };
    for (const [name, bytes] of Object.entries(cases)) {
      expect({ name, listed: reader.read(stored(bytes).open) }).toEqual({ name, listed: undefined });
    }
    // The same reader goes on reading well-formed bundles after those.
    const good = encodeBundle(bundle());
    expect(Buffer.from(reader.read(stored(good).open) as Uint8Array).equals(decodedAndEncoded(good))).toBe(
      true,
    );
  });
});
