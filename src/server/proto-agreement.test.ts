/**
 * The running server answers every RPC registry.proto declares, as the proto says: each call made
 * by a plain @grpc/grpc-js client with a request protobufjs encodes from the proto (every field
 * named as the proto names it) ends OK, its messages hold only the field numbers and wire types the
 * proto's response type declares, and they decode under the proto's names to what the query engine
 * answers for that request. An RPC added to the proto that the server does not answer fails here.
 */
import * as grpc from '@grpc/grpc-js';
import path from 'node:path';
import type protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkAgainst,
  decodeAs,
  parseProto,
  registryProtoText,
  rpcsOf,
  withoutDefaults,
  type Rpc,
} from '../../test/serve/proto-shape.js';
import type { CatalogQueries } from '../catalog-queries/queries.js';
import { loadMemoryIndex } from '../served-catalog/load.js';
import { startServer, type RunningServer } from './server.js';

/** Values of the fixture's catalog for every request field the proto declares, by field name. */
const FACTS: Readonly<Record<string, string>> = {
  name: 'etcd',
  pkgName: 'etcd',
  packageName: 'etcd',
  channelName: 'alpha',
  csvName: 'etcd.v0.9.0',
  group: 'etcd.database.coreos.com',
  version: 'v1beta2',
  kind: 'EtcdCluster',
  plural: 'etcdclusters',
  schema: 'my.custom',
};

type Request = Record<string, string>;
type Expected = (q: CatalogQueries, r: Request) => Promise<unknown[]>;

async function drain(items: AsyncIterable<Uint8Array>, t: protobuf.Type): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const m of items) out.push(decodeAs(t, m));
  return out;
}

/** The engine's objects as protobufjs decodes them: proto3 sends no field at its default. */
const sent = async (items: unknown[] | Promise<unknown[]>): Promise<unknown[]> =>
  (await items).map(withoutDefaults);

/** What the query engine answers each RPC with (streams that it encodes itself, decoded). */
const EXPECTED: Readonly<Record<string, Expected>> = {
  'api.Registry/ListPackages': (q) => sent(q.listPackages().map((name) => ({ name }))),
  'api.Registry/GetPackage': (q, r) => sent([q.getPackage(r.name ?? '')]),
  'api.Registry/GetBundle': async (q, r) =>
    sent([await q.getBundle(r.pkgName ?? '', r.channelName ?? '', r.csvName ?? '')]),
  'api.Registry/GetBundleForChannel': async (q, r) =>
    sent([await q.getBundleForChannel(r.pkgName ?? '', r.channelName ?? '')]),
  'api.Registry/GetChannelEntriesThatReplace': (q, r) =>
    sent(q.getChannelEntriesThatReplace(r.csvName ?? '')),
  'api.Registry/GetBundleThatReplaces': async (q, r) =>
    sent([await q.getBundleThatReplaces(r.csvName ?? '', r.pkgName ?? '', r.channelName ?? '')]),
  'api.Registry/GetChannelEntriesThatProvide': (q, r) => sent(q.getChannelEntriesThatProvide(gvk(r))),
  'api.Registry/GetLatestChannelEntriesThatProvide': (q, r) =>
    sent(q.getLatestChannelEntriesThatProvide(gvk(r))),
  'api.Registry/GetDefaultBundleThatProvides': async (q, r) =>
    sent([await q.getDefaultBundleThatProvides(gvk(r))]),
  'api.Registry/ListBundles': (q) => drain(q.listedMessages(), root.lookupType('api.Bundle')),
  'api.ExperimentalRegistry/ExperimentalListPackageCustomSchemas': (q, r) =>
    drain(
      q.customSchemaBlobs(r.schema ?? '', r.packageName ?? ''),
      root.lookupType('google.protobuf.Struct'),
    ),
};

const gvk = (r: Request) => ({ group: r.group ?? '', version: r.version ?? '', kind: r.kind ?? '' });

const root = parseProto(registryProtoText());
const raw = (b: Buffer): Buffer => b;

let server: RunningServer;
let queries: CatalogQueries;
let client: grpc.Client;

beforeAll(async () => {
  const index = await loadMemoryIndex(path.resolve('testdata/serve-cache/basic/catalog'));
  queries = index.queries;
  server = await startServer({ registry: queries, port: '0', log: () => undefined });
  client = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': -1,
  });
});

afterAll(async () => {
  client.close();
  await server.stop();
});

/** The request of `rpc` with every field the fixture has a value for, and the messages answered. */
async function call(rpc: Rpc): Promise<{ request: Request; messages: Buffer[] }> {
  const request: Request = {};
  for (const f of rpc.request.fieldsArray) {
    const v = FACTS[f.name];
    if (v === undefined) throw new Error(`${rpc.path}: no value for request field ${f.name} in FACTS`);
    request[f.name] = v;
  }
  const bytes = Buffer.from(rpc.request.encode(rpc.request.fromObject(request)).finish());
  const md = new grpc.Metadata();
  md.set('x-acknowledge-experimental', 'true');
  const messages: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    if (!rpc.stream) {
      client.makeUnaryRequest(`/${rpc.path}`, raw, raw, bytes, md, (err, m) => {
        if (err !== null) reject(err);
        else {
          if (m !== undefined) messages.push(m);
          resolve();
        }
      });
      return;
    }
    const s = client.makeServerStreamRequest(`/${rpc.path}`, raw, raw, bytes, md);
    s.on('data', (m: Buffer) => messages.push(m));
    s.on('end', resolve);
    s.on('error', reject);
  });
  return { request, messages };
}

/** The RPCs of the proto text the server does not answer (it ends them UNIMPLEMENTED). */
async function unanswered(text: string): Promise<string[]> {
  const out: string[] = [];
  for (const rpc of rpcsOf(parseProto(text))) {
    try {
      await call(rpc);
    } catch (err) {
      if ((err as grpc.ServiceError).code === grpc.status.UNIMPLEMENTED) out.push(rpc.path);
      else throw err;
    }
  }
  return out;
}

describe('the server and registry.proto', () => {
  it('answers every RPC of the proto', async () => {
    expect(rpcsOf(root).length).toBe(11);
    expect(await unanswered(registryProtoText())).toEqual([]);
  });

  it('an RPC added to the proto that the server does not answer is reported', async () => {
    const text = registryProtoText().replace(
      'service Registry {',
      'service Registry {\n  rpc GetNothing(GetPackageRequest) returns (Package) {}',
    );
    expect(await unanswered(text)).toEqual(['api.Registry/GetNothing']);
  });

  it.each(rpcsOf(root).map((r) => [r.path, r] as const))(
    '%s: the messages are the proto response type, equal to the query engine answer',
    async (_path, rpc) => {
      const { request, messages } = await call(rpc);
      const expected = EXPECTED[rpc.path];
      if (expected === undefined) throw new Error(`${rpc.path}: no expected answer in EXPECTED`);
      const want = await expected(queries, request);
      expect(want.length).toBeGreaterThan(0);
      for (const m of messages) expect(checkAgainst(rpc.response, m).problems).toEqual([]);
      expect(messages.map((m) => decodeAs(rpc.response, m))).toEqual(want);
    },
  );
});
