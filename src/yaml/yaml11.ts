/**
 * YAML reading with the scalar resolution opm applies (go-yaml v2, YAML 1.1, under
 * k8s.io/apimachinery's YAML decoder): `yes`/`on`/`y` are booleans, `~` is null, integers follow
 * Go's base-0 syntax after `_` removal, `1.10` is the number 1.1, timestamps and base-60 numbers
 * stay strings, non-string map keys are stringified as Go does. A duplicate key is an error with
 * its line, unless the caller passes `onDuplicateKey`: then the last value wins, as in opm, and the
 * caller decides what to report.
 *
 * Documents are split at `---` lines the way opm's stream decoder splits them; empty documents are
 * skipped (opm 1.73 fails on most with `object '' is missing root schema field`; see
 * docs/compatibility.md).
 */
import jsYaml from 'js-yaml';
import { goYamlTabProblem } from './go-tabs.js';
import { GO_YAML_TAG_TYPES } from './yaml11-tags.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../go/json-value.js';
import { OpmError, formatPosition, type SourcePosition } from '../errors.js';
import { readBlockYaml, type BlockFacts } from './block-reader.js';
import { excessiveAliasing } from './alias-limit.js';

/** Deepest nesting accepted in a document; deeper input is refused instead of risking the stack. */
export const MAX_YAML_DEPTH = 1000;

/** A YAML document that cannot be read. `line` is 1-based in the text given to the parser. */
export class YamlError extends OpmError {
  readonly line: number;
  readonly column: number | undefined;
  readonly reason: string;
  constructor(reason: string, line: number, column?: number) {
    super(`line ${line}: ${reason}`);
    this.name = 'YamlError';
    this.reason = reason;
    this.line = line;
    this.column = column;
  }
}

/** The warning for a mapping key written twice (readers keep the last value, as opm's does). */
export function duplicateKeyMessage(at: SourcePosition, key: string | undefined): string {
  return `${formatPosition(at)}key ${key ?? '(unknown)'} is written twice in one mapping; the last value is kept (as in opm)`;
}

// ---------------------------------------------------------------------------------------------
// Scalar resolution

type Resolved = { ok: false } | { ok: true; value: null | boolean | number; exact?: string };

const NOT_RESOLVED: Resolved = { ok: false };
const NULL: Resolved = { ok: true, value: null };
const TRUE: Resolved = { ok: true, value: true };
const FALSE: Resolved = { ok: true, value: false };

/** Words resolved through go-yaml v2's lookup table (first character in `yYnNtTfFoO~.+-`). */
const WORDS = new Map<string, Resolved>();
for (const w of ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']) WORDS.set(w, TRUE);
for (const w of ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']) {
  WORDS.set(w, FALSE);
}
for (const w of ['~', 'null', 'Null', 'NULL']) WORDS.set(w, NULL);
for (const w of ['.nan', '.NaN', '.NAN']) WORDS.set(w, { ok: true, value: NaN });
for (const w of ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'])
  WORDS.set(w, { ok: true, value: Infinity });
for (const w of ['-.inf', '-.Inf', '-.INF']) WORDS.set(w, { ok: true, value: -Infinity });

// Go strconv.ParseInt/ParseUint with base 0: sign, then 0x / 0o / 0b prefix, leading-0 octal, or decimal.
const GO_INT = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
const SMALL_DECIMAL = /^[+-]?[1-9][0-9]{0,14}$/;
// go-yaml v2's float syntax, applied after `_` removal.
const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
// Go strconv.ParseFloat on a value starting with `.` (no `_` removal on that path).
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

function parseGoInt(sign: string, body: string): bigint {
  let magnitude: bigint;
  const p = body.length > 1 ? body[1] : '';
  if (p === 'x' || p === 'X' || p === 'b' || p === 'B') magnitude = BigInt(body);
  else if (p === 'o' || p === 'O') magnitude = BigInt('0o' + body.slice(2));
  else if (body.length > 1 && body[0] === '0') magnitude = BigInt('0o' + body.slice(1));
  else magnitude = BigInt(body);
  return sign === '-' ? -magnitude : magnitude;
}

function resolveNumber(text: string): Resolved {
  const plain = text.includes('_') ? text.replaceAll('_', '') : text;
  if (plain === '0' || SMALL_DECIMAL.test(plain)) return { ok: true, value: Number(plain) };
  const m = GO_INT.exec(plain);
  if (m) {
    const sign = m[1] ?? '';
    const n = parseGoInt(sign, m[2] ?? '');
    // ParseInt takes the int64 range (with sign); ParseUint the uint64 range (no sign).
    if ((n >= INT64_MIN && n <= INT64_MAX) || (sign === '' && n <= UINT64_MAX)) {
      return { ok: true, value: Number(n), exact: n.toString() };
    }
  }
  if (YAML_FLOAT.test(plain)) {
    const f = Number(plain);
    // Go's ParseFloat reports overflow as an error, and go-yaml then keeps the text as a string.
    if (Number.isFinite(f)) return { ok: true, value: f };
  }
  return NOT_RESOLVED;
}

/** Go's rule for `_` in numeric literals (strconv's underscoreOK): only between digits. */
function underscoresOK(s: string): boolean {
  let saw = '^';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) saw = '0';
    else if (c === 0x5f) {
      if (saw !== '0') return false;
      saw = '_';
    } else {
      if (saw === '_') return false;
      saw = '!';
    }
  }
  return saw !== '_';
}

