// The other layered layout measured against dagre: ELK's layered algorithm (elkjs), on the same
// channels with the same node sizes, so the two cost figures compare like with like.
import ElkModule, { type ElkExtendedEdge } from 'elkjs/lib/elk.bundled.js';
import { NODE_HEIGHT, layoutEdges, nodeWidth, normalize, type ChannelLayout } from '../src/graph/layout.js';
import type { GraphChannel } from '../src/graph/upgrade-graph.js';

// A CommonJS module whose constructor is also its `default` property.
const elk = new ElkModule.default();

export async function layoutChannelElk(ch: GraphChannel): Promise<ChannelLayout> {
  if (ch.nodes.length === 0) return { nodes: [], edges: [], arcs: [], width: 0, height: 0 };
  const out = await elk.layout({
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.spacing.nodeNode': '14',
      'elk.layered.spacing.nodeNodeBetweenLayers': '44',
      'elk.edgeRouting': 'SPLINES',
    },
    children: ch.nodes.map((n, i) => ({ id: `n${i}`, width: nodeWidth(n), height: NODE_HEIGHT })),
    // The same edges dagre is given (skipRange reduced to one per range), so the costs compare.
    edges: layoutEdges(ch).map((e) => ({ id: `e${e.key}`, sources: [`n${e.from}`], targets: [`n${e.to}`] })),
  });
  const nodes = (out.children ?? []).map((c) => ({
    x: c.x ?? 0,
    y: c.y ?? 0,
    width: c.width,
    height: c.height,
  }));
  // Only the cost is compared: the routes are kept for the bounding box and not drawn.
  const edges = (out.edges as ElkExtendedEdge[]).map((e) =>
    (e.sections ?? []).flatMap((s) => [s.startPoint, ...(s.bendPoints ?? []), s.endPoint]),
  );
  return normalize(nodes, edges);
}
