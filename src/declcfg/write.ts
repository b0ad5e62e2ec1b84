/**
 * opm's catalog writers (operator-registry `alpha/declcfg/write.go`): blobs grouped by
 * package in a fixed order, each written as 4-space indented JSON or as a `---` YAML document.
 * The writers are generators yielding one chunk per blob (writeJsonBytes: a megabyte of whole
 * blobs at a time), so a large catalog streams out.
 */
import { InternalError } from '../errors.js';
import { GoStruct } from '../go/go-struct.js';
import { JsonBytesOut } from '../go/json-bytes-out.js';
import { appendIndented, marshalIndent } from '../go/json-encode.js';
import { compareUtf8 } from '../go/utf8.js';
import { emitYaml } from '../yaml/emit.js';
import { nativeJsonValues } from './native-json.js';
import type { NativeJson } from '../go/json-native.js';
import type { ChannelEntry, DeclarativeConfig, Location, Blob } from './types.js';
import type { Property } from '../property/types.js';

export { marshalIndent } from '../go/json-encode.js';

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

/**
 * What the order of the output needs to know of a blob: its kind, the package it is written under
 * (a package blob's own name), its name (channels, bundles) and its schema (other blobs).
 */
export interface BlobPlace {
  kind: Blob['kind'];
  package: string;
  /** The blob's name ('' for a deprecation, which has none). */
  name: string;
  schema: string;
  loc?: Location;
}

/** A blob's place and what is written for it: the decoded blob, or its bytes already encoded. */
export type PlacedBlob<T> = BlobPlace & { value: T };

function dropped(schema: string, name: string, loc: Location | undefined): DroppedBlob {
  return loc === undefined ? { schema, name } : { schema, name, loc };
}

/**
 * Blobs (given in input order) grouped and ordered as opm writes them: package names in byte order;
 * per package its package blobs (input order), channels by name, bundles by name, other blobs by
 * schema, deprecations (input order); then others without a package, in input order. The values
 * are anything the caller writes: decoded blobs, or blobs already encoded.
 *
 * Go sorts channels and bundles with sort.Slice, which is an insertion sort (stable) up to 12
 * elements and may reorder equal names beyond that; this sort is stable at every size. Names are
 * unique in any catalog that validates, so the difference only shows on invalid input.
 */
export function orderBlobs<T>(
  blobs: Iterable<PlacedBlob<T>>,
  options: WriteOptions = {},
): { package: string; blobs: PlacedBlob<T>[] }[] {
  const buckets = new Map<string, Record<Blob['kind'], PlacedBlob<T>[]>>();
  const packageless: PlacedBlob<T>[] = [];
  const onDropped = options.onDropped;
  for (const b of blobs) {
    if (b.package === '') {
      if (b.kind === 'other') packageless.push(b);
      else onDropped?.(dropped(b.schema, b.name, b.loc));
      continue;
    }
    let bucket = buckets.get(b.package);
    if (bucket === undefined) {
      bucket = { package: [], channel: [], bundle: [], other: [], deprecation: [] };
      buckets.set(b.package, bucket);
    }
    bucket[b.kind].push(b);
  }
  const byName = (x: PlacedBlob<T>, y: PlacedBlob<T>): number => compareUtf8(x.name, y.name);
  const bySchema = (x: PlacedBlob<T>, y: PlacedBlob<T>): number => compareUtf8(x.schema, y.schema);
  const groups: { package: string; blobs: PlacedBlob<T>[] }[] = [];
  for (const name of [...buckets.keys()].sort(compareUtf8)) {
    const b = buckets.get(name) as Record<Blob['kind'], PlacedBlob<T>[]>;
    groups.push({
      package: name,
      blobs: [
        ...b.package,
        ...b.channel.sort(byName),
        ...b.bundle.sort(byName),
        ...b.other.sort(bySchema),
        ...b.deprecation,
      ],
    });
  }
  if (packageless.length > 0) groups.push({ package: '', blobs: packageless });
  return groups;
}

/** What the place of a decoded blob in the output depends on. */
export function placeOf(blob: Blob): BlobPlace {
  const v = blob.value;
  return {
    kind: blob.kind,
    package: blob.kind === 'package' ? blob.value.name : blob.value.package,
    name: blob.kind === 'deprecation' ? '' : blob.value.name,
    schema: v.schema,
    ...(v.loc === undefined ? {} : { loc: v.loc }),
  };
}

/** The blobs of `cfg` in input order, one kind after another. */
export function* blobsOf(cfg: DeclarativeConfig): Generator<Blob> {
  for (const value of cfg.packages) yield { kind: 'package', value };
  for (const value of cfg.channels) yield { kind: 'channel', value };
  for (const value of cfg.bundles) yield { kind: 'bundle', value };
  for (const value of cfg.others) yield { kind: 'other', value };
  for (const value of cfg.deprecations) yield { kind: 'deprecation', value };
}

/** The blobs of `cfg` grouped and ordered as opm writes them ({@link orderBlobs}). */
export function groupBlobs(cfg: DeclarativeConfig, options: WriteOptions = {}): PackageGroup[] {
  const placedBlobs: PlacedBlob<Blob>[] = [];
  for (const b of blobsOf(cfg)) placedBlobs.push({ ...placeOf(b), value: b });
  return orderBlobs(placedBlobs, options).map((g) => ({
    package: g.package,
    blobs: g.blobs.map((b) => b.value),
  }));
}

// ---------------------------------------------------------------------------------------------
// Blob encoding: Go struct field order and omitempty rules (`alpha/declcfg/declcfg.go`)

function properties(
  props: readonly Property[] | undefined,
  ready: readonly NativeJson[] | undefined,
): GoStruct[] | undefined {
  if (props === undefined || props.length === 0) return undefined;
  return props.map(
    (p) => new GoStruct({ type: p.type, value: ready?.find((r) => r.value === p.value) ?? p.value }),
  );
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
  const ready = nativeJsonValues(blob);
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
        properties: properties(p.properties, ready),
      });
    }
    case 'channel': {
      const c = blob.value;
      return new GoStruct({
        schema: c.schema,
        name: c.name,
        package: c.package,
        entries: c.entries === null ? null : c.entries.map(channelEntry),
        properties: properties(c.properties, ready),
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
        properties: properties(b.properties, ready),
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

/** One blob as WriteJSON writes it (see {@link blobJson}), into `out`. */
export function appendBlobJson(out: JsonBytesOut, blob: Blob): void {
  appendIndented(out, blobValue(blob), '', '    ', false);
  out.text('\n');
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
      appendBlobJson(out, next.value);
    } catch (err) {
      out.truncate(mark);
      if (mark > 0) yield out.take();
      throw err;
    }
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
