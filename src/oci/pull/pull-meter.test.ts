// The bytes of a pull as its progress events say them: blobs counted once by digest, a retried
// download from its start, cached blobs as soon as they are found, and the network's share.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ProgressEvent } from '../../util/progress.js';
import type { Descriptor } from '../manifest.js';
import { PullMeter } from './pull-meter.js';

const blob = (n: number, size: number): Descriptor => ({
  mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
  digest: `sha256:${String(n).repeat(64).slice(0, 64)}`,
  size,
});

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('PullMeter', () => {
  it('counts each blob once, a retry from its start, and tells cached bytes from fetched ones', () => {
    const events: ProgressEvent[] = [];
    const meter = new PullMeter((e) => events.push(e), 3, 'example.com/a:1');
    const config = blob(1, 100);
    const layer = blob(2, 1000);
    const cached = blob(3, 500);
    meter.start();
    meter.begin([config, layer, cached]);
    expect(events.at(-1)).toEqual({
      type: 'image-bytes',
      id: 3,
      ref: 'example.com/a:1',
      done: 0,
      total: 1600,
    });
    meter.stored(cached);
    expect(events.at(-1)).toMatchObject({ done: 500 });
    vi.advanceTimersByTime(200);
    meter.received(layer.digest, 400);
    expect(events.at(-1)).toMatchObject({ done: 900 });
    // The connection dropped: the next attempt starts again from its first byte.
    vi.advanceTimersByTime(200);
    meter.received(layer.digest, 100);
    expect(events.at(-1)).toMatchObject({ done: 600 });
    meter.received(layer.digest, 1000);
    meter.stored(layer);
    meter.stored(config);
    expect(events.at(-1)).toMatchObject({ done: 1600, total: 1600 });
    vi.advanceTimersByTime(2500);
    meter.done();
    expect(events.at(-1)).toEqual({
      type: 'image-done',
      id: 3,
      ref: 'example.com/a:1',
      bytes: 1600,
      fetched: 1000,
      ms: 2900,
    });
  });

  it('sends bytes at most every 100 ms while a blob streams in, and says nothing of a pull that never began', () => {
    const events: ProgressEvent[] = [];
    const meter = new PullMeter((e) => events.push(e), 4, 'example.com/b:1');
    meter.failed();
    expect(events).toEqual([]);
    meter.start();
    const layer = blob(5, 10_000);
    meter.begin([layer]);
    const before = events.length;
    for (let got = 100; got <= 5000; got += 100) meter.received(layer.digest, got);
    expect(events.length).toBe(before);
    vi.advanceTimersByTime(100);
    meter.received(layer.digest, 5100);
    expect(events.length).toBe(before + 1);
    meter.failed();
    expect(events.at(-1)).toMatchObject({ type: 'image-failed', id: 4, ref: 'example.com/b:1' });
  });
});
