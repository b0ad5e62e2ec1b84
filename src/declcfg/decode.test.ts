import { describe, expect, it } from 'vitest';
import { decodeBlob } from './decode.js';
import type { JsonObject } from '../go/json-value.js';

describe('decodeBlob', () => {
  it.each(['schema', 'package', 'name'])('refuses a null %s, as opm does', (key) => {
    const r = decodeBlob({ schema: 'example.custom', package: 'p', [key]: null });
    expect(r.blob).toBeUndefined();
    expect(r.issues.map((i) => [i.rule, i.message])).toStrictEqual([
      ['decode.meta-type', `expected value for key "${key}" to be a string, got null: null`],
    ]);
  });

  it('matches field names case-insensitively and keeps opm output', () => {
    const r = decodeBlob({
      SCHEMA: 'olm.channel',
      Package: 'p',
      NAME: 'stable',
      Entries: [{ Name: 'p.v1', REPLACES: 'p.v0', Skips: ['a'], skiprange: '<1.0.0' }, null],
    });
    expect(r.issues).toStrictEqual([]);
    expect(r.blob).toStrictEqual({
      kind: 'channel',
      value: {
        schema: 'olm.channel',
        name: 'stable',
        package: 'p',
        entries: [{ name: 'p.v1', replaces: 'p.v0', skips: ['a'], skipRange: '<1.0.0' }, { name: '' }],
      },
    });
  });

  it('decodes the usual channel entries as the field-by-field decoding does, on copies of their lists', () => {
    const usual: JsonObject[] = [
      { name: 'p.v2', replaces: 'p.v1', skips: ['p.v0', 'p.v0.1'], skipRange: '<1.0.0' },
      { skipRange: '<0.5.0', name: 'p.v1' },
      { name: 'p.v0' },
    ];
    // The same entries, each with one field spelt otherwise: decoded field by field.
    const spelt: JsonObject[] = [
      { Name: 'p.v2', replaces: 'p.v1', skips: ['p.v0', 'p.v0.1'], skipRange: '<1.0.0' },
      { skipRange: '<0.5.0', NAME: 'p.v1' },
      { nAme: 'p.v0' },
    ];
    const decode = (entries: JsonObject[]): ReturnType<typeof decodeBlob> =>
      decodeBlob({ schema: 'olm.channel', package: 'p', name: 'stable', entries });
    const fast = decode(usual);
    const slow = decode(spelt);
    expect(fast.issues).toStrictEqual([]);
    expect(fast).toStrictEqual(slow);
    const entries = fast.blob?.kind === 'channel' ? fast.blob.value.entries : null;
    expect(entries?.map((e) => Object.keys(e))).toStrictEqual([
      ['name', 'replaces', 'skips', 'skipRange'],
      ['name', 'skipRange'],
      ['name'],
    ]);
    expect(entries?.[0]?.skips).not.toBe(usual[0]?.skips);
    // Empty and mistyped fields keep their messages.
    expect(decode([{ name: 'p.v1', replaces: '' }]).issues.map((i) => i.rule)).toStrictEqual([
      'schema.olm.channel',
    ]);
    expect(decode([{ name: 'p.v1', skips: [1] }]).issues.map((i) => i.rule)).toStrictEqual([
      'decode.field-type',
    ]);
    expect(decode([{ name: 'p.v1', extra: 'x' }]).issues.map((i) => i.rule)).toStrictEqual([
      'decode.unknown-field',
    ]);
  });

  it('gives null entries for a channel without entries and keeps unknown schemas whole', () => {
    expect(decodeBlob({ schema: 'olm.channel', package: 'p', name: 'c' }).blob?.value).toStrictEqual({
      schema: 'olm.channel',
      name: 'c',
      package: 'p',
      entries: null,
    });
    const blob = { schema: 'x.y', Name: 'n', nested: { z: [1] } };
    expect(decodeBlob(blob).blob).toStrictEqual({
      kind: 'other',
      value: { schema: 'x.y', package: '', name: 'n', blob },
    });
  });

  it('normalizes icon base64 with line breaks as Go does', () => {
    const r = decodeBlob({
      schema: 'olm.package',
      name: 'p',
      icon: { base64data: 'aGVs\nbG8=', mediatype: 'x' },
    });
    expect(r.blob?.kind === 'package' ? r.blob.value.icon : undefined).toStrictEqual({
      base64data: 'aGVsbG8=',
      mediatype: 'x',
    });
  });

  it('elides checked bundle objects when asked', () => {
    const blob: JsonObject = {
      schema: 'olm.bundle',
      package: 'p',
      name: 'p.v1',
      image: 'i',
      properties: [
        { type: 'olm.bundle.object', value: { data: 'e30=' } },
        { type: 'olm.package', value: { packageName: 'p', version: '1.0.0' } },
      ],
    };
    const kept = decodeBlob(structuredClone(blob));
    expect(kept.blob?.kind === 'bundle' ? kept.blob.value : undefined).toStrictEqual({
      schema: 'olm.bundle',
      package: 'p',
      name: 'p.v1',
      image: 'i',
      properties: blob.properties,
    });
    const elided = decodeBlob(structuredClone(blob), { elidePayloads: true });
    const b = elided.blob?.kind === 'bundle' ? elided.blob.value : undefined;
    expect(b?.payloadsElided).toBe(true);
    expect(b?.properties?.map((p) => p.value)).toStrictEqual([{}, { packageName: 'p', version: '1.0.0' }]);
  });

  it('aggregates several case-folded duplicate keys as opm does', () => {
    expect(decodeBlob({ schema: 'a', Schema: 'a', name: 'n', NAME: 'n' }).issues[0]?.message).toBe(
      '[duplicate keys for key "name": [NAME name], duplicate keys for key "schema": [Schema schema]]',
    );
  });
});
