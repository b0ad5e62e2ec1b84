/// <reference lib="dom" />
/**
 * Checks of a drawn graph in a real browser, shared by the fixture and corpus suites: what is
 * on the screen, not what the markup says.
 */
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import type { ExpectedChannel } from './graph-expectations.js';

interface Seen {
  channel: string;
  nodes: { name: string; width: number; height: number; shown: boolean }[];
  edges: { key: string; length: number }[];
}

/** Every lane's nodes (with their size on screen) and edges (with their drawn length). */
export async function seenLanes(page: Page, lane: string): Promise<Seen[]> {
  return page.evaluate((laneSelector) => {
    return Array.from(document.querySelectorAll(laneSelector)).map((l) => ({
      channel: l.getAttribute('data-channel') ?? '',
      nodes: Array.from(l.querySelectorAll('g.node')).map((n) => {
        const r = n.getBoundingClientRect();
        const style = getComputedStyle(n);
        return {
          name: n.getAttribute('data-bundle') ?? '',
          width: r.width,
          height: r.height,
          shown: style.visibility !== 'hidden' && style.display !== 'none' && Number(style.opacity) > 0,
        };
      }),
      edges: Array.from(l.querySelectorAll('path.edge')).map((e) => ({
        key: `${e.getAttribute('data-kind') ?? ''} ${e.getAttribute('data-from') ?? ''} -> ${e.getAttribute('data-to') ?? ''}`,
        length: (e as SVGPathElement).getTotalLength(),
      })),
    }));
  }, lane);
}

/** Every listed bundle is a node of real size, and every edge of the catalog is drawn. */
export function expectAllDrawn(seen: Seen[], expected: ExpectedChannel[]): void {
  for (const e of expected) {
    const s = seen.find((x) => x.channel === e.channel);
    expect(s, `lane ${e.channel}`).toBeDefined();
    if (s === undefined) continue;
    for (const name of e.entries) {
      const n = s.nodes.find((x) => x.name === name);
      expect(n, `${e.channel}/${name} is a node`).toBeDefined();
      expect(n?.shown, `${e.channel}/${name} is shown`).toBe(true);
      expect(n?.width, `${e.channel}/${name} has a width`).toBeGreaterThan(20);
      expect(n?.height, `${e.channel}/${name} has a height`).toBeGreaterThan(10);
    }
    expect(s.edges.map((x) => x.key).sort(), `edges of ${e.channel}`).toEqual(e.edges);
    for (const edge of s.edges) expect(edge.length, edge.key).toBeGreaterThan(1);
  }
}

/** The text of the details panel. */
export async function details(page: Page): Promise<string> {
  return (await page.locator('#details').innerText()).replace(/\s+/g, ' ');
}

/** A lane's window as the page shows it: the part of the lane drawn, and where it is on screen. */
export interface LaneView {
  /** Zoom (1 = the lane's own size), as the page reports it. */
  scale: number;
  /** The part of the lane in the window, in lane coordinates (the window's data-view). */
  x: number;
  y: number;
  w: number;
  h: number;
  /** The whole lane, in the same coordinates. */
  lane: { x: number; y: number; w: number; h: number };
  /** The window on screen. */
  screen: { left: number; top: number; width: number; height: number };
}

/** The view of the lane of `channel` (the first lane of that name on the page). */
export async function laneView(page: Page, channel: string): Promise<LaneView> {
  return page.evaluate((ch) => {
    const lane = Array.from(document.querySelectorAll('section.lane')).find(
      (l) => l.getAttribute('data-channel') === ch,
    );
    const box = lane?.querySelector('.scroll');
    const svg = box?.querySelector('svg.lane-svg');
    if (!box || !svg) throw new Error(`no lane ${ch}`);
    const nums = (a: string | null): number[] => (a ?? '').split(' ').map(Number);
    const [x = NaN, y = NaN, w = NaN, h = NaN] = nums(box.getAttribute('data-view'));
    const [lx = NaN, ly = NaN, lw = NaN, lh = NaN] = nums(svg.getAttribute('viewBox'));
    const r = box.getBoundingClientRect();
    return {
      scale: Number(box.getAttribute('data-scale')),
      x,
      y,
      w,
      h,
      lane: { x: lx, y: ly, w: lw, h: lh },
      screen: { left: r.left, top: r.top, width: box.clientWidth, height: box.clientHeight },
    };
  }, channel);
}
