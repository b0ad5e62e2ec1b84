/**
 * Split one catalog file into blobs (as k8s.io/apimachinery's YAMLOrJSONDecoder does for opm): a
 * file whose first non-space character is `{` is a stream of JSON values, anything else is YAML
 * documents separated by `---` lines. Each blob keeps the 1-based line it starts on; problems are
 * reported with their line, not thrown.
 *
 * Deliberate differences from opm: documents holding only comments or blank lines (including the
 * text before a first `---`) are skipped instead of failing; a duplicate key among a blob's own
 * keys, invalid UTF-8, NUL bytes and nesting deeper than MAX_DEPTH are errors; a duplicate key
 * nested in a value keeps the last value, as in opm, with a warning.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { parseYamlDocument, YamlError } from '../yaml/yaml11.js';
import { splitYamlDocuments } from '../yaml/split-documents.js';
import type { BlockFacts } from '../yaml/block-reader.js';
import { usualAscii } from '../yaml/block-chars.js';
import { NATIVE_STRING_LIMIT } from '../go/json-native.js';
import { isJsonObject, withoutLoneSurrogates, type JsonObject, type JsonValue } from '../go/json-value.js';
import { decodeUtf8AsGo, firstInvalidUtf8 } from '../go/utf8.js';
import type { RuleId } from '../rules.js';
import { checkParsed } from './json-blob-checks.js';
import { asciiKeys, NOT_BYTE_CHARS, readableByteForChar, type ByteChars } from './byte-chars.js';
import { escapesSurrogate, nextJsonValue, skipWs, type KeptSearch } from './json-values.js';

export interface RawBlob {
  value: JsonObject;
  /** 1-based line where the blob starts; 0 for a blob whose checks are left to the caller (UncheckedBlob). */
  line: number;
  /**
   * Its values are ready for JSON.stringify as they are (declcfg/native-json.ts): a YAML document
   * the block reader read, with its keys in Go's order, no -0 and no long payload string.
   */
  nativeJson?: true;
  /** The checks of its text left to the caller (ByteChars.deferChecks). */
  unchecked?: UncheckedBlob;
}

/**
 * A JSON blob whose keys, depth, numbers and escapes the parse did not check (checkParsed: duplicate
 * keys, a number too large for a float64, nesting deeper than MAX_DEPTH; an escaped surrogate, which
 * may need its value changed as Go reads it), at a caller's request
 * (ByteChars.deferChecks): its bytes in the file, `bytes` from `from` up to `to` (past its last `}`), and
 * `check`, which runs those checks and says whether they pass. A caller that writes the blob as
 * opm does and finds its output to be these very bytes knows they pass (the output holds each key
 * once, and no number JSON.parse turned into Infinity); else it runs `check`, and on a failure, or
 * on an error of any kind, reads the file again without deferring (the checks report problems with
 * their lines, in file order). Lines are left uncounted with the checks (RawBlob.line is 0): such a
 * caller reads the file again whenever its load has anything to say.
 */
export interface UncheckedBlob {
  bytes: Uint8Array;
  from: number;
  to: number;
  check(): boolean;
}

export type ParseRule = Extract<RuleId, `parse.${string}`>;

export interface ParseIssue {
  rule: ParseRule;
  /** Duplicate keys are warnings: opm keeps the last value, and real catalogs have them. */
  severity: 'error' | 'warning';
  message: string;
  line: number;
}

export interface ParsedText {
  blobs: RawBlob[];
  issues: ParseIssue[];
}

function kindOf(v: JsonValue): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}

/** Counts lines forward through a text; positions must not decrease. */
class LineCounter {
  private pos = 0;
  private line: number;
  private readonly text: string;
  constructor(text: string, firstLine = 1) {
    this.text = text;
    this.line = firstLine;
  }
  at(pos: number): number {
    const t = this.text;
    for (let i = t.indexOf('\n', this.pos); i !== -1 && i < pos; i = t.indexOf('\n', i + 1)) this.line++;
    this.pos = Math.max(this.pos, pos);
    return this.line;
  }
}

