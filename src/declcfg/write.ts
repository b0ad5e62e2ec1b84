/**
 * opm's catalog writers (operator-registry `alpha/declcfg/write.go`): blobs grouped by
 * package in a fixed order, each written as 4-space indented JSON or as a `---` YAML document.
 * The writers are generators yielding one chunk per blob (writeJsonBytes: a megabyte of whole
 * blobs at a time), so a large catalog streams out.
 */
import { InternalError } from '../errors.js';
import { GoStruct, JsonBytesOut, appendIndented, marshalIndent } from '../go/json.js';
import { compareUtf8 } from '../go/utf8.js';
import { emitYaml } from '../yaml/emit.js';
import type {
  Bundle,
  Channel,
  ChannelEntry,
  DeclarativeConfig,
  Deprecation,
  Location,
  Meta,
  Package,
  Blob,
} from './types.js';
import type { Property } from '../property/types.js';

export { marshalIndent } from '../go/json.js';

/**
 * A blob opm leaves out of its output because its package name is empty (a package, channel,
 * bundle or deprecation without one).
 */
export interface DroppedBlob {
  schema: string;
  /** The blob's own name ('' for deprecations, which have none). */
  name: string;
  loc?: Location;
}

export interface WriteOptions {
  /** Told about each blob left out because its package name is empty (opm drops them silently). */
  onDropped?: (blob: DroppedBlob) => void;
}

/** The blobs of one package in output order; `package` '' holds the package-less others. */
export interface PackageGroup {
  package: string;
  blobs: Blob[];
}

interface Bucket {
  packages: Package[];
  channels: Channel[];
  bundles: Bundle[];
  others: Meta[];
  deprecations: Deprecation[];
}

function dropped(schema: string, name: string, loc: Location | undefined): DroppedBlob {
  return loc === undefined ? { schema, name } : { schema, name, loc };
}

/**
 * The blobs of `cfg` grouped and ordered as opm writes them: package names in byte order; per
 * package its package blobs (input order), channels by name, bundles by name, other blobs by
 * schema, deprecations (input order); then others without a package, in input order.
 *
 * Go sorts channels and bundles with sort.Slice, which is an insertion sort (stable) up to 12
 * elements and may reorder equal names beyond that; this sort is stable at every size. Names are
 * unique in any catalog that validates, so the difference only shows on invalid input.
 */
export function groupBlobs(cfg: DeclarativeConfig, options: WriteOptions = {}): PackageGroup[] {
  const buckets = new Map<string, Bucket>();
  const bucket = (name: string): Bucket => {
    let b = buckets.get(name);
    if (b === undefined) {
      b = { packages: [], channels: [], bundles: [], others: [], deprecations: [] };
      buckets.set(name, b);
    }
    return b;
  };
  const onDropped = options.onDropped;
  for (const p of cfg.packages) {
    if (p.name === '') onDropped?.(dropped(p.schema, p.name, p.loc));
    else bucket(p.name).packages.push(p);
  }
  for (const c of cfg.channels) {
    if (c.package === '') onDropped?.(dropped(c.schema, c.name, c.loc));
    else bucket(c.package).channels.push(c);
  }
  for (const b of cfg.bundles) {
    if (b.package === '') onDropped?.(dropped(b.schema, b.name, b.loc));
    else bucket(b.package).bundles.push(b);
  }
  for (const d of cfg.deprecations) {
    if (d.package === '') onDropped?.(dropped(d.schema, '', d.loc));
    else bucket(d.package).deprecations.push(d);
  }
  const packageless: Meta[] = [];
  for (const o of cfg.others) {
    if (o.package === '') packageless.push(o);
    else bucket(o.package).others.push(o);
  }
  const groups: PackageGroup[] = [];
  for (const name of [...buckets.keys()].sort(compareUtf8)) {
    const b = buckets.get(name) as Bucket;
    const byName = (x: { name: string }, y: { name: string }): number => compareUtf8(x.name, y.name);
    const blobs: Blob[] = [];
    for (const value of b.packages) blobs.push({ kind: 'package', value });
    for (const value of [...b.channels].sort(byName)) blobs.push({ kind: 'channel', value });
    for (const value of [...b.bundles].sort(byName)) blobs.push({ kind: 'bundle', value });
    const others = [...b.others].sort((x, y) => compareUtf8(x.schema, y.schema));
    for (const value of others) blobs.push({ kind: 'other', value });
    for (const value of b.deprecations) blobs.push({ kind: 'deprecation', value });
    groups.push({ package: name, blobs });
  }
  if (packageless.length > 0) {
    groups.push({ package: '', blobs: packageless.map((value) => ({ kind: 'other', value })) });
  }
  return groups;
}

// ---------------------------------------------------------------------------------------------
// Blob encoding: Go struct field order and omitempty rules (`alpha/declcfg/declcfg.go`)

function properties(props: readonly Property[] | undefined): GoStruct[] | undefined {
  if (props === undefined || props.length === 0) return undefined;
  return props.map((p) => new GoStruct({ type: p.type, value: p.value }));
}

function nonEmpty(s: string | undefined): string | undefined {
  return s === undefined || s === '' ? undefined : s;
}

