/**
 * The served catalog held in memory: the package index, the bundles (converted when asked for)
 * and the blobs of other schemas, built from the model of a loaded catalog.
 */
import type { Bundle, Meta } from '../declcfg/types.js';
import type { ModelBundle, Model } from '../model/model.js';
import { toApiBundle } from './convert.js';
import type { ApiBundle } from '../api-contract/messages.js';
import {
  CatalogQueries,
  type BundleKey,
  type BundleStore,
  type CustomSchemaStore,
} from '../catalog-queries/queries.js';
import { packageIndexFromModel } from '../catalog-queries/package-index.js';
import { encodeStruct } from '../protobuf/struct.js';

/** Bundles converted from the model when a call needs them; nothing of them is kept. */
export class ModelBundleStore implements BundleStore {
  private readonly model: Model;
  private readonly restore: ((blob: Bundle) => Bundle) | undefined;

  constructor(model: Model, restore?: (blob: Bundle) => Bundle) {
    this.model = model;
    this.restore = restore;
  }

  modelBundle(key: BundleKey): ModelBundle {
    const b = this.model.get(key.package)?.channels.get(key.channel)?.bundles.get(key.name);
    if (b === undefined)
      throw new Error(`bundle ${key.package}/${key.channel}/${key.name} is not in the catalog`);
    return b;
  }

  bundle(key: BundleKey, withManifests: boolean): Promise<ApiBundle> {
    const b = this.modelBundle(key);
    return Promise.resolve(
      toApiBundle(b, {
        withoutManifests: !withManifests,
        ...(this.restore === undefined ? {} : { restore: this.restore }),
      }),
    );
  }
}

/** Blobs of other schemas grouped by (schema, package), encoded once as Structs. */
export class MemoryCustomSchemas implements CustomSchemaStore {
  private readonly byKey = new Map<string, Uint8Array[]>();

  constructor(metas: readonly Meta[]) {
    for (const m of metas) {
      const key = `${m.schema}\u0000${m.package}`;
      let list = this.byKey.get(key);
      if (list === undefined) this.byKey.set(key, (list = []));
      list.push(encodeStruct(m.blob));
    }
  }

  async *metas(schema: string, packageName: string): AsyncIterable<Uint8Array> {
    for (const m of this.byKey.get(`${schema}\u0000${packageName}`) ?? []) yield await Promise.resolve(m);
  }
}

/** The queries of a catalog held in memory. Throws PackageIndexError for a channel without one head. */
export function memoryQueries(
  model: Model,
  others: readonly Meta[],
  restore?: (blob: Bundle) => Bundle,
): CatalogQueries {
  return new CatalogQueries(
    packageIndexFromModel(model),
    new ModelBundleStore(model, restore),
    new MemoryCustomSchemas(others),
  );
}