/** A plain scalar starting with `.`: a float when Go's ParseFloat takes it (`.5`, `.5e3`, `.5_0`). */
function dotFloat(text: string): Resolved {
  const t = text.includes('_') ? (underscoresOK(text) ? text.replaceAll('_', '') : '') : text;
  if (!DOT_FLOAT.test(t)) return NOT_RESOLVED;
  const value = Number(t);
  // ParseFloat reports overflow as an error, and go-yaml then keeps the text as a string.
  return Number.isFinite(value) ? { ok: true, value } : NOT_RESOLVED;
}

/** How go-yaml v2 resolves an untagged plain scalar: a boolean, null, number, or (not resolved) a string. */
export function resolveYaml11Scalar(text: string): Resolved {
  if (text.length === 0) return NULL;
  const c = text.charCodeAt(0);
  if (c >= 0x30 && c <= 0x39) return resolveNumber(text); // digit
  switch (text[0]) {
    case 'y':
    case 'Y':
    case 'n':
    case 'N':
    case 't':
    case 'T':
    case 'f':
    case 'F':
    case 'o':
    case 'O':
    case '~':
      return WORDS.get(text) ?? NOT_RESOLVED;
    case '.': {
      const w = WORDS.get(text);
      if (w) return w;
      return dotFloat(text);
    }
    case '+':
    case '-':
      return WORDS.get(text) ?? resolveNumber(text);
    default:
      return NOT_RESOLVED;
  }
}

// ---------------------------------------------------------------------------------------------
// Map keys. js-yaml turns a non-string key into a string with String(); Go (sigs.k8s.io/yaml)
// formats integers in decimal, floats with 32-bit %g, and refuses a null key. Where the two
// differ, a document is parsed a second time with boxed scalars whose toString gives Go's key.

/** Go's strconv.FormatFloat(x, 'g', -1, 32). */
export function goFloat32Key(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  const f = Math.fround(x);
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  let mantissa = '';
  let exp = 0;
  for (let p = 1; p <= 9; p++) {
    const s = f.toExponential(p - 1);
    if (Math.fround(Number(s)) === f || p === 9) {
      const [m = '', e = '0'] = s.split('e');
      mantissa = m;
      exp = Number(e);
      break;
    }
  }
  const neg = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '').replace(/0+$/, '') || '0';
  let out: string;
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? '.' + digits.slice(1) : '';
    const ae = Math.abs(exp);
    out = `${digits[0]}${frac}e${exp < 0 ? '-' : '+'}${ae < 10 ? '0' : ''}${ae}`;
  } else if (exp < 0) {
    out = '0.' + '0'.repeat(-exp - 1) + digits;
  } else if (digits.length <= exp + 1) {
    out = digits + '0'.repeat(exp + 1 - digits.length);
  } else {
    out = digits.slice(0, exp + 1) + '.' + digits.slice(exp + 1);
  }
  return neg ? '-' + out : out;
}

