/**
 * The queries of opm's catalog server (operator-registry `pkg/cache/pkgs.go`, `cache.go`) over a
 * package index: which package, channel and bundle a request names, the channel entries that
 * replace or provide something, and the order of ListBundles. Bundles themselves come from a
 * `BundleStore` (served-catalog/memory.ts over a model; the on-disk cache supplies its own). Errors carry the
 * status code and the exact text opm sends.
 */
import { goQuote as q } from '../go/fmt.js';
import { compareUtf8 } from '../go/utf8.js';
import { metaKeyProblem } from '../declcfg/meta.js';
import type { IndexBundle, IndexChannel, PackageIndex } from './package-index.js';
import {
  encodeBundle,
  type ApiBundle,
  type ApiChannelEntry,
  type ApiPackage,
} from '../api-contract/messages.js';

/** gRPC status codes the registry answers with. */
export const STATUS = { OK: 0, UNKNOWN: 2, INVALID_ARGUMENT: 3, UNIMPLEMENTED: 12, INTERNAL: 13 } as const;

/** A failed call: its gRPC status code and message. */
export class RpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
  }
}

/** opm's handlers return plain errors, which gRPC sends as UNKNOWN. */
const unknown = (message: string): RpcError => new RpcError(STATUS.UNKNOWN, message);

export interface BundleKey {
  package: string;
  channel: string;
  name: string;
}

/** Where the `Bundle` messages are. */
export interface BundleStore {
  /**
   * The untrimmed message of a bundle in a channel. `withManifests` false allows leaving csvJson
   * and object out (the caller will not send them); a store may fill them anyway.
   */
  bundle(key: BundleKey, withManifests: boolean): Promise<ApiBundle>;
  /**
   * ListBundles' message of a bundle, encoded, when the store can make it from the bytes it holds
   * (the same bytes as encoding listedBundle's answer); undefined: listedBundle makes it.
   */
  listedMessage?(key: BundleKey): Uint8Array | undefined;
}

/** The blobs of other schemas, by schema and package (ExperimentalRegistry). */
export interface CustomSchemaStore {
  /** Each blob stored under (schema, package), in order; nothing when there are none. */
  metas(schema: string, packageName: string): AsyncIterable<Uint8Array>;
}

/** The skips of an entry without any (null in the index). */
const NO_SKIPS: readonly string[] = [];

const gvkText = (g: Gvk): string => `group:${q(g.group)} version:${q(g.version)} kind:${q(g.kind)}`;

function trimmed(b: ApiBundle): ApiBundle {
  return { ...b, replaces: '', skips: [] };
}

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

/**
 * The query engine the gRPC server asks (CatalogQueries over a catalog, SqliteRegistryQueries over
 * an index database): one method per RPC of `api.Registry`, and of `api.ExperimentalRegistry` when
 * `customSchemaBlobs` is there (the service is registered only then). Errors are RpcErrors.
 */
export interface QueryEngine {
  listPackages(): string[];
  getPackage(name: string): ApiPackage;
  getBundle(pkgName: string, channelName: string, csvName: string): Promise<ApiBundle>;
  getBundleForChannel(pkgName: string, channelName: string): Promise<ApiBundle>;
  getChannelEntriesThatReplace(csvName: string): ApiChannelEntry[];
  getBundleThatReplaces(csvName: string, pkgName: string, channelName: string): Promise<ApiBundle>;
  getChannelEntriesThatProvide(g: Gvk): Promise<ApiChannelEntry[]>;
  getLatestChannelEntriesThatProvide(g: Gvk): Promise<ApiChannelEntry[]>;
  getDefaultBundleThatProvides(g: Gvk): Promise<ApiBundle>;
  /** ListBundles' stream, encoded, one message made as the caller asks. */
  listedMessages(): AsyncIterable<Uint8Array>;
  customSchemaBlobs?(schema: string, packageName: string): AsyncIterable<Uint8Array>;
}

/** The catalog server's answers, one method per RPC of `api.Registry` and `api.ExperimentalRegistry`. */
export class CatalogQueries implements QueryEngine {
  readonly packages: PackageIndex;
  private readonly store: BundleStore;
  readonly customSchemas: CustomSchemaStore | undefined;
  /** ListBundles' order, made on its first call (the index does not change while served). */
  private listOrder: readonly BundleKey[] | undefined;
  /**
   * ListBundles' messages of bundles with an image (no manifests: a few hundred bytes each), kept
   * once made, in list order: a stream sends bytes already made instead of converting every bundle
   * again. Messages with manifests are made per call and not kept.
   */
  private listedKept: (Uint8Array | undefined)[] = [];

