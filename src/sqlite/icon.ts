/**
 * A package's icon as opm reads it from an index database: the first `spec.icon` of the CSV of the
 * default channel's head, its base64 decoded as Go's standard encoding does (tried again without
 * spaces, which some CSVs hold; a warning and no icon when that fails too).
 */
import { OpmError } from '../errors.js';
import type { Icon } from '../declcfg/types.js';
import { base64ErrorAt } from '../go/base64.js';
import { goQuote } from '../go/fmt.js';
import { goFieldFor } from '../go/json-decode.js';

function field(o: unknown, name: string): unknown {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return undefined;
  let out: unknown;
  for (const [k, v] of Object.entries(o)) if (goFieldFor(k, [name]) === name) out = v;
  return out;
}

/** The icon of a package whose default channel's head is `head`, with `csv` its CSV column. */
export function packageIcon(csv: string, head: string, warn?: (message: string) => void): Icon | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(csv);
  } catch (err) {
    const why =
      csv.trim() === '' ? 'unexpected end of JSON input' : err instanceof Error ? err.message : String(err);
    throw new OpmError(`populate package icons: unmarshal CSV json for bundle ${goQuote(head)}: ${why}`);
  }
  const icons = field(field(parsed, 'spec'), 'icon');
  if (!Array.isArray(icons) || icons.length === 0) return undefined;
  const first: unknown = icons[0];
  const data = field(first, 'base64data');
  const mediatype = field(first, 'mediatype');
  const text = typeof data === 'string' ? data : '';
  let decoded = text;
  if (base64ErrorAt(text) !== undefined) {
    decoded = text.replaceAll(' ', '');
    const at = base64ErrorAt(decoded);
    if (at !== undefined) {
      warn?.(`base64 decode CSV icon for bundle ${goQuote(head)}: illegal base64 data at input byte ${at}`);
      return undefined;
    }
  }
  const bytes = Buffer.from(decoded, 'base64');
  if (bytes.length === 0) return undefined;
  return { base64data: bytes.toString('base64'), mediatype: typeof mediatype === 'string' ? mediatype : '' };
}
