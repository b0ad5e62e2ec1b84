/**
 * Every RPC of the catalog server asked with requests drawn from what the server itself lists
 * (packages, channels, bundles, replaces, skips, provided APIs) plus the error cases, answers
 * decoded to JSON. Streams whose order opm leaves to Go's map iteration are sorted; ListBundles
 * keeps its order. Two servers of the same catalog must give equal probes.
 */
import type { RegistryClient } from './client.js';

type Obj = Record<string, unknown>;

export interface ProbeOptions {
  /** Ask the per-bundle RPCs for at most this many bundles (spread over the list). */
  maxBundles?: number;
  /** (schema, package) pairs to ask ExperimentalListPackageCustomSchemas for. */
  customSchemas?: { schema: string; packageName: string }[];
}

const key = (o: unknown): string => JSON.stringify(o);

/** A Struct's map entries have no order on the wire: keys sorted, deep. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, canonical(o[k])]),
  );
}
const sorted = (list: Obj[]): Obj[] =>
  [...list].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

async function outcome(p: Promise<Obj | Obj[]>): Promise<unknown> {
  try {
    const r = await p;
    return Array.isArray(r) ? sorted(r) : r;
  } catch (err) {
    const e = err as { code?: number; details?: string };
    return { error: { code: e.code, details: e.details } };
  }
}

export async function probe(c: RegistryClient, opts: ProbeOptions = {}): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const packages = (await c.stream('ListPackages', {})).map((p) => String(p.name)).sort();
  out.ListPackages = packages;
  const bundles = await c.stream('ListBundles', {});
  out.ListBundles = bundles;
  for (const name of [...packages, 'no-such-package', 'odd "name"\t\u0001é'])
    out[`GetPackage ${name}`] = await outcome(c.unary('GetPackage', { name }));
  for (const name of packages) {
    const pkg = (await c.unary('GetPackage', { name })) as { channels?: { name: string }[] };
    for (const ch of [...(pkg.channels ?? []).map((x) => x.name), 'no-such-channel']) {
      out[`GetBundleForChannel ${name} ${ch}`] = await outcome(
        c.unary('GetBundleForChannel', { pkgName: name, channelName: ch }),
      );
    }
  }
  out['GetBundleForChannel missing package'] = await outcome(
    c.unary('GetBundleForChannel', { pkgName: 'nope', channelName: 'x' }),
  );
  const step = Math.max(1, Math.ceil(bundles.length / (opts.maxBundles ?? Infinity)));
  const chosen = bundles.filter((_, i) => i % step === 0);
  const gvks = new Map<string, Obj>();
  for (const b of chosen) {
    const pkgName = String(b.packageName);
    const channelName = String(b.channelName);
    const csvName = String(b.csvName);
    out[`GetBundle ${pkgName} ${channelName} ${csvName}`] = await outcome(
      c.unary('GetBundle', { pkgName, channelName, csvName }),
    );
    const replaced = [b.replaces, ...((b.skips as string[] | undefined) ?? [])].filter(
      (x): x is string => typeof x === 'string' && x !== '',
    );
    for (const r of replaced) {
      out[`GetChannelEntriesThatReplace ${r}`] = await outcome(
        c.stream('GetChannelEntriesThatReplace', { csvName: r }),
      );
      // Which bundle answers when several in the channel replace or skip the name is left to Go's
      // map order: ask only where one does.
      const candidates = bundles.filter(
        (x) =>
          x.packageName === pkgName &&
          x.channelName === channelName &&
          (x.replaces === r || ((x.skips as string[] | undefined) ?? []).includes(r)),
      );
      if (candidates.length === 1) {
        out[`GetBundleThatReplaces ${r} ${pkgName} ${channelName}`] = await outcome(
          c.unary('GetBundleThatReplaces', { csvName: r, pkgName, channelName }),
        );
      }
    }
    for (const g of (b.providedApis as Obj[] | undefined) ?? []) gvks.set(key(g), g);
  }
  for (const g of gvks.values()) {
    const req = { ...g, plural: 'ignored' };
    out[`GetChannelEntriesThatProvide ${key(g)}`] = await outcome(
      c.stream('GetChannelEntriesThatProvide', req),
    );
    out[`GetLatestChannelEntriesThatProvide ${key(g)}`] = await outcome(
      c.stream('GetLatestChannelEntriesThatProvide', req),
    );
    out[`GetDefaultBundleThatProvides ${key(g)}`] = await outcome(
      c.unary('GetDefaultBundleThatProvides', req),
    );
  }
  const first = bundles[0];
  if (first !== undefined) {
    const pkgName = String(first.packageName);
    const channelName = String(first.channelName);
    out['GetBundle missing channel'] = await outcome(
      c.unary('GetBundle', { pkgName, channelName: 'nope', csvName: 'x' }),
    );
    out['GetBundle missing bundle'] = await outcome(
      c.unary('GetBundle', { pkgName, channelName, csvName: 'nope' }),
    );
    out['GetBundleThatReplaces missing channel'] = await outcome(
      c.unary('GetBundleThatReplaces', { csvName: 'x', pkgName, channelName: 'nope' }),
    );
    out['GetBundleThatReplaces no entry'] = await outcome(
      c.unary('GetBundleThatReplaces', { csvName: 'nope', pkgName, channelName }),
    );
  }
  out['GetBundle missing package'] = await outcome(
    c.unary('GetBundle', { pkgName: 'nope', channelName: 'x', csvName: 'y' }),
  );
  out['GetBundleThatReplaces missing package'] = await outcome(
    c.unary('GetBundleThatReplaces', { csvName: 'x', pkgName: 'nope', channelName: 'y' }),
  );
  out['GetBundle odd names'] = await outcome(
    c.unary('GetBundle', { pkgName: packages[0] ?? '', channelName: 'odd "channel"\u007f', csvName: 'x' }),
  );
  out['GetChannelEntriesThatProvide odd names'] = await outcome(
    c.stream('GetChannelEntriesThatProvide', { group: 'a"b', version: 'v\n1', kind: 'K\u00e9' }),
  );
  out['GetChannelEntriesThatReplace nothing'] = await outcome(
    c.stream('GetChannelEntriesThatReplace', { csvName: 'nope' }),
  );
  const absent = { group: 'no.such', version: 'v1', kind: 'Nothing' };
  out['GetChannelEntriesThatProvide nothing'] = await outcome(
    c.stream('GetChannelEntriesThatProvide', absent),
  );
  out['GetLatestChannelEntriesThatProvide nothing'] = await outcome(
    c.stream('GetLatestChannelEntriesThatProvide', absent),
  );
  out['GetDefaultBundleThatProvides nothing'] = await outcome(
    c.unary('GetDefaultBundleThatProvides', absent),
  );
  out['Experimental without acknowledgement'] = await outcome(
    c.experimental({ schema: 'olm.anything' }, false),
  );
  out['Experimental no schema'] = await outcome(c.experimental({}, true));
  out['Experimental bad schema'] = await outcome(c.experimental({ schema: '../x' }, true));
  out['Experimental bad package'] = await outcome(c.experimental({ schema: 'x', packageName: '-x' }, true));
  out['Experimental unknown schema'] = await outcome(c.experimental({ schema: 'olm.unknown' }, true));
  for (const q of opts.customSchemas ?? []) {
    // Keys sorted before the records are: a Struct's keys come in any order, so sorting by the text
    // as received would order the same records differently for the two servers.
    const r = canonical(await outcome(c.experimental(q, true)));
    out[`Experimental ${q.schema} ${q.packageName}`] = Array.isArray(r) ? sorted(r as Obj[]) : r;
  }
  out['Health x'] = await outcome(c.health('x'));
  out['Health empty'] = await outcome(c.health(''));
  return out;
}