const FIRST_NON_SPACE = /[^ \t\r\n\f\v\ufeff]/g;
/**
 * Where the JSON of a file's text starts, or -1 when the file is YAML: as opm decides, a file whose
 * first character past white space is `{` is JSON.
 */
export function jsonStart(text: string): number {
  FIRST_NON_SPACE.lastIndex = 0;
  const m = FIRST_NON_SPACE.exec(text);
  return m !== null && m[0] === '{' ? m.index : -1;
}

/**
 * Given to the parse functions, receives each blob as soon as it is read instead of the result's
 * `blobs`, which then stays empty: a caller that is done with a blob before the next (render's
 * file-by-file path) keeps only one YAML document's objects alive at a time, where a whole file's
 * would be copied by each young-generation collection until the file is done. A JSON stream's first
 * blob is handed over once its second value is read (the stream may turn out to be read as YAML
 * after all), the others as they are read.
 */
export type OnBlob = (blob: RawBlob) => void;

/**
 * Parse one file's text. `firstLine` is the number of the text's first line (for parts of a file);
 * `wellFormed` says the text was decoded from bytes, so it holds no unpaired surrogates.
 */
export function parseCatalogText(
  text: string,
  firstLine = 1,
  wellFormed = false,
  onBlob?: OnBlob,
): ParsedText {
  return parseText(text, firstLine, wellFormed, onBlob, false);
}

/** parseCatalogText, of a text read one character per byte when `byteChars` (see ByteChars). */
function parseText(
  text: string,
  firstLine: number,
  wellFormed: boolean,
  onBlob: OnBlob | undefined,
  byteChars: boolean,
  deferred?: Uint8Array,
): ParsedText {
  const start = jsonStart(text);
  if (start === -1) return parseYamlStream(text, firstLine, wellFormed, { onBlob });
  const parsed = parseJsonStream(text, start, firstLine, onBlob, undefined, byteChars, deferred);
  if (onBlob === undefined) return parsed;
  // What the stream held back (a first value that could yet have been read as YAML).
  for (const b of parsed.blobs) onBlob(b);
  return { blobs: [], issues: parsed.issues };
}

/** How a YAML stream is read beyond its text: see OnBlob, splitYamlDocuments and ParseOptions. */
interface YamlStreamOptions {
  onBlob?: OnBlob;
  /** Receives the number of line feeds in the text. */
  counted?: { newlines: number };
  usual?: boolean;
}

function parseYamlStream(
  text: string,
  firstLine: number,
  wellFormed: boolean,
  { onBlob, counted, usual }: YamlStreamOptions = {},
): ParsedText {
  const out: ParsedText = { blobs: [], issues: [] };
  const emit = onBlob ?? ((b: RawBlob): void => void out.blobs.push(b));
  let docs;
  try {
    docs = splitYamlDocuments(text, counted);
  } catch (err) {
    if (!(err instanceof YamlError)) throw err;
    out.issues.push({
      rule: 'parse.yaml',
      severity: 'error',
      message: err.reason,
      line: err.line + firstLine - 1,
    });
    return out;
  }
  const facts: BlockFacts = { stringifiesAsGo: false, longestString: 0 };
  for (const d of docs) {
    const line = d.line + firstLine - 1;
    try {
      const value = parseYamlDocument(d.text, line, {
        wellFormed,
        usual,
        facts,
        onDuplicateKey: (at, key, topLevel) =>
          out.issues.push(duplicateKey(at, key === undefined ? undefined : JSON.stringify(key), topLevel)),
      });
      if (value === undefined) continue;
      if (!isJsonObject(value)) out.issues.push(notObject(value, line));
      else if (facts.stringifiesAsGo && (facts.longestString <= NATIVE_STRING_LIMIT || !holdsPayloads(value)))
        emit({ value, line, nativeJson: true });
      else emit({ value, line });
    } catch (err) {
      if (!(err instanceof YamlError)) throw err;
      out.issues.push({ rule: 'parse.yaml', severity: 'error', message: err.reason, line: err.line });
    }
  }
  return out;
}

