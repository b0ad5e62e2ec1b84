/**
 * Upgrade graphs as large as long-lived operators make them: a channel of 10,000 bundles in one
 * replaces chain, and a catalog of 100,000 bundles, drawn as SVG and as the HTML page. The catalogs
 * are built in memory. Cost is held to the size of the graph by counting the layout's work, not by
 * timing it.
 */
import { describe, expect, it } from 'vitest';
import type { ChannelEntry, DeclarativeConfig } from '../../src/declcfg/types.js';
import { bundleName, catalog } from './generated-catalogs.js';
import { writeHtml } from '../../src/graph/html.js';
import {
  DAGRE_BUDGET_NODES,
  DAGRE_MAX_NODES,
  layoutChannel,
  layoutGraph,
  newLayoutStats,
  type Box,
  type ChannelLayout,
  type Point,
} from '../../src/graph/layout.js';
import { writeMermaid } from '../../src/graph/mermaid.js';
import { writeSvg } from '../../src/graph/svg.js';
import { buildUpgradeGraph, type GraphChannel, type GraphPackage } from '../../src/graph/upgrade-graph.js';
import { drawnChannels, parseSvg } from './svg-tree.js';

function lane(cfg: DeclarativeConfig): GraphChannel {
  const ch = buildUpgradeGraph(cfg).packages[0]?.channels[0];
  if (ch === undefined) throw new Error('no lane');
  return ch;
}

const count = (text: string, re: RegExp): number => text.match(re)?.length ?? 0;

