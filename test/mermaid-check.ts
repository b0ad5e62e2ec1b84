/**
 * A syntax checker for the subset of Mermaid flowchart syntax that opm's graph writer emits:
 * `graph LR`, comments, `classDef`, nested `subgraph … end`, nodes `id["label"]`, labelled links
 * `id["a"]-- text --> id["b"]`, `style`, `class` and `linkStyle`. It follows Mermaid's lexical rules
 * for node ids (a `-` may not be followed by `-`, `>` or `.`, since that starts a link) and for quoted
 * labels (no `"` inside, Mermaid has no escapes), and checks what Mermaid would reject later: unbalanced
 * subgraphs, classes that were never defined, link numbers that do not exist, a node given two labels.
 */

export interface MermaidEdge {
  /** 0-based link number, as `linkStyle` counts. */
  index: number;
  from: string;
  to: string;
  text: string;
  /** Ids of the enclosing subgraphs, outermost first. */
  scope: string[];
}

export interface MermaidDoc {
  direction: string;
  nodes: Map<string, string>;
  edges: MermaidEdge[];
  subgraphs: { id: string; label: string }[];
  classDefs: Set<string>;
  classes: Map<string, string[]>;
  linkStyles: number[];
  styles: string[];
}

export class MermaidSyntaxError extends Error {}

const ID = String.raw`(?:[A-Za-z0-9_.+]|-(?![->.]))+`;
const LABEL = String.raw`"[^"\n]*"`;
const NODE = String.raw`(${ID})(?:\[(${LABEL})\])?`;
const LINK_TEXT = String.raw`(?:${LABEL}|[A-Za-z0-9_ ]+?)`;

const RE = {
  header: /^(?:graph|flowchart) (LR|RL|TB|TD|BT)$/,
  comment: /^%%/,
  classDef: new RegExp(String.raw`^classDef (${ID}) (\S+)$`),
  subgraph: new RegExp(String.raw`^subgraph (?:(${ID})(?:\[(${LABEL})\])?|(${LABEL}))$`),
  end: /^end$/,
  edge: new RegExp(String.raw`^${NODE}\s*-- (${LINK_TEXT}) -->\s*${NODE}$`),
  node: new RegExp(String.raw`^${NODE}$`),
  style: new RegExp(String.raw`^style (${ID}) (\S+)$`),
  klass: new RegExp(String.raw`^class (${ID}(?:,${ID})*) (${ID})$`),
  linkStyle: /^linkStyle ([0-9]+(?:,[0-9]+)*) (\S+);?$/,
};

function unquote(label: string): string {
  return label.slice(1, -1);
}

/** Parse `text`; throws MermaidSyntaxError naming the line on the first problem. */
export function parseMermaid(text: string): MermaidDoc {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const doc: MermaidDoc = {
    direction: '',
    nodes: new Map(),
    edges: [],
    subgraphs: [],
    classDefs: new Set(),
    classes: new Map(),
    linkStyles: [],
    styles: [],
  };
  const scope: string[] = [];
  let anonymous = 0;
  const fail = (n: number, why: string): never => {
    throw new MermaidSyntaxError(`line ${n + 1}: ${why}: ${JSON.stringify(lines[n])}`);
  };
  const defineNode = (n: number, id: string | undefined, label: string | undefined): string => {
    if (id === undefined) return fail(n, 'missing node id');
    const known = doc.nodes.get(id);
    const text = label === undefined ? undefined : unquote(label);
    if (known === undefined) doc.nodes.set(id, text ?? id);
    else if (text !== undefined && known !== text) fail(n, `node ${id} relabelled`);
    return id;
  };

  lines.forEach((raw, n) => {
    const line = raw.trim();
    if (n === 0) {
      const m = RE.header.exec(line);
      if (m === null) fail(n, 'expected a graph header');
      doc.direction = m?.[1] ?? '';
      return;
    }
    if (line === '' || RE.comment.test(line)) return;
    let m: RegExpExecArray | null;
    if ((m = RE.classDef.exec(line)) !== null) {
      doc.classDefs.add(m[1] ?? '');
    } else if ((m = RE.subgraph.exec(line)) !== null) {
      const id = m[1] ?? `subgraph-${anonymous++}`;
      const label = m[2] ?? m[3];
      doc.subgraphs.push({ id, label: label === undefined ? id : unquote(label) });
      scope.push(id);
    } else if (RE.end.test(line)) {
      if (scope.length === 0) fail(n, '`end` without `subgraph`');
      scope.pop();
    } else if ((m = RE.edge.exec(line)) !== null) {
      const from = defineNode(n, m[1], m[2]);
      const to = defineNode(n, m[4], m[5]);
      const t = m[3] ?? '';
      doc.edges.push({
        index: doc.edges.length,
        from,
        to,
        text: t.startsWith('"') ? unquote(t) : t,
        scope: [...scope],
      });
    } else if ((m = RE.node.exec(line)) !== null) {
      defineNode(n, m[1], m[2]);
    } else if ((m = RE.style.exec(line)) !== null) {
      doc.styles.push(m[1] ?? '');
    } else if ((m = RE.klass.exec(line)) !== null) {
      const name = m[2] ?? '';
      if (!doc.classDefs.has(name)) fail(n, `class ${name} is not defined`);
      const ids = (m[1] ?? '').split(',');
      for (const id of ids) if (!doc.nodes.has(id)) fail(n, `class applied to unknown node ${id}`);
      doc.classes.set(name, ids);
    } else if ((m = RE.linkStyle.exec(line)) !== null) {
      for (const s of (m[1] ?? '').split(',')) {
        const i = Number(s);
        if (i >= doc.edges.length) fail(n, `link ${i} does not exist`);
        doc.linkStyles.push(i);
      }
    } else {
      fail(n, 'not a statement of the supported subset');
    }
  });
  if (scope.length > 0) throw new MermaidSyntaxError(`unclosed subgraph ${scope[scope.length - 1]}`);
  return doc;
}