/**
 * Whether a raw blob has `olm.bundle.object` properties, whose base64 data the JSON writer copies
 * into its output apart from the text when long (go/json-native.ts); other long strings (descriptions,
 * examples) are as well left in JSON.stringify's text.
 */
function holdsPayloads(value: JsonObject): boolean {
  const props = value.properties;
  return Array.isArray(props) && props.some((p) => isJsonObject(p) && p.type === 'olm.bundle.object');
}

/**
 * A duplicate key. Nested in a value, opm keeps the last one without a word, so it is a warning. In
 * the blob's own keys it changes what the blob is (its schema, name or package) — opm refuses such
 * keys when they differ only in case, and keeps the last silently when they are equal — so it is an
 * error: one of them is a mistake.
 */
function duplicateKey(line: number, key: string | undefined, topLevel: boolean): ParseIssue {
  const what = key === undefined || key === '' ? 'duplicate key' : `duplicate key ${key}`;
  if (topLevel) {
    return {
      rule: 'parse.duplicate-key',
      severity: 'error',
      message: `${what} in the blob's own keys; opm would silently use the last value — remove one`,
      line,
    };
  }
  return {
    rule: 'parse.duplicate-key',
    severity: 'warning',
    message: `${what}; the last value is used (as opm does)`,
    line,
  };
}

function notObject(value: JsonValue, line: number): ParseIssue {
  return {
    rule: 'parse.not-object',
    severity: 'error',
    message: `blob is ${kindOf(value)}, not an object`,
    line,
  };
}

/** The parts of a JSON stream after the first (parseJsonInParts). */
interface JsonParts {
  /** The next part's text; undefined after the last. */
  next(): string | undefined;
  /** The text from `at` of the current part `text` to the end of the stream. */
  rest(text: string, at: number): string;
}

/**
 * Parse a JSON stream; on failure after at most one value, read the rest as YAML, as opm does. With
 * `onBlob`, blobs are handed over as they are parsed from the second value on (one value's objects
 * alive at a time, as a YAML stream's); the first is held in the result's `blobs` until then, since
 * a failure at the second value has the rest read as YAML after it.
 */
