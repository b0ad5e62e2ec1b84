/**
 * A bound on alias expansion, as go-yaml v2 (opm's reader) has: js-yaml shares an aliased node
 * instead of copying it, so a few hundred bytes of nested aliases ("billion laughs") parse at once,
 * but every consumer that walks the value (validation, the JSON writer) would expand them into
 * gigabytes. go-yaml refuses a document once more than 100 nodes come from aliases, more than 1,000
 * nodes are decoded in all, and the aliased share exceeds 99% (up to 400,000 nodes), falling
 * linearly to 10% at 4,000,000 nodes; this applies the same rule to the expanded size.
 */

const LOW = 400_000;
const HIGH = 4_000_000;

function allowedAliasShare(total: number): number {
  if (total <= LOW) return 0.99;
  if (total >= HIGH) return 0.1;
  return 0.99 - (0.89 * (total - LOW)) / (HIGH - LOW);
}

/**
 * Whether a document of `total` nodes once expanded, `distinct` of them written (the rest coming
 * from aliases), breaks go-yaml's rule.
 */
export function aliasingExcessive(total: number, distinct: number): boolean {
  const aliased = total - distinct;
  return aliased > 100 && total > 1000 && aliased / total > allowedAliasShare(total);
}

/**
 * Whether `root` (as js-yaml built it, aliases shared by reference) expands into more aliased nodes
 * than go-yaml allows. Walks each distinct node once.
 */
export function excessiveAliasing(root: unknown): boolean {
  const expanded = new Map<object, number>();
  let distinct = 0;
  // Post-order walk without recursion: deep documents must not overflow the stack.
  const stack: { node: object; done: boolean }[] = [];
  const push = (v: unknown): void => {
    if (typeof v === 'object' && v !== null && !expanded.has(v)) stack.push({ node: v, done: false });
  };
  const childrenOf = (node: object): unknown[] => (Array.isArray(node) ? node : Object.values(node));
  push(root);
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { node: object; done: boolean };
    if (expanded.has(top.node)) {
      stack.pop();
      continue;
    }
    if (!top.done) {
      top.done = true;
      for (const c of childrenOf(top.node)) push(c);
      continue;
    }
    stack.pop();
    let size = 1;
    distinct++;
    for (const c of childrenOf(top.node)) {
      if (typeof c === 'object' && c !== null) size += expanded.get(c) ?? 1;
      else {
        size++;
        distinct++;
      }
    }
    expanded.set(top.node, size);
  }
  const total = typeof root === 'object' && root !== null ? (expanded.get(root) ?? 1) : 1;
  return aliasingExcessive(total, distinct);
}
