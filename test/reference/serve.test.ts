// needs-build: it starts `bin/opm.js serve` beside the reference opm's `serve`.
// The catalog server against the reference opm: both serve the same catalog on 127.0.0.1 and a
// @grpc/grpc-js client asks every RPC (test/serve/probe.ts) of each; the decoded answers must be
// equal (streams other than ListBundles compared as sets, as opm leaves their order to Go's maps).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusPath, haveCorpus } from '../corpus.js';
import { registryClient, startServe } from '../serve/client.js';
import { probe, type ProbeOptions } from '../serve/probe.js';
import { reference } from './reference-opm.js';

if (!haveCorpus()) throw new Error('the differential suite needs the corpus');

async function answers(
  catalog: string,
  opts: ProbeOptions,
  binary?: string,
): Promise<Record<string, unknown>> {
  const s = await startServe(catalog, { timeoutMs: 110_000, ...(binary === undefined ? {} : { binary }) });
  const c = registryClient(s.port);
  try {
    return await probe(c, opts);
  } finally {
    c.close();
    expect(await s.stop()).toBe(0);
  }
}

const cases: [string, ProbeOptions][] = [
  [
    'testdata/serve/mixed/catalog',
    {
      customSchemas: [
        { schema: 'acme.note', packageName: 'alpha-op' },
        { schema: 'acme.note', packageName: '' },
      ],
    },
  ],
  ...[
    'foo-index-v0.2.0-declcfg',
    'index-declcfgs/latest',
    'index-declcfgs/old',
    'index-declcfgs/exp-headsonly',
    'list-index',
  ].map((c): [string, ProbeOptions] => [corpusPath(path.join('opm-testdata', c)), {}]),
  [corpusPath('cool-catalog/catalog'), {}],
  // The per-bundle RPCs on a spread of 60 of its 781 bundles (the reference takes ~10 s to start).
  [corpusPath('community-catalog-v4.21'), { maxBundles: 60 }],
];

describe('opm serve: the same answers as the reference opm', () => {
  it.each(cases)('%s', async (catalog, opts) => {
    const ours = await answers(catalog, opts);
    const theirs = await answers(catalog, opts, reference);
    for (const k of new Set([...Object.keys(ours), ...Object.keys(theirs)])) {
      expect(ours[k], k).toEqual(theirs[k]);
    }
  });
});