function parseJsonStream(
  whole: string,
  start: number,
  firstLine: number,
  onBlob?: OnBlob,
  parts?: JsonParts,
  byteChars = false,
  deferred?: Uint8Array,
): ParsedText {
  const out: ParsedText = { blobs: [], issues: [] };
  let text = whole;
  // With `deferred` (the file's bytes, read one character per byte): where `text` starts in them.
  let textAt = 0;
  let lines = new LineCounter(text, firstLine);
  let pos = start;
  let values = 0;
  let more = parts;
  const ends: KeptSearch = { text: '', from: 0, found: -1 };
  const surrogates: KeptSearch = { text: '', from: 0, found: -1 };
  const push = (b: RawBlob): void => {
    if (onBlob === undefined || values <= 1) {
      out.blobs.push(b);
      return;
    }
    if (out.blobs.length > 0) {
      for (const held of out.blobs) onBlob(held);
      out.blobs = [];
    }
    onBlob(b);
  };
  for (;;) {
    if (pos >= text.length) {
      const next = more?.next();
      if (next === undefined) break;
      lines = new LineCounter(next, deferred === undefined ? lines.at(text.length) : 0);
      textAt += text.length;
      text = next;
      pos = 0;
      continue;
    }
    // Left with the checks: a blob's line is said only in what its load has to say, and a caller
    // that defers the checks reads the file again for that.
    const line = deferred === undefined ? lines.at(pos) : 0;
    let r = nextJsonValue(text, pos, ends);
    if (!r.ok && more !== undefined) {
      // Perhaps a value that runs on into the next part: the rest of the file, whole.
      text = more.rest(text, pos);
      textAt += pos;
      more = undefined;
      lines = new LineCounter(text, line);
      pos = 0;
      r = nextJsonValue(text, pos, ends);
    }
    if (!r.ok) {
      const jsonIssue: ParseIssue = {
        rule: 'parse.json',
        severity: 'error',
        message: r.message,
        line: lines.at(r.at),
      };
      // Read one character per byte, the text is not what YAML would read: the caller reads it again.
      if (values <= 1 && !byteChars) {
        const rest = parseYamlStream(text.slice(pos), line, false);
        if (rest.issues.length === 0) {
          out.blobs.push(...rest.blobs);
          return out;
        }
      }
      out.issues.push(jsonIssue);
      return out;
    }
    values++;
    // Read one character per byte, a blob's keys beyond ASCII would not be compared as opm compares
    // them: the caller reads the file again as text (it does so for any issue of such a reading).
    if (byteChars && isJsonObject(r.value) && !asciiKeys(r.value)) {
      out.issues.push({ rule: 'parse.json', severity: 'error', message: NOT_BYTE_CHARS, line });
      return out;
    }
    if (deferred !== undefined && isJsonObject(r.value)) {
      // The checks' closure keeps this value's text and place (`text` and `pos` move on).
      const value = r.value;
      const blobText = text;
      const from = pos;
      const to = r.end;
      const unchecked: UncheckedBlob = {
        bytes: deferred,
        from: textAt + from,
        to: textAt + to,
        // An escaped surrogate fails too: the file is then read with the value made as Go makes it
        // (below). Its output cannot be its bytes, whose escape opm's writer never writes, so the
        // search is made only for a blob whose output differs.
        check: () =>
          !escapesSurrogate(blobText, from, to, surrogates) &&
          checkParsed(blobText, from, to, value) === undefined,
      };
      push({ value, line, unchecked });
      pos = skipWs(text, r.end);
      continue;
    }
    // An escaped surrogate that is not half of a pair is U+FFFD to Go's decoder.
    if (r.value !== undefined && escapesSurrogate(text, pos, r.end, surrogates))
      r.value = withoutLoneSurrogates(r.value);
    const problem = r.value === undefined ? undefined : checkParsed(text, pos, r.end, r.value);
    if (problem?.duplicate !== undefined)
      out.issues.push(duplicateKey(lines.at(problem.at), problem.duplicate, problem.topLevel === true));
    if (problem && problem.duplicate === undefined) {
      out.issues.push({
        rule: 'parse.json',
        severity: 'error',
        message: problem.message,
        line: lines.at(problem.at),
      });
    } else if (isJsonObject(r.value)) {
      push({ value: r.value, line });
    } else if (r.value !== undefined) {
      out.issues.push(notObject(r.value, line));
    }
    pos = skipWs(text, r.end);
  }
  return out;
}

/** Line (1-based) of byte offset `at`. */
function lineOfByte(buf: Uint8Array, at: number): number {
  let line = 1;
  for (let i = buf.indexOf(0x0a); i !== -1 && i < at; i = buf.indexOf(0x0a, i + 1)) line++;
  return line;
}

/**
 * Parse one file's bytes: refuse binary content (NUL bytes) and invalid UTF-8 with the line where it
 * is found, then parse the text.
 */
