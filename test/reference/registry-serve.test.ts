// needs-registry: bundle images pushed to a real docker-registry on 127.0.0.1, from which the
// reference opm's `registry add` builds index databases. needs-build: it starts `bin/opm.js`.
// `opm registry serve -d <db>` against the reference opm v1.73's: both serve the same database and
// every api.Registry RPC, with the arguments each package, channel, entry, bundle name and GVK of
// the database gives (and made-up ones), is sent to each as raw gRPC; the answers' message bytes,
// grpc-status and grpc-message must be the same, byte for byte, in the same order.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import http2 from 'node:http2';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProtoWriter } from '../../src/protobuf/wire.js';
import { reference } from './reference-opm.js';
import { projectRoot } from '../corpus.js';
import { answering, freePort, OPM } from '../serve/client.js';
import { bundleRegistry } from './bundle-registry.js';
import { csvName, type BundleSpec } from '../sqlite/bundles.js';
import { haveSqlite3, rowsSql, schemaSql, sqlite3, type DbBundle } from '../sqlite/index-db.js';

if (!haveSqlite3) throw new Error('the registry serve comparison needs the sqlite3 command line');

const reg = bundleRegistry('opm-registry-serve-ref-');
const { tmp, env, opmRef, addAll } = reg;

const ETCD: BundleSpec[] = [
  { pkg: 'etcd', version: '0.9.0', channels: ['alpha'], defaultChannel: 'alpha', owns: ['EtcdCluster'] },
  {
    pkg: 'etcd',
    version: '0.9.2',
    channels: ['alpha', 'stable'],
    defaultChannel: 'stable',
    replaces: csvName('etcd', '0.9.0'),
    owns: ['EtcdCluster', 'EtcdBackup'],
    properties: [{ type: 'custom.flag', value: { on: true } }],
  },
  {
    pkg: 'etcd',
    version: '0.9.4',
    channels: ['alpha', 'stable'],
    defaultChannel: 'stable',
    replaces: csvName('etcd', '0.9.2'),
    skips: [csvName('etcd', '0.9.3'), csvName('etcd', '0.9.0')],
    skipRange: '>=0.9.0 <0.9.4',
    owns: ['EtcdCluster', 'EtcdBackup', 'EtcdRestore'],
    requires: [{ name: 'prometheuses.prom.example.com', kind: 'Prometheus', version: 'v1' }],
    dependencies: [
      { type: 'olm.package', value: { packageName: 'prom', version: '>=1.0.0' } },
      { type: 'olm.gvk', value: { group: 'prom.example.com', kind: 'Prometheus', version: 'v1' } },
    ],
  },
  { pkg: 'prom', version: '1.0.0', channels: ['beta'], defaultChannel: 'beta', owns: ['Prometheus'] },
  {
    pkg: 'prom',
    version: '1.1.0',
    channels: ['beta', 'alpha'],
    replaces: csvName('prom', '1.0.0'),
    owns: ['Prometheus', 'EtcdCluster'],
  },
];

const SEMVER: BundleSpec[] = [
  { pkg: 'sv', version: '1.0.0', channels: ['stable'], defaultChannel: 'stable', owns: ['Thing'] },
  { pkg: 'sv', version: '1.0.1', channels: ['stable'], owns: ['Thing'] },
  { pkg: 'sv', version: '1.1.0', channels: ['stable', 'fast'], owns: ['Thing'] },
  { pkg: 'sv', version: '2.0.0', channels: ['stable'], owns: ['Thing'] },
];