const NULL_KEY = '\u0000yaml11-null-key\u0000';

/** A scalar parsed in exact mode: the value it stands for, and the key text Go would use. */
class Boxed {
  readonly value: JsonValue;
  readonly key: string;
  constructor(value: JsonValue, key: string) {
    this.value = value;
    this.key = key;
  }
  // js-yaml only calls toString on keys whose class tag is not plain Object.
  get [Symbol.toStringTag](): string {
    return 'Yaml11Scalar';
  }
  toString(): string {
    return this.key;
  }
}

let exactMode = false;
/** A value JSON cannot carry was read: the exact pass reports it. */
let needsExactPass = false;
/**
 * Keys js-yaml would write for scalars that Go keys differently (`null` for `~`, `1` for `1.0`).
 * The exact pass is needed only when the document has one of them as a key, which is rare, while
 * such values (`creationTimestamp: null`) are in most Kubernetes manifests.
 */
const suspectKeys = new Set<string>();

function construct(r: Resolved): unknown {
  if (!r.ok) return null;
  const v = r.value;
  if (v === null) {
    if (exactMode) return new Boxed(null, NULL_KEY);
    suspectKeys.add('null');
    return null;
  }
  if (typeof v === 'boolean') return v;
  if (r.exact !== undefined) {
    if (!Number.isSafeInteger(v)) {
      if (exactMode) return new Boxed(v, r.exact);
      suspectKeys.add(String(v));
    }
    return v;
  }
  if (Number.isInteger(v) && Number.isSafeInteger(v)) {
    // Written as a float (`1.0`, `1e3`): Go's key is %g of the 32-bit value.
    const key = goFloat32Key(v);
    if (key === String(v)) return v;
  } else if (Number.isFinite(v) && goFloat32Key(v) === String(v)) {
    return v;
  }
  if (exactMode) return new Boxed(v, goFloat32Key(v));
  if (Number.isFinite(v)) suspectKeys.add(String(v));
  else needsExactPass = true;
  return v;
}

let lastResolved: Resolved = NOT_RESOLVED;

// One implicit type for all of null/bool/int/float: resolution is decided by the first character
// and each plain scalar is classified once (resolve keeps the result for construct).
const implicitScalar = new jsYaml.Type('tag:yaml.org,2002:yaml11', {
  kind: 'scalar',
  resolve: (data: unknown): boolean => {
    if (typeof data !== 'string') return false;
    lastResolved = resolveYaml11Scalar(data);
    return lastResolved.ok;
  },
  construct: (): unknown => construct(lastResolved),
});

function explicitType(
  tag: string,
  accepts: (v: null | boolean | number, text: string, r: Resolved) => boolean,
): jsYaml.Type {
  return new jsYaml.Type(`tag:yaml.org,2002:${tag}`, {
    kind: 'scalar',
    resolve: (data: unknown): boolean => {
      if (data === null) return tag === 'null';
      if (typeof data !== 'string') return false;
      const r = resolveYaml11Scalar(data);
      return r.ok && accepts(r.value, data, r);
    },
    construct: (data: unknown): unknown =>
      typeof data === 'string' ? construct(resolveYaml11Scalar(data)) : null,
  });
}

// `<<` merge keys, which go-yaml v2 applies too; js-yaml merges keys carrying this tag.
const mergeKey = new jsYaml.Type('tag:yaml.org,2002:merge', {
  kind: 'scalar',
  resolve: (data: unknown): boolean => data === '<<' || data === null,
});

/** js-yaml schema reproducing go-yaml v2's scalar resolution (plus `<<` merge keys, as go-yaml). */
export const YAML11_SCHEMA: jsYaml.Schema = jsYaml.FAILSAFE_SCHEMA.extend({
  implicit: [implicitScalar, mergeKey],
  explicit: [
    explicitType('null', (v) => v === null),
    explicitType('bool', (v) => typeof v === 'boolean'),
    // Written as an integer in the int64/uint64 range: a larger one is a float to Go, not an int.
    explicitType(
      'int',
      (v, text, r) => typeof v === 'number' && ('exact' in r || SMALL_DECIMAL.test(text.replaceAll('_', ''))),
    ),
    explicitType('float', (v) => typeof v === 'number'),
    ...GO_YAML_TAG_TYPES,
  ],
});

