/**
 * The ranks of layoutLine's layered layout (layout.ts), in time linear in the size of a lane.
 */

/** An edge between node indexes. */
export interface RankedEdge {
  from: number;
  to: number;
}

/**
 * Ranks of a connected graph, left to right, in time linear in its size: edges closing a cycle
 * (found by a depth-first walk without recursion) are turned round, each node goes one rank after
 * its furthest predecessor, and a node nothing points to moves up to the rank before its nearest
 * successor, next to what it upgrades to.
 */
export function rankNodes(
  n: number,
  edges: readonly RankedEdge[],
): { rank: Int32Array; tail: Int32Array; head: Int32Array } {
  const out: number[][] = Array.from({ length: n }, () => []);
  edges.forEach((e, i) => {
    if (e.from !== e.to) out[e.from]?.push(i);
  });
  const tail = new Int32Array(edges.length);
  const head = new Int32Array(edges.length);
  edges.forEach((e, i) => {
    tail[i] = e.from;
    head[i] = e.to;
  });
  // 0 unseen, 1 on the walk's path, 2 done.
  const state = new Uint8Array(n);
  const next = new Int32Array(n);
  const stack: number[] = [];
  for (let root = 0; root < n; root++) {
    if (state[root] !== 0) continue;
    state[root] = 1;
    stack.push(root);
    while (stack.length > 0) {
      const v = stack[stack.length - 1] ?? 0;
      const list = out[v] ?? [];
      const k = next[v] ?? 0;
      if (k === list.length) {
        state[v] = 2;
        stack.pop();
        continue;
      }
      next[v] = k + 1;
      const ei = list[k] ?? 0;
      const w = edges[ei]?.to ?? 0;
      if (state[w] === 1) {
        tail[ei] = w;
        head[ei] = v;
      } else if (state[w] === 0) {
        state[w] = 1;
        stack.push(w);
      }
    }
  }
  const indeg = new Int32Array(n);
  const succ: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < edges.length; i++) {
    const a = tail[i] ?? 0;
    const b = head[i] ?? 0;
    if (a === b) continue;
    succ[a]?.push(b);
    indeg[b] = (indeg[b] ?? 0) + 1;
  }
  const order: number[] = [];
  const remaining = Int32Array.from(indeg);
  for (let v = 0; v < n; v++) if (remaining[v] === 0) order.push(v);
  const rank = new Int32Array(n);
  for (let q = 0; q < order.length; q++) {
    const v = order[q] ?? 0;
    for (const w of succ[v] ?? []) {
      rank[w] = Math.max(rank[w] ?? 0, (rank[v] ?? 0) + 1);
      remaining[w] = (remaining[w] ?? 0) - 1;
      if (remaining[w] === 0) order.push(w);
    }
  }
  for (let q = order.length - 1; q >= 0; q--) {
    const v = order[q] ?? 0;
    const s = succ[v] ?? [];
    if (indeg[v] !== 0 || s.length === 0) continue;
    let nearest = Infinity;
    for (const w of s) nearest = Math.min(nearest, rank[w] ?? 0);
    rank[v] = nearest - 1;
  }
  return { rank, tail, head };
}