function channelEntry(e: ChannelEntry): GoStruct {
  return new GoStruct({
    name: e.name,
    replaces: nonEmpty(e.replaces),
    skips: e.skips === undefined || e.skips.length === 0 ? undefined : e.skips,
    skipRange: nonEmpty(e.skipRange),
  });
}

/** The value Go's encoder sees for a blob: structs in field order, others as their blob. */
function blobValue(blob: Blob): unknown {
  switch (blob.kind) {
    case 'package': {
      const p = blob.value;
      return new GoStruct({
        schema: p.schema,
        name: p.name,
        defaultChannel: p.defaultChannel,
        icon:
          p.icon === undefined
            ? undefined
            : new GoStruct({ base64data: p.icon.base64data, mediatype: p.icon.mediatype }),
        description: nonEmpty(p.description),
        properties: properties(p.properties),
      });
    }
    case 'channel': {
      const c = blob.value;
      return new GoStruct({
        schema: c.schema,
        name: c.name,
        package: c.package,
        entries: c.entries === null ? null : c.entries.map(channelEntry),
        properties: properties(c.properties),
      });
    }
    case 'bundle': {
      const b = blob.value;
      if (b.payloadsElided === true) {
        throw new InternalError(
          `bundle ${b.name} was loaded without its object payloads and cannot be written`,
        );
      }
      return new GoStruct({
        schema: b.schema,
        name: nonEmpty(b.name),
        package: nonEmpty(b.package),
        image: b.image,
        properties: properties(b.properties),
        relatedImages:
          b.relatedImages === undefined || b.relatedImages.length === 0
            ? undefined
            : b.relatedImages.map((r) => new GoStruct({ name: r.name, image: r.image })),
      });
    }
    case 'deprecation': {
      const d = blob.value;
      return new GoStruct({
        schema: d.schema,
        package: d.package,
        entries:
          d.entries === null
            ? null
            : d.entries.map(
                (e) =>
                  new GoStruct({
                    reference: new GoStruct({ schema: e.reference.schema, name: nonEmpty(e.reference.name) }),
                    message: e.message,
                  }),
              ),
      });
    }
    case 'other':
      return blob.value.blob;
  }
}

/** One blob as WriteJSON writes it: 4-space indent, no HTML escaping, trailing newline. */
export function blobJson(blob: Blob): string {
  return marshalIndent(blobValue(blob), '', '    ', false) + '\n';
}

/** One blob as WriteYAML writes it: `---`, then the YAML document. */
export function blobYaml(blob: Blob): string {
  return '---\n' + emitYaml(blobValue(blob));
}

/**
 * `blobs` as written: a bundle loaded without its payloads gets them back from `cfg.payloads` only
 * when its turn comes, so a large catalog's payloads are never all in memory at once.
 */
export function* restoredBlobs(cfg: DeclarativeConfig, blobs: Iterable<Blob>): Generator<Blob> {
  const payloads = cfg.payloads;
  for (const b of blobs) {
    yield payloads !== undefined && b.kind === 'bundle'
      ? { kind: 'bundle', value: payloads.restore(b.value) }
      : b;
  }
}

/** The blobs of `cfg` in output order, payloads restored. */
function* outputBlobs(cfg: DeclarativeConfig, options: WriteOptions): Generator<Blob> {
  for (const g of groupBlobs(cfg, options)) yield* restoredBlobs(cfg, g.blobs);
}

/** opm's WriteJSON, one chunk per blob. */
export function* writeJson(cfg: DeclarativeConfig, options: WriteOptions = {}): Generator<string> {
  for (const b of outputBlobs(cfg, options)) yield blobJson(b);
}

/** Bytes gathered before {@link writeJsonBytes} hands out a chunk. */
const JSON_CHUNK_BYTES = 1 << 20;

/**
 * opm's WriteJSON as UTF-8 chunks of about a megabyte, each ending with a whole blob. The chunks
 * share one buffer: a chunk is only valid until the next one is asked for, so the consumer must
 * be done with it (written out, or copied) by then. Should a blob fail to encode, the blobs
 * before it are handed out first, then the error is thrown.
 */
export function* writeJsonBytes(cfg: DeclarativeConfig, options: WriteOptions = {}): Generator<Uint8Array> {
  const out = new JsonBytesOut();
  const blobs = outputBlobs(cfg, options);
  for (;;) {
    const mark = out.mark();
    try {
      const next = blobs.next();
      if (next.done === true) break;
      appendIndented(out, blobValue(next.value), '', '    ', false);
    } catch (err) {
      out.truncate(mark);
      if (mark > 0) yield out.take();
      throw err;
    }
    out.text('\n');
    if (out.size >= JSON_CHUNK_BYTES) yield out.take();
  }
  if (out.size > 0) yield out.take();
}

/** opm's WriteYAML, one chunk per blob. Throws OpmError where opm's YAML step fails. */
export function* writeYaml(cfg: DeclarativeConfig, options: WriteOptions = {}): Generator<string> {
  for (const b of outputBlobs(cfg, options)) yield blobYaml(b);
}

/**
 * A plain value as sigs.k8s.io/yaml's JSONToYAML writes it (used for `-o yaml` of validate and
 * convert-template). Accepts what marshalIndent accepts (GoStruct for struct field sets).
 */
export function toYaml(value: unknown): string {
  return emitYaml(value);
}
