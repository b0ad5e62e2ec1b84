/**
 * What go-yaml v2 makes of opm's compact JSON when sigs.k8s.io/yaml's JSONToYAML re-reads it
 * (go-yaml v2 `resolve.go`): number text becomes an int, a uint or a float64; strings come back as
 * written, except that raw line-break characters inside them are folded as in any double-quoted
 * YAML scalar and some raw control characters are refused.
 */
import { formatGoFloatG, formatGoJsonNumber } from '../go/json-number.js';
import { OpmError } from '../errors.js';

/** A non-string scalar as the YAML emitter writes it (`12`, `1.5`, `1e+21`, `true`, `null`). */
export class YamlPlainScalar {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

const INT64_MIN = -(1n << 63n);
const UINT64_MAX = (1n << 64n) - 1n;
const JSON_INT = /^-?(?:0|[1-9][0-9]*)$/;

/**
 * The YAML text of a JSON number given as its text: an integer if it fits int64 or uint64, else a
 * float64 written by Go's FormatFloat 'g'. A number beyond float64 range fails Go's ParseFloat and
 * stays a string; `undefined` is returned then and the caller writes the text as a string.
 */
function yamlNumberText(jsonText: string): string | undefined {
  if (JSON_INT.test(jsonText)) {
    if (jsonText.length < 16) return String(Number(jsonText)); // normalises -0
    const b = BigInt(jsonText);
    if (b >= INT64_MIN && b <= UINT64_MAX) return b.toString();
  }
  const f = Number(jsonText);
  if (!Number.isFinite(f)) return undefined;
  return formatGoFloatG(f);
}

/** The YAML text of a JS number, as opm's JSON step writes it and the YAML step re-reads it. */
export function yamlTextOfNumber(x: number): string {
  if (!Number.isFinite(x)) formatGoJsonNumber(x); // throws Go's "unsupported value" error
  // Go's JSON text of a non-integer (or of an integer ≥ 1e21) has a fraction or an exponent: a float.
  if (!Number.isInteger(x) || Math.abs(x) >= 1e21) return formatGoFloatG(x);
  if (Math.abs(x) < 9007199254740992) return x === 0 ? '0' : String(x);
  // Plain decimal digits of a large integer: an int/uint if it fits 64 bits, else a float.
  return yamlNumberText(String(x)) ?? formatGoFloatG(x);
}

const CONTROL_CHARACTERS_MESSAGE = 'yaml: control characters are not allowed';

function controlCharacterError(): OpmError {
  return new OpmError(CONTROL_CHARACTERS_MESSAGE);
}

// Characters Go's JSON encoder writes raw that the YAML reader refuses.
const REFUSED = /[\u007f-\u0084\u0086-\u009f\ufffe\uffff]/;
const NEEDS_CARE = /[\u007f-\u009f\ufffe\uffff\ud800-\udfff]/;

/**
 * A string value or key of a typed value after the JSON → YAML round trip. Go's encoder replaced
 * lone surrogates (invalid UTF-8) with U+FFFD and escaped U+2028/U+2029 and every C0 control, so
 * only a raw NEL (U+0085) is a line break for the reader, and DEL, the other C1 controls, U+FFFE
 * and U+FFFF make the reader fail.
 */
export function rereadTypedString(s: string): string {
  if (!NEEDS_CARE.test(s)) return s;
  const t = s.toWellFormed();
  if (REFUSED.test(t)) throw controlCharacterError();
  return t.includes('\u0085') ? foldFlowBreaks(t, false) : t;
}

/**
 * Line folding of a double-quoted YAML scalar, applied to the characters the reader sees raw: a
 * line break with the blanks around it becomes one space, or, followed by more line breaks, those
 * breaks (NEL reads as `\n`; U+2028/U+2029 are kept). With `raw` false the text is a string Go's
 * encoder wrote, where only NEL and the space are still raw; with `raw` true it is raw JSON text.
 */
function foldFlowBreaks(s: string, raw: boolean): string {
  const out: string[] = [];
  const n = s.length;
  let i = 0;
  const isBlank = (c: number): boolean => c === 0x20 || (raw && c === 0x09);
  const isFoldBreak = (c: number): boolean =>
    c === 0x85 || (raw && (c === 0x2028 || c === 0x2029 || c === 0x0a || c === 0x0d));
  while (i < n) {
    let j = i;
    while (j < n) {
      const c = s.charCodeAt(j);
      if (isBlank(c) || isFoldBreak(c)) break;
      j++;
    }
    if (j > i) out.push(s.slice(i, j));
    i = j;
    if (i >= n) break;
    let whitespace = '';
    let leadingBreak = '';
    let trailingBreaks = '';
    let leadingBlanks = false;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (isBlank(c)) {
        if (!leadingBlanks) whitespace += s[i];
      } else if (isFoldBreak(c)) {
        // CR LF reads as one break; CR, LF and NEL read as `\n`.
        let b: string;
        if (c === 0x0d && s.charCodeAt(i + 1) === 0x0a) {
          i++;
          b = '\n';
        } else b = c === 0x2028 || c === 0x2029 ? (s[i] as string) : '\n';
        if (!leadingBlanks) {
          whitespace = '';
          leadingBreak = b;
          leadingBlanks = true;
        } else trailingBreaks += b;
      } else break;
      i++;
    }
    if (leadingBlanks) {
      if (leadingBreak === '\n') out.push(trailingBreaks === '' ? ' ' : trailingBreaks);
      else out.push(leadingBreak + trailingBreaks);
    } else out.push(whitespace);
  }
  return out.join('');
}

