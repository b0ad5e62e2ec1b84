/** Reads a drawn graph back from SVG text with an XML parser: its packages, lanes, nodes and edges. */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

export interface DrawnChannel {
  package: string;
  channel: string;
  nodes: { name: string; classes: string[]; title: string }[];
  /** `kind from -> to`, sorted. */
  edges: string[];
}

type XmlNode = Record<string, unknown> & { ':@'?: Record<string, string> };

function tagOf(n: XmlNode): string {
  return Object.keys(n).find((k) => k !== ':@') ?? '';
}

function children(n: XmlNode): XmlNode[] {
  const v = n[tagOf(n)];
  return Array.isArray(v) ? (v as XmlNode[]) : [];
}

function attr(n: XmlNode, name: string): string | undefined {
  return n[':@']?.[`@${name}`];
}

function textOf(n: XmlNode): string {
  return children(n)
    .map((c) => (tagOf(c) === '#text' ? String(c['#text']) : textOf(c)))
    .join('');
}

function* walk(n: XmlNode): Generator<XmlNode> {
  yield n;
  for (const c of children(n)) yield* walk(c);
}

/** Throws unless `svg` is well-formed XML whose root is an `svg` element. */
export function parseSvg(svg: string): XmlNode {
  const valid = XMLValidator.validate(svg);
  if (valid !== true) throw new Error(`not well-formed XML: ${valid.err.msg} at line ${valid.err.line}`);
  const doc = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    processEntities: true,
    htmlEntities: false,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
  }).parse(svg) as XmlNode[];
  const root = doc.find((n) => tagOf(n) === 'svg');
  if (root === undefined) throw new Error('no svg root element');
  return root;
}

export function drawnChannels(root: XmlNode): DrawnChannel[] {
  const out: DrawnChannel[] = [];
  for (const pkg of walk(root)) {
    if (tagOf(pkg) !== 'g' || attr(pkg, 'class') !== 'package') continue;
    for (const ch of walk(pkg)) {
      if (tagOf(ch) !== 'g' || attr(ch, 'class') !== 'channel') continue;
      const drawn: DrawnChannel = {
        package: attr(pkg, 'data-package') ?? '',
        channel: attr(ch, 'data-channel') ?? '',
        nodes: [],
        edges: [],
      };
      for (const n of walk(ch)) {
        const cls = (attr(n, 'class') ?? '').split(' ');
        if (tagOf(n) === 'g' && cls[0] === 'node') {
          const title = children(n).find((c) => tagOf(c) === 'title');
          drawn.nodes.push({
            name: attr(n, 'data-bundle') ?? '',
            classes: cls,
            title: title === undefined ? '' : textOf(title),
          });
        }
        if (tagOf(n) === 'path' && cls[0] === 'edge') {
          drawn.edges.push(
            `${attr(n, 'data-kind') ?? ''} ${attr(n, 'data-from') ?? ''} -> ${attr(n, 'data-to') ?? ''}`,
          );
        }
      }
      drawn.edges.sort();
      out.push(drawn);
    }
  }
  return out;
}