  constructor(packages: PackageIndex, store: BundleStore, customSchemas?: CustomSchemaStore) {
    this.packages = packages;
    this.store = store;
    this.customSchemas = customSchemas;
  }

  listPackages(): string[] {
    return [...this.packages.keys()];
  }

  getPackage(name: string): ApiPackage {
    const pkg = this.packages.get(name);
    if (pkg === undefined) throw unknown(`package ${q(name)} not found`);
    const channels = [...pkg.channels.values()]
      .map((ch) => ({ name: ch.name, csvName: ch.head, deprecation: ch.deprecation }))
      .sort((a, b) => compareUtf8(a.name, b.name));
    return { name: pkg.name, channels, defaultChannelName: pkg.defaultChannel, deprecation: pkg.deprecation };
  }

  private channel(pkgName: string, channelName: string): IndexChannel {
    const pkg = this.packages.get(pkgName);
    if (pkg === undefined) throw unknown(`package ${q(pkgName)} not found`);
    const ch = pkg.channels.get(channelName);
    if (ch === undefined) throw unknown(`package ${q(pkgName)}, channel ${q(channelName)} not found`);
    return ch;
  }

  async getBundle(pkgName: string, channelName: string, csvName: string): Promise<ApiBundle> {
    const ch = this.channel(pkgName, channelName);
    if (!ch.bundles.has(csvName)) {
      throw unknown(`package ${q(pkgName)}, channel ${q(channelName)}, bundle ${q(csvName)} not found`);
    }
    return trimmed(await this.store.bundle({ package: pkgName, channel: channelName, name: csvName }, true));
  }

  async getBundleForChannel(pkgName: string, channelName: string): Promise<ApiBundle> {
    const ch = this.channel(pkgName, channelName);
    return trimmed(await this.store.bundle({ package: pkgName, channel: channelName, name: ch.head }, true));
  }

  getChannelEntriesThatReplace(csvName: string): ApiChannelEntry[] {
    const out: ApiChannelEntry[] = [];
    for (const pkg of this.packages.values()) {
      for (const ch of pkg.channels.values()) {
        for (const b of ch.bundles.values()) {
          const entry = {
            packageName: b.package,
            channelName: b.channel,
            bundleName: b.name,
            replaces: b.replaces,
          };
          if (b.replaces === csvName) out.push(entry);
          for (const s of b.skips ?? NO_SKIPS) if (s === csvName && s !== b.replaces) out.push(entry);
        }
      }
    }
    if (out.length === 0) throw unknown(`no channel entries found that replace ${csvName}`);
    return out;
  }

  async getBundleThatReplaces(csvName: string, pkgName: string, channelName: string): Promise<ApiBundle> {
    const pkg = this.packages.get(pkgName);
    if (pkg === undefined) throw unknown(`package ${pkgName} not found`);
    const ch = pkg.channels.get(channelName);
    if (ch === undefined) throw unknown(`package ${q(pkgName)}, channel ${q(channelName)} not found`);
    for (const b of ch.bundles.values()) {
      if (b.replaces === csvName || (b.skips ?? NO_SKIPS).includes(csvName)) {
        return trimmed(
          await this.store.bundle({ package: pkgName, channel: channelName, name: b.name }, true),
        );
      }
    }
    throw unknown(`no entry found for package ${q(pkgName)}, channel ${q(channelName)}`);
  }

  private async provides(b: IndexBundle, g: Gvk): Promise<boolean> {
    const bundle = await this.store.bundle(b, false);
    return bundle.providedApis.some(
      (p) => p.group === g.group && p.version === g.version && p.kind === g.kind,
    );
  }

  async getChannelEntriesThatProvide(g: Gvk): Promise<ApiChannelEntry[]> {
    const out: ApiChannelEntry[] = [];
    for (const pkg of this.packages.values()) {
      for (const ch of pkg.channels.values()) {
        for (const b of ch.bundles.values()) {
          if (!(await this.provides(b, g))) continue;
          out.push(...entriesOf(b, () => true));
        }
      }
    }
    if (out.length === 0) throw unknown(`no channel entries found that provide ${gvkText(g)}`);
    return out;
  }