/** A database the reference never writes: NULLs, repeated rows, entries off the replaces walk, plurals. */
const CLI_ROWS = `
INSERT INTO package VALUES ('foo','stable'),('bar','b'),('lonely','none');
INSERT INTO channel VALUES ('stable','foo','foo.v2'),('beta','foo','foo.v2'),('b','bar','bar.v1'),('alpha','foo','foo.v1');
INSERT INTO channel_entry VALUES (1,'stable','foo','foo.v2',2,0),(2,'stable','foo','foo.v1',NULL,1),
 (3,'beta','foo','foo.v2',4,0),(4,'beta','foo','foo.v1',NULL,1),(5,'b','bar','bar.v1',NULL,0),
 (6,'stable','foo','foo.v2',7,0),(7,'stable','foo','foo.v0',NULL,1),(8,'alpha','foo','foo.v1',99,2),
 (9,'stable','foo','foo.v3',1,1),(10,'b','bar','bar.v0',5,1);
INSERT INTO operatorbundle VALUES
 ('foo.v2','{"kind":"ClusterServiceVersion","metadata":{"name":"foo.v2"}}','{"kind":"CustomResourceDefinition","spec":{}} {"kind":"ClusterServiceVersion","metadata":{"name":"foo.v2"}}','quay.io/foo:2','<2.0.0','2.0.0','foo.v1','',NULL),
 ('foo.v1','{"kind":"ClusterServiceVersion","metadata":{"name":"foo.v1"}}','{"kind":"ClusterServiceVersion","metadata":{"name":"foo.v1"}}','','','1.0.0','','',NULL),
 ('foo.v0',NULL,NULL,'quay.io/foo:0',NULL,'0.0.1',NULL,NULL,NULL),
 ('foo.v3',NULL,'','quay.io/foo:3','',NULL,'','',NULL),
 ('bar.v0',NULL,NULL,NULL,'','0.1.0','','',NULL),
 ('bar.v1','{"kind":"ClusterServiceVersion","metadata":{"name":"bar.v1"}}','{"kind":"ClusterServiceVersion","metadata":{"name":"bar.v1"}}','quay.io/bar:1','','1.0.0','','',NULL);
INSERT INTO api VALUES ('foo.io','v1','Foo','foos'),('other.io','v2','Need','needs');
INSERT INTO properties VALUES
 ('olm.package','{"packageName":"foo","version":"2.0.0"}','foo.v2','2.0.0','quay.io/foo:2'),
 ('olm.gvk','{"group":"foo.io","kind":"Foo","version":"v1"}','foo.v2','2.0.0','quay.io/foo:2'),
 ('olm.gvk','{"group":"foo.io","kind":"Foo","version":"v1"}','foo.v1','1.0.0',''),
 ('olm.gvk','{"group":"foo.io","kind":"Foo","version":"v1"}','bar.v1','1.0.0','quay.io/bar:1'),
 ('olm.gvk','{"group":"foo.io","kind":"Foo","version":"v1"}','foo.v2',NULL,NULL),
 ('olm.gvk','{"Group":"foo.io","KIND":"Bar","version":"v1"}','foo.v0','0.0.1','quay.io/foo:0'),
 ('olm.gvk','not json','foo.v0','0.0.1','quay.io/foo:0'),
 ('olm.gvk','{"group":"foo.io","kind":"Foo","version":"v1"}','foo.v3',NULL,'quay.io/foo:3'),
 ('olm.label',NULL,'foo.v0','0.0.1','quay.io/foo:0'),
 ('olm.gvk','{"group":"foo.io","kind":"Baz","version":"v1"}','bar.v0','0.1.0',NULL),
 ('olm.package','{"packageName":"foo","version":"2.0.0"}','foo.v2','other','quay.io/foo:2');
INSERT INTO dependencies VALUES
 ('olm.gvk','{"group":"other.io","kind":"Need","version":"v2"}','bar.v1','1.0.0','quay.io/bar:1'),
 ('olm.package','{"packageName":"foo","version":">1"}','bar.v1',NULL,NULL),
 ('olm.gvk','{"group":"other.io","kind":"Need","version":"v2"}','bar.v1','1.0.0','quay.io/bar:1'),
 ('olm.gvk','{"group":"other.io","kind":"Need","version":"v2"}','foo.v2','2.0.0','quay.io/foo:2'),
 ('olm.gvk',NULL,'foo.v2','2.0.0','quay.io/foo:2');
`;

const OLD_SCHEMA_BUNDLES: DbBundle[] = [
  { name: 'foo.v1.0.0', pkg: 'foo', version: '1.0.0', image: 'example.com/foo:1.0.0', channels: ['stable'] },
  {
    name: 'foo.v1.1.0',
    pkg: 'foo',
    version: '1.1.0',
    image: 'example.com/foo:1.1.0',
    channels: ['stable', 'fast'],
  },
];

const dbs: Record<string, string> = {};
const grpcurl = process.env.GRPCURL ?? path.join(projectRoot(), '.tools/bin/grpcurl');

beforeAll(async () => {
  await reg.start();
  await reg.push([...ETCD, ...SEMVER]);
  dbs.replaces = path.join(tmp, 'replaces.db');
  addAll(dbs.replaces, ETCD);
  dbs.semver = path.join(tmp, 'semver.db');
  addAll(dbs.semver, SEMVER, ['--mode', 'semver']);
  dbs.cli = path.join(tmp, 'cli.db');
  sqlite3(dbs.cli, `${schemaSql(13)}\n${CLI_ROWS}`);
  // Older schemas the reference migrates before serving.
  for (const v of [8, 5]) {
    dbs[`v${v}`] = path.join(tmp, `v${v}.db`);
    sqlite3(dbs[`v${v}`] as string, `${schemaSql(v)}\n${rowsSql('foo', 'stable', OLD_SCHEMA_BUNDLES, v)}`);
  }
}, 600_000);

