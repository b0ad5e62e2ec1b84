/**
 * The bytes of one pull, for progress: how much of the image's config and layers is in hand, and
 * how much of it came over the network. Blobs are counted by digest, so a blob that two layers
 * share, or a download tried again from its start, is not counted twice.
 */
import type { ProgressSink } from '../../util/progress.js';
import type { Descriptor } from '../manifest.js';

/** Bytes events of a pull are sent at most this often (a display redraws about as often). */
const BYTES_EVERY_MS = 100;

export class PullMeter {
  readonly id: number;
  readonly ref: string;
  private readonly sink: ProgressSink;
  private readonly sizes = new Map<string, number>();
  private readonly have = new Map<string, number>();
  private readonly downloaded = new Map<string, number>();
  private total = 0;
  private lastSent = 0;
  private startedAt: number | undefined;

  constructor(sink: ProgressSink, id: number, ref: string) {
    this.sink = sink;
    this.id = id;
    this.ref = ref;
  }

  /** The pull began (it had its turn and its store). */
  start(): void {
    this.startedAt = Date.now();
    this.sink({ type: 'image-start', id: this.id, ref: this.ref });
  }

  /** The image is pulled and unpacked. */
  done(): void {
    if (this.startedAt === undefined) return;
    const ms = Date.now() - this.startedAt;
    this.sink({
      type: 'image-done',
      id: this.id,
      ref: this.ref,
      bytes: this.total,
      fetched: this.fetched,
      ms,
    });
  }

  /** The pull failed; nothing is said when it failed before it began. */
  failed(): void {
    if (this.startedAt === undefined) return;
    this.sink({ type: 'image-failed', id: this.id, ref: this.ref, ms: Date.now() - this.startedAt });
  }

  /** A source's manifest is known: these are the blobs to have (counting starts again). */
  begin(blobs: Descriptor[]): void {
    this.sizes.clear();
    this.have.clear();
    this.downloaded.clear();
    for (const b of blobs) this.sizes.set(b.digest, b.size);
    this.total = [...this.sizes.values()].reduce((a, b) => a + b, 0);
    this.send(true);
  }

  /** `got` bytes of the current attempt at downloading `digest` have arrived. */
  received(digest: string, got: number): void {
    this.downloaded.set(digest, got);
    this.have.set(digest, got);
    this.send(false);
  }

  /** A blob is in the store (downloaded, or found there). */
  stored(d: Descriptor): void {
    this.have.set(d.digest, this.sizes.get(d.digest) ?? d.size);
    this.send(true);
  }

  /** Bytes that came over the network. */
  private get fetched(): number {
    return sum(this.downloaded);
  }

  private send(now: boolean): void {
    const t = Date.now();
    if (!now && t - this.lastSent < BYTES_EVERY_MS) return;
    this.lastSent = t;
    const done = Math.min(sum(this.have), this.total);
    this.sink({ type: 'image-bytes', id: this.id, ref: this.ref, done, total: this.total });
  }
}

function sum(m: Map<string, number>): number {
  let n = 0;
  for (const v of m.values()) n += v;
  return n;
}