function overlap(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** No two node boxes overlap (boxes sorted by x, each compared with those that start before it ends). */
function expectNoOverlap(l: ChannelLayout): void {
  const boxes = [...l.nodes].sort((a, b) => a.x - b.x);
  for (let i = 0; i < boxes.length; i++) {
    const a = boxes[i];
    for (let k = i + 1; a !== undefined && k < boxes.length; k++) {
      const b = boxes[k];
      if (b === undefined || b.x >= a.x + a.width) break;
      expect(overlap(a, b), `${JSON.stringify(a)} overlaps ${JSON.stringify(b)}`).toBe(false);
    }
  }
}

/** Whether the segment p-q passes through the inside of box b (Liang-Barsky clipping). */
function crosses(p: Point, q: Point, b: Box): boolean {
  const [x0, x1, y0, y1] = [b.x + 1, b.x + b.width - 1, b.y + 1, b.y + b.height - 1];
  let t0 = 0;
  let t1 = 1;
  const dx = q.x - p.x;
  const dy = q.y - p.y;
  for (const [d, a] of [
    [-dx, p.x - x0],
    [dx, x1 - p.x],
    [-dy, p.y - y0],
    [dy, y1 - p.y],
  ] as const) {
    if (d === 0) {
      if (a < 0) return false;
    } else {
      const t = a / d;
      if (d < 0) t0 = Math.max(t0, t);
      else t1 = Math.min(t1, t);
    }
  }
  return t0 < t1;
}

/** No drawn edge (but skipRange arcs) runs through a node other than its own two. */
function expectEdgesAroundNodes(ch: GraphChannel, l: ChannelLayout): void {
  const order = l.nodes.map((_, i) => i).sort((a, b) => (l.nodes[a]?.x ?? 0) - (l.nodes[b]?.x ?? 0));
  ch.edges.forEach((e, i) => {
    if (l.arcs[i] === true) return;
    const route = l.edges[i] ?? [];
    for (let k = 1; k < route.length; k++) {
      const p = route[k - 1];
      const q = route[k];
      if (p === undefined || q === undefined) continue;
      const [lo, hi] = [Math.min(p.x, q.x), Math.max(p.x, q.x)];
      for (const j of order) {
        const b = l.nodes[j];
        if (b === undefined || b.x > hi) break;
        if (j === e.from || j === e.to || b.x + b.width < lo) continue;
        expect(
          crosses(p, q, b),
          `${ch.nodes[e.from]?.name} -> ${ch.nodes[e.to]?.name} crosses ${ch.nodes[j]?.name}`,
        ).toBe(false);
      }
    }
  });
}

describe('a channel of 10,000 bundles in one replaces chain', () => {
  const cfg = catalog(1, 10_000);
  const graph = buildUpgradeGraph(cfg);
  const stats = newLayoutStats();
  const layouts = layoutGraph(graph, stats);
  const layout = layouts[0]?.[0];

  it('is laid out as a chain, without dagre: one row, left to right, every edge from border to border', () => {
    expect(stats).toEqual({ dagreRuns: 0, dagreNodes: 0, largestDagre: 0, chainNodes: 10_000 });
    if (layout === undefined) throw new Error('no layout');
    expect(layout.nodes).toHaveLength(10_000);
    expect(layout.height).toBe(40);
    for (let i = 1; i < layout.nodes.length; i++) {
      const a = layout.nodes[i - 1];
      const b = layout.nodes[i];
      expect(b?.y).toBe(0);
      // The ranks of dagre's layout: 44 apart, with a route point half-way.
      expect(b?.x).toBeCloseTo((a?.x ?? 0) + (a?.width ?? 0) + 44, 6);
    }
    layout.edges.forEach((route, k) => {
      const e = graph.packages[0]?.channels[0]?.edges[k];
      const from = layout.nodes[e?.from ?? -1];
      const to = layout.nodes[e?.to ?? -1];
      expect(route[0]?.x).toBeCloseTo((from?.x ?? NaN) + (from?.width ?? NaN), 6);
      expect(route[route.length - 1]?.x).toBeCloseTo(to?.x ?? NaN, 6);
      for (const p of route) expect(p.y).toBe(20);
    });
  });

  it('SVG: well-formed, one lane with a node per bundle and every replaces edge drawn', () => {
    const svg = writeSvg(graph, layouts);
    const drawn = drawnChannels(parseSvg(svg));
    expect(drawn.map((d) => `${d.package}/${d.channel}`)).toEqual(['operator-000/stable']);
    const [stable] = drawn;
    expect(new Set(stable?.nodes.map((n) => n.name))).toEqual(
      new Set(cfg.channels[0]?.entries?.map((e) => e.name)),
    );
    const edges = new Set(stable?.edges);
    expect(edges.size).toBe(9_999);
    for (let i = 1; i < 10_000; i++)
      expect(
        edges.has(`replaces ${bundleName('operator-000', i - 1)} -> ${bundleName('operator-000', i)}`),
      ).toBe(true);
    // Only the newest is a head.
    expect(stable?.nodes.filter((n) => n.classes.includes('head')).map((n) => n.name)).toEqual([
      bundleName('operator-000', 9_999),
    ]);
    expect(count(svg, / d="M[^"]*"/g)).toBeGreaterThanOrEqual(9_999);
  });

  it('HTML: every node and edge in the markup and in the data the page script reads', () => {
    const html = writeHtml(graph, layouts);
    expect(count(html, /<g class="node[^"]*" id="/g)).toBe(10_000);
    expect(count(html, /<path class="edge replaces" id="p0c0e\d+"/g)).toBe(9_999);
    const json = /<script type="application\/json" id="graph-data">(.*)<\/script>/.exec(html)?.[1] ?? '';
    const data = JSON.parse(json) as { channels: { nodes: unknown[]; edges: number[][] }[] }[];
    expect(data[0]?.channels[0]?.nodes).toHaveLength(10_000);
    expect(data[0]?.channels[0]?.edges).toHaveLength(9_999);
  });

  it('Mermaid: every edge', () => {
    const text = writeMermaid(cfg);
    expect(count(text, /-- replace -->/g)).toBe(9_999);
  });
});

describe('growth with the size of a lane', () => {
  it('a chain with skips and skipRanges: work and output ten times larger for ten times the bundles', () => {
    const g1 = buildUpgradeGraph(catalog(1, 1_000, 'skips'));
    const g10 = buildUpgradeGraph(catalog(1, 10_000, 'skips'));
    const small = newLayoutStats();
    const large = newLayoutStats();
    const l1 = layoutGraph(g1, small);
    const l10 = layoutGraph(g10, large);
    expect(small).toEqual({ dagreRuns: 0, dagreNodes: 0, largestDagre: 0, chainNodes: 1_000 });
    expect(large).toEqual({ dagreRuns: 0, dagreNodes: 0, largestDagre: 0, chainNodes: 10_000 });
    const [a, b] = [l1[0]?.[0], l10[0]?.[0]];
    if (a === undefined || b === undefined) throw new Error('no layout');
    // As tall at 10,000 bundles as at 1,000: the lane does not drift.
    expect(b.height).toBe(a.height);
    expect(b.width / a.width).toBeGreaterThan(9.5);
    expect(b.width / a.width).toBeLessThan(11);
    expectNoOverlap(b);
    const svgRatio = writeSvg(g10, l10).length / writeSvg(g1, l1).length;
    expect(svgRatio).toBeGreaterThan(9);
    expect(svgRatio).toBeLessThan(11.5);
  });

  it('long skips run under the bundles they pass, not through them', () => {
    const ch = lane(catalog(1, 1_000, 'long-skips'));
    const l = layoutChannel(ch);
    expectNoOverlap(l);
    expectEdgesAroundNodes(ch, l);
  });

  it('skipped bundles hang under the line, which runs straight through the replaces chain', () => {
    const ch = lane(catalog(1, 400, 'skips'));
    const l = layoutChannel(ch);
    ch.nodes.forEach((n, i) => {
      const skipped = i > 1 && (i + 1) % 5 === 0 && i + 1 < ch.nodes.length;
      expect(l.nodes[i]?.y, n.name).toBe((l.nodes[0]?.y ?? NaN) + (skipped ? 54 : 0));
    });
  });
});

describe('the linear layout against dagre', () => {
  it('draws a chain exactly as dagre does', () => {
    const ch = lane(catalog(1, 40));
    const line = layoutChannel(ch, undefined, 'line');
    const dagre = layoutChannel(ch, undefined, 'dagre');
    expect(line.width).toBeCloseTo(dagre.width, 6);
    expect(line.height).toBeCloseTo(dagre.height, 6);
    line.nodes.forEach((b, i) => {
      expect(b.x).toBeCloseTo(dagre.nodes[i]?.x ?? NaN, 6);
      expect(b.y).toBeCloseTo(dagre.nodes[i]?.y ?? NaN, 6);
    });
    line.edges.forEach((route, i) => {
      expect(route).toHaveLength(dagre.edges[i]?.length ?? -1);
      route.forEach((p, k) => {
        expect(p.x).toBeCloseTo(dagre.edges[i]?.[k]?.x ?? NaN, 6);
        expect(p.y).toBeCloseTo(dagre.edges[i]?.[k]?.y ?? NaN, 6);
      });
    });
    // A chain of any length takes the linear layout; a small lane of another shape takes dagre.
    const stats = newLayoutStats();
    layoutChannel(ch, stats);
    layoutChannel(lane(catalog(1, 40, 'skips')), stats);
    expect(stats).toEqual({ dagreRuns: 1, dagreNodes: 40, largestDagre: 40, chainNodes: 40 });
  });

  it('lays out large lanes of any shape: branches, a star, a cycle, a self-replacing bundle, loose parts', () => {
    const cfg = catalog(1, 600, 'skips');
    const entries = cfg.channels[0]?.entries ?? [];
    const add = (name: string, version: string, entry: Partial<ChannelEntry> = {}): void => {
      entries.push({ name, ...entry });
      cfg.bundles.push({
        schema: 'olm.bundle',
        package: 'operator-000',
        name,
        image: `registry.example.com/x:${version}`,
        properties: [{ type: 'olm.package', value: { packageName: 'operator-000', version } }],
      });
    };
    // 300 bundles all replacing the same one: a rank of 300 nodes.
    for (let i = 0; i < 300; i++)
      add(`star.v2.0.${i}`, `2.0.${i}`, { replaces: bundleName('operator-000', 100) });
    // A cycle of 200 and one of two, a bundle replacing itself, a bundle nothing links.
    for (let i = 0; i < 200; i++)
      add(`ring.v3.0.${i}`, `3.0.${i}`, { replaces: `ring.v3.0.${(i + 199) % 200}` });
    add('pair.v4.0.0', '4.0.0', { replaces: 'pair.v4.0.1' });
    add('pair.v4.0.1', '4.0.1', { replaces: 'pair.v4.0.0' });
    add('self.v5.0.0', '5.0.0', { replaces: 'self.v5.0.0' });
    add('alone.v6.0.0', '6.0.0');
    // A bundle off the middle of the chain that skips one the channel does not list.
    add('late.v7.0.0', '7.0.0', { replaces: bundleName('operator-000', 300), skips: ['gone.v0.0.2'] });

    const ch = lane(cfg);
    const stats = newLayoutStats();
    const l = layoutChannel(ch, stats);
    expect(l.nodes).toHaveLength(ch.nodes.length);
    expectNoOverlap(l);
    // Only the small loose parts go to dagre.
    expect(stats.largestDagre).toBeLessThanOrEqual(DAGRE_MAX_NODES);
    expect(stats.dagreNodes + stats.chainNodes).toBe(ch.nodes.length);
    expect(stats.dagreNodes).toBeLessThan(20);
    l.edges.forEach((route, i) => {
      expect(route.length, `edge ${i}`).toBeGreaterThanOrEqual(2);
      for (const p of route) expect(Number.isFinite(p.x) && Number.isFinite(p.y)).toBe(true);
    });
    const svg = writeSvg(buildUpgradeGraph(cfg));
    const drawn = drawnChannels(parseSvg(svg))[0];
    expect(drawn?.nodes).toHaveLength(ch.nodes.length);
    expect(drawn?.edges).toHaveLength(ch.edges.length);
  });
});

describe('many small lanes', () => {
  it('past DAGRE_BUDGET_NODES bundles that would go to dagre, every lane takes the linear layout', () => {
    // 60 lanes of 100 bundles with skips: each alone would go to dagre (about 0.1 s each).
    const per = 100;
    const lanes = Math.floor(DAGRE_BUDGET_NODES / per) + 10;
    const graph = buildUpgradeGraph(catalog(lanes, per, 'skips'));
    const stats = newLayoutStats();
    const layouts = layoutGraph(graph, stats);
    expect(stats).toEqual({ dagreRuns: 0, dagreNodes: 0, largestDagre: 0, chainNodes: lanes * per });
    // The same lane alone goes to dagre, and both layouts draw every node and edge.
    const one = graph.packages[0]?.channels[0];
    if (one === undefined) throw new Error('no lane');
    const alone = newLayoutStats();
    layoutGraph({ packages: [{ ...(graph.packages[0] as GraphPackage), channels: [one] }] }, alone);
    expect(alone).toEqual({ dagreRuns: 1, dagreNodes: per, largestDagre: per, chainNodes: 0 });
    for (const l of layouts.flat()) {
      expect(l.nodes).toHaveLength(per);
      expectNoOverlap(l);
    }
    expectEdgesAroundNodes(one, layouts[0]?.[0] as ChannelLayout);
  });
});

describe('a catalog of 100,000 bundles: 100 packages of 1,000', () => {
  it('SVG and HTML: every package, lane, node and edge', () => {
    const graph = buildUpgradeGraph(catalog(100, 1_000));
    const stats = newLayoutStats();
    const layouts = layoutGraph(graph, stats);
    expect(stats.chainNodes).toBe(100_000);
    expect(stats.dagreRuns).toBe(0);
    let svg = writeSvg(graph, layouts);
    expect(svg.endsWith('</svg>\n')).toBe(true);
    expect(count(svg, /<g class="package" /g)).toBe(100);
    expect(count(svg, /<g class="channel" /g)).toBe(100);
    expect(count(svg, /<g class="node[^"]*" id="/g)).toBe(100_000);
    expect(count(svg, /<path class="edge replaces" id="/g)).toBe(99_900);
    svg = '';
    const html = writeHtml(graph, layouts);
    expect(html.endsWith('</html>\n')).toBe(true);
    expect(count(html, /<section class="lane/g)).toBe(100);
    expect(count(html, /<g class="node[^"]*" id="/g)).toBe(100_000);
    expect(count(html, /<path class="edge replaces" id="/g)).toBe(99_900);
  });
});
