/**
 * Decoding of the files of a bundle directory the way opm reads them: a file is JSON when its
 * first non-blank character is `{`, else a stream of YAML documents split on `---` lines, of
 * which only the first document counts.
 */
import { parseYamlDocument } from '../yaml/yaml11.js';
import { splitYamlDocuments, type YamlDocumentText } from '../yaml/split-documents.js';
import type { BlockFacts } from '../yaml/block-reader.js';
import { vouchNativeJson, type NativeJson } from '../go/json-native.js';
import type { JsonValue } from '../go/json-value.js';
import { scanJson, nodeValue, type JsonNode } from '../go/json-scan.js';

export interface FirstDocument {
  /** The decoded first document; undefined when it holds nothing (blank or comments only). */
  value: unknown;
  /** Whether more non-empty documents follow (opm ignores them). */
  moreDocuments: boolean;
  /** The first document holds only blank lines or comments while later ones have content: opm reads nothing. */
  blankFirstDocument?: boolean;
  /** `value` marked ready for JSON.stringify, when the YAML reader found it so (see parseYaml). */
  native?: NativeJson;
  /** For JSON files, the parsed first value with text positions (for raw property values). */
  json?: { text: string; node: JsonNode };
}

export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}

export interface DecodeFileOptions {
  /**
   * Called for a mapping key written twice in a YAML document (1-based line within the file). The
   * last value is kept, as opm's reader does; without this option a duplicate key is a DecodeError.
   */
  onDuplicateKey?: (line: number, key: string | undefined) => void;
}

/** Decode the first document of a YAML or JSON file. Throws DecodeError when it does not parse. */
export function decodeFirstDocument(text: string, opts: DecodeFileOptions = {}): FirstDocument {
  const body = text.startsWith('\ufeff') ? text.slice(1) : text;
  const firstNonBlank = /\S/.exec(body);
  if (firstNonBlank !== null && firstNonBlank[0] === '{') {
    let node: JsonNode;
    try {
      node = scanJson(body, firstNonBlank.index);
    } catch (err) {
      throw new DecodeError(err instanceof Error ? err.message : String(err));
    }
    const rest = body.slice(node.end).trim();
    return { value: nodeValue(node), moreDocuments: rest !== '', json: { text: body, node } };
  }
  let docs: YamlDocumentText[];
  try {
    docs = splitYamlDocuments(body);
  } catch (err) {
    throw new DecodeError(err instanceof Error ? err.message : String(err));
  }
  const first = docs[0];
  if (first === undefined || first.index !== 0) {
    // The first document is blank (or there is none): opm reads nothing from the file.
    const more = docs.length > 0;
    return { value: undefined, moreDocuments: more, blankFirstDocument: more };
  }
  const { value, native } = parseYamlMarked(first.text, opts, first.line);
  return { value, moreDocuments: docs.length > 1, ...(native === undefined ? {} : { native }) };
}

/** Parse one YAML document with opm's YAML 1.1 scalar rules (timestamps stay strings). */
export function parseYaml(doc: string, opts: DecodeFileOptions = {}, firstLine = 1): unknown {
  return parseYamlMarked(doc, opts, firstLine).value;
}

/**
 * parseYaml, with a mapping or list whose keys came in Go's order (and no -0) also marked ready for
 * json.Marshal (go/json-native.ts NativeJson).
 */
function parseYamlMarked(
  doc: string,
  opts: DecodeFileOptions,
  firstLine: number,
): { value: unknown; native?: NativeJson } {
  const onDuplicateKey = opts.onDuplicateKey;
  const facts: BlockFacts = { stringifiesAsGo: false, longestString: 0 };
  try {
    const value =
      parseYamlDocument(doc, firstLine, {
        facts,
        ...(onDuplicateKey === undefined ? {} : { onDuplicateKey: (line, key) => onDuplicateKey(line, key) }),
      }) ?? null;
    if (facts.stringifiesAsGo && typeof value === 'object' && value !== null)
      return { value, native: vouchNativeJson(value as JsonValue) };
    return { value };
  } catch (err) {
    throw new DecodeError(err instanceof Error ? err.message : String(err));
  }
}
