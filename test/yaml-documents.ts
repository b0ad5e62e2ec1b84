import type { JsonValue } from '../src/go/json-value.js';
import { parseYamlDocument } from '../src/yaml/yaml11.js';
import { splitYamlDocuments } from '../src/yaml/split-documents.js';

/** A parsed document with the line it starts on. */
export interface YamlDocument {
  value: JsonValue;
  line: number;
}

/** Every document of a YAML stream, parsed as the catalog reader parses one. Throws YamlError. */
export function parseYamlDocuments(text: string): YamlDocument[] {
  const out: YamlDocument[] = [];
  for (const d of splitYamlDocuments(text)) {
    const value = parseYamlDocument(d.text, d.line);
    if (value !== undefined) out.push({ value, line: d.line });
  }
  return out;
}