afterAll(reg.stop);

/** Rows of a query, by the sqlite3 command line. */
function query(db: string, sql: string): Record<string, string | null>[] {
  const r = spawnSync('sqlite3', ['-json', db, sql], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.trim() === '' ? [] : (JSON.parse(r.stdout) as Record<string, string | null>[]);
}

interface Call {
  method: string;
  /** The request's string fields by field number. */
  fields: string[];
}

const MADE_UP = 'no-such';

/** Every RPC with each argument the database gives, and made-up ones. */
function callsFor(db: string): Call[] {
  const col = (sql: string, c: string): string[] => [...new Set(query(db, sql).map((r) => r[c] ?? ''))];
  const packages = col('SELECT name FROM package', 'name');
  const channels = query(db, 'SELECT DISTINCT package_name p, name c FROM channel');
  const entries = query(
    db,
    'SELECT DISTINCT package_name p, channel_name c, operatorbundle_name b FROM channel_entry',
  );
  const names = col(
    'SELECT operatorbundle_name n FROM channel_entry UNION SELECT name n FROM operatorbundle',
    'n',
  );
  const gvks = query(
    db,
    "SELECT DISTINCT value FROM properties WHERE type='olm.gvk' UNION SELECT DISTINCT value FROM dependencies WHERE type='olm.gvk'",
  ).flatMap((r) => {
    try {
      const v = JSON.parse(r.value ?? '') as Record<string, string>;
      return [[v.group ?? '', v.version ?? '', v.kind ?? '']];
    } catch {
      return [];
    }
  });
  const calls: Call[] = [
    { method: 'ListPackages', fields: [] },
    { method: 'ListBundles', fields: [] },
  ];
  for (const p of [...packages, MADE_UP]) calls.push({ method: 'GetPackage', fields: [p] });
  for (const c of [...channels, { p: MADE_UP, c: 'x' }, { p: packages[0] ?? '', c: MADE_UP }]) {
    calls.push({ method: 'GetBundleForChannel', fields: [c.p ?? '', c.c ?? ''] });
  }
  for (const e of [...entries, { p: packages[0] ?? '', c: MADE_UP, b: MADE_UP }]) {
    calls.push({ method: 'GetBundle', fields: [e.p ?? '', e.c ?? '', e.b ?? ''] });
    calls.push({ method: 'GetBundleThatReplaces', fields: [e.b ?? '', e.p ?? '', e.c ?? ''] });
  }
  for (const n of [...names, MADE_UP]) calls.push({ method: 'GetChannelEntriesThatReplace', fields: [n] });
  for (const g of [...gvks, ['no.io', 'v1', 'None']]) {
    for (const m of [
      'GetChannelEntriesThatProvide',
      'GetLatestChannelEntriesThatProvide',
      'GetDefaultBundleThatProvides',
    ]) {
      calls.push({ method: m, fields: g });
    }
  }
  return calls;
}

interface Answer {
  call: string;
  status: string | undefined;
  message: string | undefined;
  /** Every DATA byte of the response, hex. */
  bytes: string;
}

function grpcFrame(message: Uint8Array): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}