// ---------------------------------------------------------------------------------------------
// Parsing

// js-yaml reads `maxDepth`; the published typings predate it.
const LOAD_OPTIONS: jsYaml.LoadOptions & { maxDepth: number } = {
  schema: YAML11_SCHEMA,
  maxDepth: MAX_YAML_DEPTH,
};

const DUPLICATE_KEY = 'duplicated mapping key';

export interface ParseOptions {
  /**
   * Tolerate duplicate keys (the last value wins, as in opm) and call this with the line of the first
   * duplicate — a top-level one of the document if there is any, said by `topLevel`. Without it a
   * duplicate key is a YamlError.
   */
  onDuplicateKey?: (line: number, key: string | undefined, topLevel: boolean) => void;
  /**
   * The text was decoded from bytes (UTF-8 or Latin-1), so it holds no unpaired surrogates and they
   * are not looked for.
   */
  wellFormed?: boolean;
  /**
   * The text holds none of the characters the block reader leaves to js-yaml: a text decoded from
   * ASCII bytes that usualAscii (block-reader.ts) passed.
   */
  usual?: boolean;
  /**
   * Receives what the block reader learnt of the document (block-reader.ts); `stringifiesAsGo` is
   * false when js-yaml read it.
   */
  facts?: BlockFacts;
}

// A key written at column 0 of a block document: a key of the document's top-level mapping.
const TOP_LEVEL_KEY =
  /^("(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'|[^\s#'"\-?:[\]{},][^\n:#]*?)[ \t]*:(?:[ \t]|$)/gm;

/**
 * The first key written twice at the top level of a block document (its 0-based line and the key),
 * or undefined. Only looked for once a duplicate is known to exist, so it costs nothing otherwise.
 */
function topLevelDuplicate(text: string): { index: number; key: string } | undefined {
  const seen = new Set<string>();
  for (const m of text.matchAll(TOP_LEVEL_KEY)) {
    const raw = m[1] ?? '';
    const key = raw.startsWith('"')
      ? String(JSON.parse(raw))
      : raw.startsWith("'")
        ? raw.slice(1, -1).replace(/''/g, "'")
        : raw;
    if (seen.has(key)) {
      let index = 0;
      for (let i = text.indexOf('\n'); i !== -1 && i < m.index; i = text.indexOf('\n', i + 1)) index++;
      return { index, key };
    }
    seen.add(key);
  }
  return undefined;
}

/** The plain or quoted key written on a line (0-based within `text`), for messages. */
function keyOnLine(text: string, index: number): string | undefined {
  let start = 0;
  for (let i = 0; i < index && start !== -1; i++) start = text.indexOf('\n', start) + 1 || -1;
  if (start === -1) return undefined;
  const end = text.indexOf('\n', start);
  const m = /^\s*(?:-\s+)?("(?:[^"\\]|\\.)*"|'[^']*'|[^:#{}[\],]+?)\s*:(?:\s|$)/.exec(
    text.slice(start, end === -1 ? undefined : end),
  );
  return m?.[1];
}

function lineOf(err: jsYaml.YAMLException, firstLine: number): { line: number; column: number | undefined } {
  const mark: unknown = err.mark;
  if (typeof mark === 'object' && mark !== null && 'line' in mark && typeof mark.line === 'number') {
    const column = 'column' in mark && typeof mark.column === 'number' ? mark.column + 1 : undefined;
    return { line: firstLine + mark.line, column };
  }
  return { line: firstLine, column: undefined };
}

/** Replace boxed scalars by their values; refuse null keys and values JSON cannot carry. */
function unbox(v: unknown, line: number): JsonValue {
  if (v instanceof Boxed) {
    if (typeof v.value === 'number' && !Number.isFinite(v.value)) {
      throw new YamlError(`value ${v.key} cannot be represented in JSON`, line);
    }
    return v.value;
  }
  if (Array.isArray(v)) return v.map((x) => unbox(x, line));
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === NULL_KEY) throw new YamlError('null map key is not supported', line);
      out[k] = unbox(x, line);
    }
    return out;
  }
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v;
  throw new YamlError(`unsupported YAML value of type ${typeof v}`, line);
}