  async getLatestChannelEntriesThatProvide(g: Gvk): Promise<ApiChannelEntry[]> {
    const out: ApiChannelEntry[] = [];
    for (const pkg of this.packages.values()) {
      for (const ch of pkg.channels.values()) {
        const head = ch.bundles.get(ch.head);
        if (head === undefined || !(await this.provides(head, g))) continue;
        out.push(...entriesOf(head, (skip) => ch.bundles.has(skip)));
      }
    }
    if (out.length === 0) throw unknown(`no channel entries found that provide ${gvkText(g)}`);
    return out;
  }

  async getDefaultBundleThatProvides(g: Gvk): Promise<ApiBundle> {
    const latest = await this.getLatestChannelEntriesThatProvide(g);
    latest.sort((a, b) => compareUtf8(a.packageName, b.packageName));
    for (const e of latest) {
      if (this.packages.get(e.packageName)?.defaultChannel !== e.channelName) continue;
      return this.getBundle(e.packageName, e.channelName, e.bundleName);
    }
    throw unknown(`no entry found that provides ${gvkText(g)}`);
  }

  /** Every (package, channel, bundle), by channel name, then package, then bundle (byte order). */
  listBundleKeys(): readonly BundleKey[] {
    if (this.listOrder !== undefined) return this.listOrder;
    const keys: BundleKey[] = [];
    for (const pkg of this.packages.values())
      for (const ch of pkg.channels.values())
        for (const b of ch.bundles.values()) keys.push({ package: pkg.name, channel: ch.name, name: b.name });
    this.listOrder = keys.sort(
      (a, b) =>
        compareUtf8(a.channel, b.channel) || compareUtf8(a.package, b.package) || compareUtf8(a.name, b.name),
    );
    return this.listOrder;
  }

  /** One ListBundles message: manifests left out when the bundle has an image. */
  async listedBundle(key: BundleKey): Promise<ApiBundle> {
    const light = await this.store.bundle(key, false);
    if (light.bundlePath !== '') return { ...light, csvJson: '', object: [] };
    return this.store.bundle(key, true);
  }

  /** ListBundles' stream, encoded: one message made (or taken from those kept) as the caller asks. */
  async *listedMessages(): AsyncIterable<Uint8Array> {
    const keys = this.listBundleKeys();
    for (let i = 0; i < keys.length; i++) {
      const kept = this.listedKept[i];
      if (kept !== undefined) {
        yield kept;
        continue;
      }
      const key = keys[i] as BundleKey;
      const stored = this.store.listedMessage?.(key);
      if (stored !== undefined) {
        this.listedKept[i] = stored;
        yield stored;
        continue;
      }
      const b = await this.listedBundle(key);
      const bytes = encodeBundle(b);
      if (b.bundlePath !== '') this.listedKept[i] = bytes;
      yield bytes;
    }
  }

  /**
   * ExperimentalListPackageCustomSchemas: the stored blobs of (schema, package), each as an
   * encoded google.protobuf.Struct. Throws INVALID_ARGUMENT for a missing or invalid name.
   */
  customSchemaBlobs(schema: string, packageName: string): AsyncIterable<Uint8Array> {
    if (schema === '') throw new RpcError(STATUS.INVALID_ARGUMENT, 'schema is required');
    const invalid = metaKeyProblem(schema, packageName);
    if (invalid !== undefined) {
      throw new RpcError(STATUS.INVALID_ARGUMENT, `invalid custom schema query: ${invalid}`);
    }
    if (this.customSchemas === undefined) return (async function* () {})();
    return this.customSchemas.metas(schema, packageName);
  }
}

/**
 * A bundle's channel entry (with its replaces), then one per skip other than its replaces that
 * `keepSkip` accepts, whose replaces is that skip.
 */
function entriesOf(b: IndexBundle, keepSkip: (skip: string) => boolean): ApiChannelEntry[] {
  const base = { packageName: b.package, channelName: b.channel, bundleName: b.name };
  const out: ApiChannelEntry[] = [{ ...base, replaces: b.replaces }];
  for (const s of b.skips ?? NO_SKIPS)
    if (s !== b.replaces && keepSkip(s)) out.push({ ...base, replaces: s });
  return out;
}

/** A served catalog: its queries, and what the server does with what holds them. */
export interface ServedIndex {
  queries: QueryEngine;
  /** Loading it let go of most of what it read (payloads left on disk): worth a collection. */
  leftGarbage?: boolean;
  /** Release what the index holds open (files, a database). */
  close(): Promise<void>;
}
