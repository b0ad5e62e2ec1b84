/**
 * What progress events say is under way, kept for the displays of `progress.ts` (lines) and
 * `progress-terminal.ts` (the live display), with the numbers both write.
 */
import type { ProgressEvent } from '../util/progress.js';

export interface ImageState {
  id: number;
  ref: string;
  /** 1-based, in the order pulls began. */
  index: number;
  startedAt: number;
  done: number;
  total: number;
  /** Recent (time, bytes) readings, for the rate. */
  samples: Array<[number, number]>;
}

export interface PhaseState {
  id: number;
  name: string;
  startedAt: number;
}

/** What is under way, kept from the events; both displays read it. */
export class ProgressModel {
  /** Images the work said it will pull, if it said. */
  planned: number | undefined;
  began = 0;
  finished = 0;
  readonly firstAt = Date.now();
  readonly images = new Map<number, ImageState>();
  readonly phases = new Map<number, PhaseState>();

  /** Fold an event in; returns the image or phase it concerns. */
  apply(e: ProgressEvent, now = Date.now()): ImageState | PhaseState | undefined {
    switch (e.type) {
      case 'images':
        this.planned = e.total;
        return undefined;
      case 'image-start': {
        const img: ImageState = {
          id: e.id,
          ref: e.ref,
          index: ++this.began,
          startedAt: now,
          done: 0,
          total: 0,
          samples: [[now, 0]],
        };
        this.images.set(e.id, img);
        return img;
      }
      case 'image-bytes': {
        const img = this.images.get(e.id);
        if (img === undefined) return undefined;
        img.done = e.done;
        img.total = e.total;
        img.samples.push([now, e.done]);
        // A few seconds of readings are enough for a rate that moves but does not jump.
        while (img.samples.length > 2 && now - (img.samples[0]?.[0] ?? now) > 3000) img.samples.shift();
        return img;
      }
      case 'image-done':
      case 'image-failed': {
        const img = this.images.get(e.id);
        this.images.delete(e.id);
        this.finished++;
        return img;
      }
      case 'phase-start': {
        const p: PhaseState = { id: e.id, name: e.name, startedAt: now };
        this.phases.set(e.id, p);
        return p;
      }
      case 'phase-end': {
        const p = this.phases.get(e.id);
        this.phases.delete(e.id);
        return p;
      }
    }
  }

  /** `3/4`, or `3` when the count of images is not known. */
  ofTotal(index: number): string {
    const total = Math.max(this.planned ?? 0, this.began);
    return this.planned === undefined ? String(index) : `${index}/${total}`;
  }
}

/** Bytes per second over the recent readings of an image. */
export function rate(img: ImageState): number {
  const first = img.samples[0];
  const last = img.samples.at(-1);
  if (first === undefined || last === undefined || last[0] <= first[0]) return 0;
  return ((last[1] - first[1]) * 1000) / (last[0] - first[0]);
}

export function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}

export function humanSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** A live display's part: `progress-terminal.ts` implements it. */
export interface LiveDisplay {
  /** Something changed (the display redraws on its own clock, too). */
  changed(): void;
  /** Clear the display from the terminal. */
  stop(): void;
}
