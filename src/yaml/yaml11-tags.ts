/**
 * Explicit tags as go-yaml v2 (opm's YAML reader) reads them, beyond the core ones:
 * - `!!binary` decodes standard base64 (line breaks ignored, padding required) into a string, each
 *   byte that is not valid UTF-8 becoming U+FFFD as Go's JSON encoder writes it;
 * - `!!timestamp` accepts the four layouts go-yaml parses and keeps the text as written;
 * - any other tag on a scalar (`!!set`, `!!omap`, `!!value`, `!!yaml`, `!local`, a verbatim tag)
 *   gives the scalar's text as a string, and any tag on a mapping or a sequence is ignored.
 */
import jsYaml from 'js-yaml';
import { decodeUtf8AsGo } from '../go/utf8.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function base64Text(data: unknown): string | undefined {
  if (data === null) return '';
  if (typeof data !== 'string') return undefined;
  // Go's decoder skips carriage returns and newlines, nothing else.
  const text = data.replace(/[\r\n]/g, '');
  return BASE64.test(text) ? text : undefined;
}

const binary = new jsYaml.Type('tag:yaml.org,2002:binary', {
  kind: 'scalar',
  resolve: (data: unknown): boolean => base64Text(data) !== undefined,
  construct: (data: unknown): string => decodeUtf8AsGo(Buffer.from(base64Text(data) ?? '', 'base64')),
});

// go-yaml v2's timestamp layouts: RFC 3339 with `T` or `t`, a space-separated date and time without
// zone, and a bare date; Go's digit fields take one or two digits, the year exactly four.
const TIMESTAMP =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?))?$/;

function isGoTimestamp(text: string): boolean {
  const m = TIMESTAMP.exec(text);
  if (m === null) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return false;
  const [h, min, s] = [Number(m[4] ?? m[7] ?? 0), Number(m[5] ?? m[8] ?? 0), Number(m[6] ?? m[9] ?? 0)];
  return h < 24 && min < 60 && s < 60;
}

const timestamp = new jsYaml.Type('tag:yaml.org,2002:timestamp', {
  kind: 'scalar',
  resolve: (data: unknown): boolean => typeof data === 'string' && isGoTimestamp(data),
  construct: (data: unknown): unknown => data,
});

// js-yaml tries tags of its own kind first, then these prefix matches: '' matches every tag left.
const anyScalar = new jsYaml.Type('', {
  kind: 'scalar',
  multi: true,
  construct: (data: unknown): string => (typeof data === 'string' ? data : ''),
});
const anySequence = new jsYaml.Type('', {
  kind: 'sequence',
  multi: true,
  construct: (data: unknown): unknown => data ?? [],
});
const anyMapping = new jsYaml.Type('', {
  kind: 'mapping',
  multi: true,
  construct: (data: unknown): unknown => data ?? {},
});

/** Explicit types to add to the YAML 1.1 schema, after its own. */
export const GO_YAML_TAG_TYPES: jsYaml.Type[] = [binary, timestamp, anyScalar, anySequence, anyMapping];
