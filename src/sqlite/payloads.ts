/**
 * Bundle objects kept as their bytes until written: a render for output gives each bundle its
 * `olm.bundle.object` base64 only when the writer reaches it (DeferredPayloads), so the base64 of
 * every manifest is never all in memory at once, and the garbage collector does not move it about.
 */
import { InternalError } from '../errors.js';
import type { Bundle, DeferredPayloads } from '../declcfg/types.js';

export class ObjectBytes implements DeferredPayloads {
  private readonly bytes = new Map<Bundle, Buffer[]>();

  /** `b`'s olm.bundle.object properties (placeholders, in order) are given `objects` when written. */
  defer(b: Bundle, objects: Buffer[]): void {
    this.bytes.set(b, objects);
  }

  restore(bundle: Bundle): Bundle {
    const objects = this.bytes.get(bundle);
    if (objects === undefined) return bundle;
    this.bytes.delete(bundle);
    const out: Bundle = { ...bundle };
    delete out.payloadsElided;
    let next = 0;
    out.properties = (bundle.properties ?? []).map((p) => {
      if (p.type !== 'olm.bundle.object') return p;
      const o = objects[next++];
      if (o === undefined) throw new InternalError(`bundle ${bundle.name}: fewer objects than properties`);
      return { type: p.type, value: { data: o.toString('base64') } };
    });
    return out;
  }

  merge(): DeferredPayloads {
    // render defers only when it renders one ref: there is nothing to merge with.
    throw new InternalError('deferred bundle objects of a database cannot be merged');
  }
}