// ---------------------------------------------------------------------------------------------
// Raw JSON text (json.RawMessage): the YAML reader sees it as written.

export type RereadNode = null | boolean | string | YamlPlainScalar | RereadNode[] | Map<string, RereadNode>;

const TRUE = new YamlPlainScalar('true');
const FALSE = new YamlPlainScalar('false');
const NULL = new YamlPlainScalar('null');

function rawError(text: string): OpmError {
  return new OpmError(`malformed raw JSON value: ${text.length > 80 ? text.slice(0, 80) + '…' : text}`);
}

/**
 * Read raw JSON text as go-yaml v2 reads it: objects as maps (a repeated key keeps its last
 * value), numbers by their text, strings with raw line breaks folded. An escaped surrogate
 * (`\ud83d`) is refused by go-yaml's double-quoted scalar reader, as are raw control characters.
 */
export function rereadRawJson(text: string): RereadNode {
  if (REFUSED.test(text)) throw controlCharacterError();
  let i = 0;
  const n = text.length;
  const skipWs = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const readString = (): string => {
    // text[i] is the opening quote
    let j = i + 1;
    let hasEscape = false;
    while (j < n) {
      const c = text.charCodeAt(j);
      if (c === 0x5c) {
        hasEscape = true;
        j += 2;
      } else if (c === 0x22) break;
      else j++;
    }
    if (j >= n) throw rawError(text);
    let body = text.slice(i + 1, j);
    i = j + 1;
    if (/[\u0085\u2028\u2029\n\r]/.test(body)) body = foldFlowBreaks(body, true);
    return hasEscape ? decodeEscapes(body, text) : body;
  };
  const readValue = (depth: number): RereadNode => {
    if (depth > 10_000) throw rawError(text);
    skipWs();
    const c = text[i];
    if (c === '{') {
      i++;
      const m = new Map<string, RereadNode>();
      skipWs();
      if (text[i] === '}') {
        i++;
        return m;
      }
      for (;;) {
        skipWs();
        if (text[i] !== '"') throw rawError(text);
        const k = readString();
        skipWs();
        if (text[i] !== ':') throw rawError(text);
        i++;
        const v = readValue(depth + 1);
        m.delete(k);
        m.set(k, v);
        skipWs();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return m;
        }
        throw rawError(text);
      }
    }
    if (c === '[') {
      i++;
      const a: RereadNode[] = [];
      skipWs();
      if (text[i] === ']') {
        i++;
        return a;
      }
      for (;;) {
        a.push(readValue(depth + 1));
        skipWs();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return a;
        }
        throw rawError(text);
      }
    }
    if (c === '"') return readString();
    const m = /^(?:true|false|null|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)/.exec(
      text.slice(i, i + 400),
    );
    if (m === null) throw rawError(text);
    const tok = m[0];
    i += tok.length;
    if (tok === 'true') return TRUE;
    if (tok === 'false') return FALSE;
    if (tok === 'null') return NULL;
    const y = yamlNumberText(tok);
    return y === undefined ? tok : new YamlPlainScalar(y);
  };
  const v = readValue(0);
  skipWs();
  if (i !== n) throw rawError(text);
  return v;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

function decodeEscapes(body: string, whole: string): string {
  const out: string[] = [];
  let start = 0;
  for (let i = body.indexOf('\\'); i !== -1; i = body.indexOf('\\', start)) {
    out.push(body.slice(start, i));
    const e = body[i + 1];
    if (e === 'u') {
      const hex = body.slice(i + 2, i + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw rawError(whole);
      const cp = parseInt(hex, 16);
      if (cp >= 0xd800 && cp <= 0xdfff) {
        throw new OpmError('yaml: found invalid Unicode character escape code');
      }
      out.push(String.fromCharCode(cp));
      start = i + 6;
    } else {
      const r = e === undefined ? undefined : SIMPLE_ESCAPES[e];
      if (r === undefined) throw rawError(whole);
      out.push(r);
      start = i + 2;
    }
  }
  out.push(body.slice(start));
  return out.join('');
}