const LOAD_OPTIONS_LAST_KEY_WINS = { ...LOAD_OPTIONS, json: true };

function loadOne(text: string, firstLine: number, opts: ParseOptions): unknown {
  try {
    try {
      return jsYaml.load(text, LOAD_OPTIONS);
    } catch (err) {
      // Tolerated duplicates: report the first, then read again keeping the last value (as opm).
      if (!(err instanceof jsYaml.YAMLException) || err.reason !== DUPLICATE_KEY || !opts.onDuplicateKey)
        throw err;
      const top = topLevelDuplicate(text);
      if (top !== undefined) opts.onDuplicateKey(firstLine + top.index, top.key, true);
      else {
        const line = lineOf(err, firstLine).line;
        opts.onDuplicateKey(line, keyOnLine(text, line - firstLine), false);
      }
      return jsYaml.load(text, LOAD_OPTIONS_LAST_KEY_WINS);
    }
  } catch (err) {
    if (err instanceof jsYaml.YAMLException) {
      const { line, column } = lineOf(err, firstLine);
      throw new YamlError(err.reason, line, column);
    }
    if (err instanceof RangeError) {
      throw new YamlError('document is nested too deeply', firstLine);
    }
    throw err;
  }
}

/**
 * Parse one YAML document (no `---` splitting) with YAML 1.1 resolution. Returns undefined for an
 * empty document (blank lines and comments only). `firstLine` is the line number of the text's first
 * line, used in errors. Throws YamlError (duplicate keys included, unless opts.onDuplicateKey).
 */
export function parseYamlDocument(
  text: string,
  firstLine = 1,
  opts: ParseOptions = {},
): JsonValue | undefined {
  // Most catalog documents are in go-yaml's block style, which the block reader takes several times
  // faster; it gives up on anything else (and on every error), and js-yaml decides.
  if (opts.facts !== undefined) opts.facts.stringifiesAsGo = false;
  const fast = readBlockYaml(
    text,
    resolveYaml11Scalar,
    opts.wellFormed === true,
    opts.facts,
    opts.usual === true,
  );
  if (fast !== undefined) return fast;
  exactMode = false;
  // loadOne's scalar resolver sets it: not narrowed to this value.
  needsExactPass = false as boolean;
  suspectKeys.clear();
  const v = loadOne(text, firstLine, opts);
  // An empty document (white space and comments, tabs among them) is skipped, as every empty
  // document is (docs/compatibility.md, row 28).
  if (v === undefined) return undefined;
  // Tabs js-yaml reads as white space where go-yaml's scanner refuses them (go-tabs.ts).
  const tab = goYamlTabProblem(text);
  if (tab !== undefined) throw new YamlError(tab.message, firstLine + tab.line, tab.column + 1);
  if (text.includes('*') && excessiveAliasing(v)) {
    throw new YamlError('document contains excessive aliasing', firstLine);
  }
  if (!needsExactPass && (suspectKeys.size === 0 || !hasKeyIn(v, suspectKeys))) {
    // The schema constructs only JSON types (strings, numbers, booleans, null, arrays, plain objects).
    return jsonValueOf(v, firstLine);
  }
  exactMode = true;
  try {
    // Duplicates were reported by the first pass; this one only has to tolerate them the same way.
    const tolerate: ParseOptions = opts.onDuplicateKey ? { onDuplicateKey: () => undefined } : {};
    return unbox(loadOne(text, firstLine, tolerate), firstLine);
  } finally {
    exactMode = false;
  }
}

/** Whether a mapping anywhere in `root` has one of `keys`. */
function hasKeyIn(root: unknown, keys: Set<string>): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
      continue;
    }
    for (const [k, x] of Object.entries(v)) {
      if (keys.has(k)) return true;
      stack.push(x);
    }
  }
  return false;
}

function jsonValueOf(v: unknown, line: number): JsonValue {
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v;
  if (Array.isArray(v) || isJsonObject(v)) return v;
  throw new YamlError(`unsupported YAML value of type ${typeof v}`, line);
}
