import { describe, expect, it } from 'vitest';
import { catalog } from '../../test/graph/generated-catalogs.js';
import { layoutChannel, type ChannelLayout } from './layout.js';
import { buildUpgradeGraph, type GraphChannel } from './upgrade-graph.js';
import { WRAP_MIN_WIDTH, wrapLayout } from './wrap.js';

function lane(n: number, shape: 'chain' | 'skips' | 'long-skips'): GraphChannel {
  const ch = buildUpgradeGraph(catalog(1, n, shape)).packages[0]?.channels[0];
  if (ch === undefined) throw new Error('no lane');
  return ch;
}

const near = (a: number, b: number): boolean => Math.abs(a - b) < 0.01;

/** Every edge's drawing starts on its source's border and ends on its target's, in one or two parts. */
function expectEdgesJoinNodes(ch: GraphChannel, l: ChannelLayout): void {
  ch.edges.forEach((e, i) => {
    const parts = l.parts?.[i] ?? [l.edges[i] ?? []];
    expect(parts.length).toBeGreaterThanOrEqual(1);
    expect(parts.length).toBeLessThanOrEqual(2);
    const from = l.nodes[e.from];
    const to = l.nodes[e.to];
    const start = parts[0]?.[0];
    const last = parts[parts.length - 1] ?? [];
    const end = last[last.length - 1];
    if (from === undefined || to === undefined || start === undefined || end === undefined)
      throw new Error('missing');
    const onBorder = (p: { x: number; y: number }, b: typeof from): boolean =>
      p.x >= b.x - 0.01 && p.x <= b.x + b.width + 0.01 && p.y >= b.y - 0.01 && p.y <= b.y + b.height + 0.01;
    expect(onBorder(start, from), `edge ${i} leaves ${ch.nodes[e.from]?.name}`).toBe(true);
    expect(onBorder(end, to), `edge ${i} reaches ${ch.nodes[e.to]?.name}`).toBe(true);
  });
}

describe('wrapLayout', () => {
  it('leaves lanes up to WRAP_MIN_WIDTH as they are', () => {
    const l = layoutChannel(lane(8, 'skips'));
    expect(l.width).toBeLessThanOrEqual(WRAP_MIN_WIDTH);
    expect(wrapLayout(l)).toBe(l);
  });

  it('wraps a long lane onto rows of about the page window shape, oldest first, nothing overlapping', () => {
    const ch = lane(150, 'skips');
    const one = layoutChannel(ch);
    const w = wrapLayout(one);
    expect(w.nodes).toHaveLength(one.nodes.length);
    expect(w.width / w.height).toBeGreaterThan(1.2);
    expect(w.width / w.height).toBeLessThan(5);
    // Read row after row: by row, then left to right, the replaces chain keeps its order.
    const rowOf = (i: number): number => Math.floor((w.nodes[i]?.y ?? 0) / (one.height + 1));
    const chain = ch.nodes
      .map((_, i) => i)
      .filter((i) => !/\.v1\.0\.(\d*[49])$/.test(ch.nodes[i]?.name ?? ''));
    for (let k = 1; k < chain.length; k++) {
      const [a, b] = [chain[k - 1] ?? 0, chain[k] ?? 0];
      const ok =
        rowOf(b) > rowOf(a) || (rowOf(b) === rowOf(a) && (w.nodes[b]?.x ?? 0) > (w.nodes[a]?.x ?? 0));
      expect(ok, `${ch.nodes[a]?.name} before ${ch.nodes[b]?.name}`).toBe(true);
    }
    expect(new Set(w.nodes.map((_, i) => rowOf(i))).size).toBeGreaterThan(3);
    for (const b of w.nodes) {
      expect(b.x).toBeGreaterThanOrEqual(-0.01);
      expect(b.x + b.width).toBeLessThanOrEqual(w.width + 0.01);
      expect(b.y + b.height).toBeLessThanOrEqual(w.height + 0.01);
    }
    for (let i = 0; i < w.nodes.length; i++)
      for (let k = i + 1; k < w.nodes.length; k++) {
        const [a, b] = [w.nodes[i], w.nodes[k]];
        if (a === undefined || b === undefined) continue;
        const overlap =
          a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
        expect(overlap).toBe(false);
      }
    expectEdgesJoinNodes(ch, w);
    // An edge cut by a row break leaves at the row's right end and comes in at the next row's left.
    const cut = (w.parts ?? []).filter((p) => p.length === 2);
    expect(cut.length).toBeGreaterThan(0);
    for (const [a, b] of cut) {
      const leave = a?.[a.length - 1];
      const come = b?.[0];
      expect(leave !== undefined && come !== undefined && leave.y < come.y).toBe(true);
      expect(near(come?.x ?? NaN, 0)).toBe(true);
    }
  });

  it('a lane of 10,000 bundles: rows, and at most two parts per edge', () => {
    const ch = lane(10_000, 'long-skips');
    const w = wrapLayout(layoutChannel(ch));
    expect(w.width).toBeLessThan(40_000);
    expect(w.parts).toHaveLength(ch.edges.length);
    expectEdgesJoinNodes(ch, w);
  });
});