function callRaw(session: http2.ClientHttp2Session, c: Call): Promise<Answer> {
  const w = new ProtoWriter();
  c.fields.forEach((f, i) => w.string(i + 1, f));
  return new Promise((resolve, reject) => {
    const req = session.request({
      ':method': 'POST',
      ':path': `/api.Registry/${c.method}`,
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    const chunks: Buffer[] = [];
    let trailers: http2.IncomingHttpHeaders = {};
    req.on('response', (h) => (trailers = h['grpc-status'] === undefined ? trailers : h));
    req.on('trailers', (h) => (trailers = h));
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('error', reject);
    req.on('close', () =>
      resolve({
        call: `${c.method}(${c.fields.join(', ')})`,
        status: trailers['grpc-status'] as string | undefined,
        message: trailers['grpc-message'] as string | undefined,
        bytes: Buffer.concat(chunks).toString('hex'),
      }),
    );
    req.end(grpcFrame(w.finish()));
  });
}

async function answersOf(argv: string[], port: number, calls: Call[]): Promise<Answer[]> {
  const [cmd, ...args] = argv;
  const child = spawn(cmd as string, args, { stdio: ['ignore', 'ignore', 'pipe'], env: env() });
  let err = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    await Promise.race([
      answering(port, 120_000),
      exited.then((c) => Promise.reject(new Error(`exited ${c}: ${err}`))),
    ]);
    const session = http2.connect(`http://127.0.0.1:${port}`);
    try {
      const out: Answer[] = [];
      for (const c of calls) out.push(await callRaw(session, c));
      // The notice on stderr, the same bytes but for the time.
      out.push({ call: 'stderr', status: '', message: '', bytes: err.replace(/time="[^"]*"/g, 'time') });
      // The services reflection lists: the registered ones (no api.ExperimentalRegistry).
      const list = spawnSync(grpcurl, ['-plaintext', `127.0.0.1:${port}`, 'list'], { encoding: 'utf8' });
      out.push({
        call: 'grpcurl list',
        status: String(list.status),
        message: list.stderr,
        bytes: list.stdout,
      });
      return out;
    } finally {
      session.close();
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

describe('registry serve: the same answers as the reference opm, byte for byte', () => {
  it.each(['replaces', 'semver', 'cli', 'v8', 'v5'])(
    'the %s database',
    { timeout: 300_000 },
    async (name) => {
      const db = dbs[name] as string;
      // The arguments come from the tables at schema 13: those of a copy the reference's render migrated.
      let source = db;
      if (name.startsWith('v')) {
        source = path.join(tmp, `${name}-migrated.db`);
        copyFileSync(db, source);
        expect(opmRef(['render', source]).code).toBe(0);
      }
      const calls = callsFor(source);
      const copy = path.join(tmp, `${name}-ref.db`);
      copyFileSync(db, copy);
      const refPort = await freePort();
      const theirs = await answersOf(
        [
          reference,
          'registry',
          'serve',
          '-d',
          copy,
          '-p',
          String(refPort),
          '-t',
          path.join(tmp, 'termination-log'),
        ],
        refPort,
        calls,
      );
      const ourPort = await freePort();
      const ours = await answersOf(
        [process.execPath, OPM, 'registry', 'serve', '-d', db, '-p', String(ourPort), '-t', '/dev/null'],
        ourPort,
        calls,
      );
      if (process.env.OPM_TEST_DUMP !== undefined) {
        console.log(
          JSON.stringify(
            theirs.map((a) => ({ ...a, bytes: a.bytes.length })),
            null,
            1,
          ),
        );
      }
      // Every kind of call answered with data somewhere, and failures too.
      // (After migration 9 no provider query finds anything: it stores the GVKs as BLOBs.)
      const answered = ['ListBundles', 'GetPackage', 'GetBundle'];
      if (!name.startsWith('v')) answered.push('GetChannelEntriesThatProvide');
      for (const m of answered) {
        expect(theirs.some((a) => a.call.startsWith(`${m}(`) && a.status === '0' && a.bytes !== '')).toBe(
          true,
        );
      }
      expect(theirs.some((a) => a.status === '2')).toBe(true);
      const differ = ours.filter((a, i) => JSON.stringify(a) !== JSON.stringify(theirs[i]));
      expect(differ.map((a) => ({ ours: a, theirs: theirs[ours.indexOf(a)] }))).toEqual([]);
    },
  );

  // logrus colours what it writes to a terminal: both run on a pseudo-terminal (util-linux's
  // script), their logs (stdout) left out, the notice compared byte for byte.
  it.runIf(spawnSync('script', ['--version']).status === 0)(
    'the deprecation notice on a terminal: the same four coloured lines',
    async () => {
      const onTerminal = async (cmd: string[]): Promise<string> => {
        const port = await freePort();
        const line = [...cmd, '-p', String(port), '>/dev/null'].join(' ');
        const r = spawnSync('script', ['-qec', `timeout -s TERM 3 ${line}`, '/dev/null'], {
          encoding: 'utf8',
          cwd: tmp,
          env: env(),
        });
        return r.stdout;
      };
      const copy = path.join(tmp, 'tty-ref.db');
      copyFileSync(dbs.cli as string, copy);
      const theirs = await onTerminal([
        reference,
        'registry',
        'serve',
        '-d',
        copy,
        '-t',
        path.join(tmp, 'tl'),
      ]);
      const ours = await onTerminal([
        process.execPath,
        OPM,
        'registry',
        'serve',
        '-d',
        dbs.cli as string,
        '-t',
        '/dev/null',
      ]);
      // logrus's [NNNN] is the seconds since the process started: 0000 on an idle machine, 0001
      // when a loaded one is slow to start either tool, so the counter is compared as its shape.
      const seconds = (s: string): string => s.replace(/\[\d{4}\]/g, '[NNNN]');
      expect(seconds(theirs)).toContain('\x1b[33mWARN\x1b[0m[NNNN] \x1b[1;33mDEPRECATION NOTICE:\r\n');
      expect(seconds(ours)).toBe(seconds(theirs));
    },
  );
});