export function parseCatalogBytes(
  buf: Uint8Array,
  firstLine = 1,
  onBlob?: OnBlob,
  byteChars?: ByteChars,
): ParsedText {
  const nul = buf.indexOf(0);
  if (nul !== -1) {
    const message = `file contains a NUL byte at offset ${nul}; binary files are not catalog files`;
    return {
      blobs: [],
      issues: [
        { rule: 'parse.binary', severity: 'error', message, line: lineOfByte(buf, nul) + firstLine - 1 },
      ],
    };
  }
  const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  // Most catalogs are pure ASCII (base64 payloads, escaped JSON): those decode as one-byte text,
  // much faster than UTF-8 decoding, and cannot be invalid UTF-8.
  const ascii = isAscii(bytes);
  let valid: boolean | undefined;
  const validUtf8 = (): boolean => (valid ??= isUtf8(bytes));
  const asBytes = !ascii && byteChars !== undefined && readableByteForChar(bytes) && validUtf8();
  if (asBytes) byteChars.used = true;
  // Offsets in the text are offsets in the bytes: the checks can be left to the caller.
  const deferred = byteChars?.deferChecks === true && (ascii || asBytes) ? bytes : undefined;
  const json = startsAsJson(bytes);
  if (byteChars !== undefined && deferred !== undefined && json) byteChars.deferred = true;
  if (onBlob !== undefined && bytes.length > YAML_PART_BYTES && (ascii || validUtf8())) {
    const parsed = json
      ? parseJsonInParts(bytes, ascii || asBytes, firstLine, onBlob, asBytes, deferred)
      : parseYamlInParts(bytes, ascii, firstLine, onBlob);
    if (parsed !== undefined) return parsed;
  }
  if (ascii || asBytes)
    return parseText(bytes.toString('latin1'), firstLine, true, onBlob, asBytes, deferred);
  const text = bytes.toString('utf8');
  // Decoding replaces invalid bytes by U+FFFD, so only a text holding one can come from invalid
  // UTF-8; the full check (a second pass over the bytes) runs only then.
  if (text.includes('\ufffd') && !isUtf8(buf)) {
    const at = firstInvalidUtf8(buf);
    const line = lineOfByte(buf, at) + firstLine - 1;
    const message = `invalid UTF-8 at byte offset ${at}`;
    if (jsonStart(text) === -1) {
      // YAML: opm's reader refuses the file.
      return { blobs: [], issues: [{ rule: 'parse.encoding', severity: 'error', message, line }] };
    }
    // JSON: opm's decoder reads each invalid byte as U+FFFD; so does opm-ts, and it says so.
    const parsed = parseCatalogText(decodeUtf8AsGo(bytes), firstLine, false, onBlob);
    const warning: ParseIssue = {
      rule: 'parse.encoding',
      severity: 'warning',
      message: `${message}; each invalid byte is read as U+FFFD (as in opm)`,
      line,
    };
    return { blobs: parsed.blobs, issues: [warning, ...parsed.issues] };
  }
  return parseCatalogText(text, firstLine, true, onBlob);
}

/**
 * YAML files longer than this whose blobs are taken one by one (OnBlob) are decoded and read in
 * parts of at most this many bytes (a document longer than that is a part of its own), each cut
 * before a `---` line. A file's whole text is one of V8's large objects, which the young
 * generation's first collection moves to the old generation if the file is still being read then;
 * it stays there, dead, until the next full collection, as do all the files read in between (about
 * a tenth of the peak of render on a catalog of files of a few hundred kilobytes). A part, like
 * the blob's objects read from it, is dead before a second young collection (docs/performance.md).
 */
export const YAML_PART_BYTES = 64 * 1024;

/**
 * A JSON file's blobs read part by part, for the same reason as a YAML file's (YAML_PART_BYTES):
 * parts of at least YAML_PART_BYTES, each cut before a `{` that starts a line (a JSON string holds
 * no line feed, so that is where the values of a stream written one per line start). A value that
 * fails in its part (one that runs on past the part, or any error) is read again, with everything
 * after it, from the rest of the file decoded whole: the stream is then read on as parseJsonStream
 * reads a whole text, errors and the YAML read after a second value included. Undefined, before
 * any blob is handed over, when the first part is white space only.
 */
function parseJsonInParts(
  bytes: Buffer,
  oneByte: boolean,
  firstLine: number,
  onBlob: OnBlob,
  byteChars: boolean,
  deferred: Uint8Array | undefined,
): ParsedText | undefined {
  const encoding = oneByte ? 'latin1' : 'utf8';
  let from = 0;
  const part = (): string | undefined => {
    if (from >= bytes.length) return undefined;
    const nl = bytes.indexOf('\n{', from + YAML_PART_BYTES);
    const to = nl === -1 ? bytes.length : nl + 1;
    const text = bytes.toString(encoding, from, to);
    from = to;
    return text;
  };
  const first = part() as string;
  const start = jsonStart(first);
  // White space all through the first part: read whole.
  if (start === -1) return undefined;
  const parsed = parseJsonStream(
    first,
    start,
    firstLine,
    onBlob,
    { next: part, rest: (text, at) => text.slice(at) + bytes.toString(encoding, from) },
    byteChars,
    deferred,
  );
  for (const b of parsed.blobs) onBlob(b);
  return { blobs: [], issues: parsed.issues };
}

