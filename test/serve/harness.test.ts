// The parts of the serve harness that need no server: the calls it derives from a catalog (what
// the differential suite covers) and the comparison of two records.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalogDirOrThrow } from '../../src/declcfg/load.js';
import { callsFor, differences, type ServeRecord } from './harness.js';

const FIXTURE = path.join('testdata', 'serve-clients', 'catalog');

describe('callsFor', () => {
  it('covers every package, channel, entry, replaced name and GVK of the fixture', async () => {
    const { calls, replacers } = callsFor(await loadCatalogDirOrThrow(FIXTURE));
    const asked = (method: string): string[] =>
      calls.filter((c) => c.method === method).map((c) => Object.values(c.request).join('|'));

    expect(asked('GetPackage')).toEqual(['cherry', 'damson', 'opm-serve-test-no-such']);
    expect(asked('GetBundleForChannel')).toEqual([
      'cherry|candidate',
      'cherry|stable',
      'damson|fast',
      'opm-serve-test-no-such|opm-serve-test-no-such',
      'cherry|opm-serve-test-no-such',
    ]);
    // Each entry of each channel, then the made-up names.
    expect(asked('GetBundle').filter((r) => !r.includes('opm-serve-test-no-such'))).toEqual([
      'cherry|candidate|cherry.v1.2.0',
      'cherry|stable|cherry.v1.0.0',
      'cherry|stable|cherry.v1.1.0',
      'cherry|stable|cherry.v1.2.0',
      'damson|fast|damson.v0.1.0',
    ]);
    // Every name a channel mentions, skipped ones (cherry.v0.9.0 is no bundle) included.
    expect(asked('GetChannelEntriesThatReplace')).toEqual([
      'cherry.v0.9.0',
      'cherry.v1.0.0',
      'cherry.v1.1.0',
      'cherry.v1.2.0',
      'damson.v0.1.0',
      'opm-serve-test-no-such',
    ]);
    // cherry.v1.0.0 is replaced by v1.1.0 and skipped by v1.2.0: either may be the answer.
    expect(replacers.get('cherry/stable/cherry.v1.0.0')).toEqual(['cherry.v1.1.0', 'cherry.v1.2.0']);
    expect(replacers.get('cherry/stable/cherry.v1.1.0')).toEqual(['cherry.v1.2.0']);
    // Provided and required GVKs, one in other letter case, a made-up one; `plural` is sent.
    expect(asked('GetDefaultBundleThatProvides')).toEqual([
      'cherry.example.com|v1|Pit|ignored',
      'cherry.example.com|v1beta1|Stone|ignored',
      'CHERRY.EXAMPLE.COM|v1|Pit|ignored',
      'opm-serve-test-no-such|v1|Nothing|ignored',
    ]);
    // The custom schema once per package it is stored under, the empty package included.
    const experimental = calls.filter((c) => c.method === 'ExperimentalListPackageCustomSchemas');
    expect(experimental.slice(-3).map((c) => [c.request.schema, c.request.packageName])).toEqual([
      ['example.notes', ''],
      ['example.notes', 'cherry'],
      ['example.notes', 'damson'],
    ]);
    expect(experimental[0]?.metadata).toBeUndefined();
    expect(experimental[1]?.metadata).toEqual({ 'x-acknowledge-experimental': 'true' });
  });
});

describe('differences', () => {
  const record = (message: string): ServeRecord => ({
    catalog: 'c',
    calls: [
      { method: 'GetPackage', request: { name: 'a' }, response: { name: 'a' } },
      { method: 'GetPackage', request: { name: 'b' }, error: { code: 'Unknown', message } },
    ],
  });

  it('is empty for equal records', () => {
    expect(differences(record('package "b" not found'), record('package "b" not found'))).toEqual([]);
  });

  it('names the differing call and shows both sides around the first difference', () => {
    const d = differences(record('package "b" not found'), record('package b not found'));
    expect(d).toHaveLength(1);
    expect(d[0]).toMatch(
      /^GetPackage \{"name":"b"\}: .*package \\"b\\" not found.* <> .*package b not found/,
    );
  });

  it('reports calls that one side lacks', () => {
    const shorter = record('x');
    shorter.calls.pop();
    const d = differences(record('x'), shorter);
    expect(d).toHaveLength(1);
    expect(d[0]).toMatch(/<> {2}\(none\)$/);
  });
});
