/**
 * Reading a template file: the first document of a YAML or JSON stream (opm reads only that one),
 * decoded with opm's YAML 1.1 rules, plus a way to find the line of any node in it so errors can
 * name the template entry at fault.
 */
import { LineCounter, isMap, isSeq, parseDocument, type Node as YamlNode } from 'yaml';
import { OpmError } from '../errors.js';
import type { JsonValue } from '../go/json-value.js';
import { checkConfigNesting } from '../yaml/config-text.js';
import { duplicateKeyMessage, parseYamlDocument, YamlError } from '../yaml/yaml11.js';
import { splitYamlDocuments } from '../yaml/split-documents.js';

/** A path into a decoded document: object keys (matched case-insensitively) and array indexes. */
export type NodePath = (string | number)[];

export interface TemplateDocument {
  /** The decoded first document. */
  value: JsonValue;
  /** Name of the input for messages (a path, or `<stdin>`). */
  label: string;
  /** 1-based line where the document starts. */
  line: number;
  /** Line of the node at `path`, or the document's line when it cannot be found. */
  lineOf(path: NodePath): number;
}

const LEADING_SPACE = /^[\s\uFEFF]*/;

/** End offset of the first JSON value starting at `start` (brace/bracket matching outside strings). */
function firstJsonValueEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

function lineAt(text: string, offset: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** A locator over `text` (one document) whose first line is line `firstLine` of the input. */
function makeLocator(text: string, firstLine: number): (path: NodePath) => number {
  let root: YamlNode | null = null;
  const counter = new LineCounter();
  try {
    const doc = parseDocument(text, { version: '1.1', lineCounter: counter, uniqueKeys: false });
    root = doc.errors.length === 0 ? (doc.contents as YamlNode | null) : null;
  } catch {
    root = null;
  }
  return (path) => {
    let node: unknown = root;
    let best = root?.range?.[0];
    for (const step of path) {
      if (typeof step === 'number' && isSeq(node)) node = node.items[step];
      else if (typeof step === 'string' && isMap(node)) {
        const want = step.toLowerCase();
        const pair = node.items.find((p) => {
          const k: unknown = p.key;
          const kv = typeof k === 'object' && k !== null && 'value' in k ? k.value : k;
          return String(kv).toLowerCase() === want;
        });
        node = pair?.value;
        const keyNode: unknown = pair?.key;
        if (
          typeof keyNode === 'object' &&
          keyNode !== null &&
          'range' in keyNode &&
          Array.isArray(keyNode.range)
        ) {
          const r: unknown = keyNode.range[0];
          if (typeof r === 'number') best = r;
        }
      } else {
        node = undefined;
      }
      if (typeof node === 'object' && node !== null && 'range' in node && Array.isArray(node.range)) {
        const r: unknown = node.range[0];
        if (typeof r === 'number') best = r;
      }
      if (node === undefined) break;
    }
    return best === undefined ? firstLine : firstLine + counter.linePos(best).line - 1;
  };
}

/**
 * Decode the first document of a template. JSON when the first non-space character is `{`
 * (only the first JSON value is read), YAML otherwise. Errors name the input; `onWarning` hears of
 * keys written twice.
 */
export function readTemplateDocument(
  text: string,
  label: string,
  onWarning?: (message: string) => void,
): TemplateDocument {
  // Before either parser recurses into it; YAML aliases are held to go-yaml's rule by yaml11.ts.
  checkConfigNesting(text, label);
  const lead = LEADING_SPACE.exec(text)?.[0].length ?? 0;
  try {
    if (text[lead] === '{') {
      const end = firstJsonValueEnd(text, lead);
      const body = text.slice(lead, end);
      // JSON.parse yields only JSON values.
      const value: JsonValue = JSON.parse(body);
      const line = lineAt(text, lead);
      return { value, label, line, lineOf: makeLocator(body, line) };
    }
    const first = splitYamlDocuments(text)[0];
    if (first === undefined) return { value: null, label, line: 1, lineOf: () => 1 };
    // A key written twice keeps its last value, as in opm; said when the caller listens.
    const value =
      parseYamlDocument(first.text, first.line, {
        onDuplicateKey: (line, key) => onWarning?.(duplicateKeyMessage({ file: label, line }, key)),
      }) ?? null;
    return { value, label, line: first.line, lineOf: makeLocator(first.text, first.line) };
  } catch (e) {
    if (e instanceof SyntaxError) {
      throw new OpmError(`invalid JSON: ${e.message}`, { at: { file: label } });
    }
    if (e instanceof YamlError) {
      throw new OpmError(e.reason, { at: { file: label, line: e.line }, cause: e });
    }
    if (e instanceof OpmError) {
      throw new OpmError(e.message, { code: e.code, at: { file: label }, cause: e });
    }
    throw e;
  }
}

/** Case-insensitive lookup of a key, as Go's encoding/json matches struct fields. */
export function getFolded(obj: { [k: string]: JsonValue }, key: string): JsonValue | undefined {
  if (key in obj) return obj[key];
  const want = key.toLowerCase();
  for (const [k, v] of Object.entries(obj)) if (k.toLowerCase() === want) return v;
  return undefined;
}