/**
 * A YAML file's blobs read part by part, handed to `onBlob` and reported exactly as
 * parseCatalogText would from the whole text; undefined, before any blob is handed over, for
 * anything else: a JSON file, invalid UTF-8, or a `---` line that is not a plain separator (its
 * error ends the whole file's parse, which the caller then does).
 */
function parseYamlInParts(
  bytes: Buffer,
  ascii: boolean,
  firstLine: number,
  onBlob: OnBlob,
): ParsedText | undefined {
  const cuts = partCuts(bytes, YAML_PART_BYTES);
  if (cuts === undefined) return undefined;
  const issues: ParseIssue[] = [];
  const counted = { newlines: 0 };
  // One search of the file's bytes per character instead of an expression over each document.
  const usual = ascii && usualAscii(bytes);
  let line = firstLine;
  for (let i = 0; i + 1 < cuts.length; i++) {
    const from = cuts[i] as number;
    const to = cuts[i + 1] as number;
    // Cut before a line, so never inside a UTF-8 sequence: each part decodes as its slice of the
    // whole text would.
    const text = bytes.toString(ascii ? 'latin1' : 'utf8', from, to);
    // Its separators were checked (partCuts): the split cannot fail, and counts the part's lines.
    for (const x of parseYamlStream(text, line, true, { onBlob, counted, usual }).issues) issues.push(x);
    line += counted.newlines;
  }
  return { blobs: [], issues };
}

/** Whether the text of `bytes` (valid UTF-8) starts as JSON: jsonStart's test, on the bytes. */
function startsAsJson(bytes: Buffer): boolean {
  let i = 0;
  while (i < bytes.length) {
    const c = bytes[i] as number;
    if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) i++;
    else if (c === 0xef && bytes[i + 1] === 0xbb && bytes[i + 2] === 0xbf)
      i += 3; // U+FEFF
    else return c === 0x7b;
  }
  return false;
}

/**
 * Bytes that can be searched for a string, as a Buffer can: named by shape, so that this module's
 * declarations, which the library's types reach, need no Node.js types.
 */
export type SearchableBytes = Uint8Array & { indexOf(value: string, byteOffset?: number): number };

/**
 * Where the parts of a YAML file start (the first at 0, then before `---` lines), and its length last;
 * undefined when a `---` line holds anything but spaces or a comment after the dashes
 * (splitYamlDocuments refuses it; other white space is left to it too).
 */
export function partCuts(bytes: SearchableBytes, partBytes: number): number[] | undefined {
  const cuts = [0];
  let partStart = 0;
  let previous = 0;
  const separator = (at: number): boolean => {
    let i = at + 3;
    while (i < bytes.length) {
      const c = bytes[i] as number;
      if (c === 0x20 || c === 0x09 || c === 0x0b || c === 0x0c || c === 0x0d) i++;
      else return c === 0x0a || c === 0x23;
    }
    return true;
  };
  if (bytes[0] === 0x2d && bytes[1] === 0x2d && bytes[2] === 0x2d && !separator(0)) return undefined;
  for (let nl = bytes.indexOf('\n---'); nl !== -1; nl = bytes.indexOf('\n---', nl + 4)) {
    const at = nl + 1;
    if (!separator(at)) return undefined;
    if (at - partStart > partBytes && previous > partStart) {
      cuts.push(previous);
      partStart = previous;
    }
    previous = at;
  }
  if (bytes.length - partStart > partBytes && previous > partStart) cuts.push(previous);
  cuts.push(bytes.length);
  return cuts;
}
