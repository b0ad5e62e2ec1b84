/**
 * The checks every configuration file's text goes through once read (util/read-bounded.ts), before
 * anything recursive walks it: a nesting depth limit, found by a scan of the text (the parsers
 * recurse, and a few kilobytes of `[[[[…` would otherwise end in a stack overflow whose message
 * says nothing useful), and go-yaml's alias rule (alias-limit.ts) for documents read with the
 * `yaml` library, which keeps aliases as references (a few hundred bytes can stand for gigabytes).
 * Catalog files have their own, equal, checks (declcfg/parse.ts, yaml11.ts).
 */
import {
  isAlias,
  isMap,
  isPair,
  isSeq,
  LineCounter,
  parseDocument,
  type Document,
  type DocumentOptions,
  type Node as YamlNode,
  type ParseOptions,
  type SchemaOptions,
} from 'yaml';
import { OpmError } from '../errors.js';
import { aliasingExcessive } from './alias-limit.js';

/**
 * The deepest nesting a configuration file may have. Configuration files nest a few levels
 * (templates holding whole blobs a few tens); the `yaml` library's parser runs out of stack a few
 * hundred levels down.
 */
export const MAX_CONFIG_DEPTH = 100;

function isBlank(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\r' || c === undefined;
}

// A block line that opens a collection: a `key:` (plain or quoted) or, handled apart, a `- ` entry.
const KEY_LINE = /^(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"[\]{},&*!|>%@`][^#]*?)[ \t]*:(?:[ \t]|$)/;

// A line whose value is a block scalar (`key: |`, `- >-`, `|2`), comment allowed after it.
const BLOCK_SCALAR = /(?:^|[\s:-])[|>][1-9+-]{0,2}[ \t]*(?:#.*)?$/;

/**
 * The 1-based line where `text` (YAML or JSON) first nests deeper than `max` levels, or undefined.
 * Levels are counted as the parsers see them, closely enough: an open `[` or `{` (outside quotes
 * and comments), and block collections by indentation (`- - x` nests twice). Block scalars and
 * quoted text are skipped.
 */
export function lineTooDeep(text: string, max = MAX_CONFIG_DEPTH): number | undefined {
  // Open block collections: the column of each, and whether it is a mapping.
  const indents: number[] = [];
  const isMapping: boolean[] = [];
  let flow = 0;
  let quote: '"' | "'" | undefined;
  let blockScalarParent = -1;
  let line = 0;
  for (let start = 0; start < text.length;) {
    line++;
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const next = end + 1;
    let i = start;
    while (i < end && text[i] === ' ') i++;
    const indent = i - start;
    const empty = i === end || text[i] === '\r' || (text[i] === '#' && quote === undefined);
    if (blockScalarParent >= 0) {
      if (empty || indent > blockScalarParent) {
        start = next;
        continue;
      }
      blockScalarParent = -1;
    }
    if (empty && quote === undefined) {
      start = next;
      continue;
    }
    if (flow === 0 && quote === undefined) {
      // A block line: it closes the collections indented as deep or deeper, and opens its own
      // when it is a `key:` or a `- ` entry, one more for each `- ` that starts an entry inside an
      // entry.
      // (A sequence may stand at its parent key's column: `key:` then `- x`.)
      const entry = text[i] === '-' && isBlank(text[i + 1]);
      for (;;) {
        const top = indents[indents.length - 1];
        if (top === undefined || top < indent || (top === indent && entry && isMapping[isMapping.length - 1]))
          break;
        indents.pop();
        isMapping.pop();
      }
      let opens = false;
      while (text[i] === '-' && isBlank(text[i + 1])) {
        indents.push(i - start);
        isMapping.push(false);
        opens = true;
        i++;
        while (i < end && text[i] === ' ') i++;
      }
      const content = text.slice(i, end);
      if (KEY_LINE.test(content) && (!opens || i - start > (indents[indents.length - 1] as number))) {
        indents.push(i - start);
        isMapping.push(true);
      }
      if (indents.length > max) return line;
      if (BLOCK_SCALAR.test(content) && !content.includes('"') && !content.includes("'")) {
        blockScalarParent = indent;
      }
    }
    // Whether a value may start here (a quote or a bracket opens one only there, not inside a
    // plain scalar such as `it's [beta]`), and whether an indicator (`:`, `-`, `?`, `,`) came
    // last, so that the spaces after it still allow one.
    let canStart = true;
    let afterIndicator = true;
    for (; i < end; i++) {
      const c = text[i] as string;
      if (quote === '"') {
        if (c === '\\') i++;
        else if (c === '"') quote = undefined;
        continue;
      }
      if (quote === "'") {
        if (c === "'") {
          if (text[i + 1] === "'") i++;
          else quote = undefined;
        }
        continue;
      }
      if (c === '#' && (i === start || isBlank(text[i - 1]))) break;
      if ((c === '"' || c === "'") && canStart) quote = c;
      else if ((c === '[' || c === '{') && canStart) {
        flow++;
        if (indents.length + flow > max) return line;
        afterIndicator = true;
        continue;
      } else if ((c === ']' || c === '}') && flow > 0) flow--;
      if (c === ' ' || c === '\t') canStart = afterIndicator;
      else {
        afterIndicator = c === ':' || c === ',' || ((c === '-' || c === '?') && canStart);
        canStart = afterIndicator && flow > 0;
      }
    }
    start = next;
  }
  return undefined;
}

/** Throws an OpmError naming `file` and the line when `text` nests deeper than MAX_CONFIG_DEPTH. */
export function checkConfigNesting(text: string, file: string): void {
  const line = lineTooDeep(text);
  if (line !== undefined) {
    throw new OpmError(`nested more than ${MAX_CONFIG_DEPTH} levels deep`, {
      at: { file, line },
      hint: 'a configuration file nests a few levels; this one cannot be what was meant',
    });
  }
}

/**
 * The number of nodes `root` has once its aliases are expanded, and the number written, counted as
 * alias-limit.ts counts a js-yaml value (collections once each, scalars at each place they stand),
 * walking each collection once without recursion. Infinity when an alias refers to a collection
 * that holds it.
 */
function expandedSize(
  doc: Document,
  root: YamlNode,
): { total: number; distinct: number; firstAlias: number | undefined } {
  const isCollection = (n: unknown): n is YamlNode => isMap(n) || isSeq(n);
  let firstAlias: number | undefined;
  if (!isCollection(root)) return { total: 1, distinct: 1, firstAlias };
  const resolved = (n: unknown): unknown => {
    if (!isAlias(n)) return n;
    const at = n.range?.[0];
    if (at !== undefined && (firstAlias === undefined || at < firstAlias)) firstAlias = at;
    return n.resolve(doc);
  };
  const children = (n: YamlNode): unknown[] =>
    isMap(n)
      ? n.items.map((p) => resolved(p.value))
      : isSeq(n)
        ? (n.items as unknown[]).map((v) => resolved(isPair(v) ? v.value : v))
        : [];
  const size = new Map<YamlNode, number>();
  const open = new Set<YamlNode>();
  let distinct = 0;
  const stack: { node: YamlNode; done: boolean }[] = [{ node: root, done: false }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { node: YamlNode; done: boolean };
    if (size.has(top.node)) {
      stack.pop();
      continue;
    }
    if (!top.done) {
      top.done = true;
      open.add(top.node);
      for (const c of children(top.node)) {
        if (!isCollection(c) || size.has(c)) continue;
        if (open.has(c)) return { total: Infinity, distinct, firstAlias };
        stack.push({ node: c, done: false });
      }
      continue;
    }
    stack.pop();
    open.delete(top.node);
    distinct++;
    let total = 1;
    for (const c of children(top.node)) {
      if (isCollection(c)) total += size.get(c) ?? 1;
      else if (c !== null && c !== undefined) {
        total++;
        distinct++;
      }
    }
    size.set(top.node, total);
  }
  return { total: size.get(root) ?? 1, distinct, firstAlias };
}

export interface ConfigDocument {
  doc: Document.Parsed;
  counter: LineCounter;
}

/**
 * Parse a configuration file's text with the `yaml` library, after the nesting check, and apply
 * go-yaml's alias rule to it. The first parse error, a nesting too deep and excessive aliasing
 * are OpmErrors naming `file` and the line.
 */
export function parseConfigDocument(
  text: string,
  file: string,
  options: ParseOptions & DocumentOptions & SchemaOptions = {},
): ConfigDocument {
  checkConfigNesting(text, file);
  const counter = new LineCounter();
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, { ...options, lineCounter: counter });
  } catch (err) {
    if (err instanceof RangeError) throw new OpmError('nested too deeply to read', { at: { file } });
    throw err;
  }
  const first = doc.errors[0];
  if (first !== undefined) {
    const line = counter.linePos(first.pos[0]).line;
    if (/Maximum call stack size exceeded/.test(first.message)) {
      throw new OpmError('nested too deeply to read', { at: { file, line } });
    }
    throw new OpmError(first.message.split('\n')[0] ?? first.message, { at: { file, line } });
  }
  const root = doc.contents as YamlNode | null;
  if (root !== null && text.includes('*')) {
    const { total, distinct, firstAlias } = expandedSize(doc, root);
    if (!Number.isFinite(total) || aliasingExcessive(total, distinct)) {
      // At the first alias: where the copying starts.
      throw new OpmError('document contains excessive aliasing', {
        at: { file, line: counter.linePos(firstAlias ?? root.range?.[0] ?? 0).line },
        hint: 'an alias stands for a copy of what its anchor holds; this many copies is not a configuration',
      });
    }
  }
  return { doc, counter };
}
