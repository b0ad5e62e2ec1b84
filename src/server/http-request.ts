/**
 * The request headers and query of the catalog API read as Go's net/http reads them (catalogd's
 * server): Accept-Encoding as gzhttp takes it, HTTP dates, preconditions, byte ranges, If-Range,
 * and the query string.
 */
import type { IncomingMessage } from 'node:http';
import type { Section } from './catalog-lines.js';

/** Whether Accept-Encoding takes gzip, read as gzhttp reads it (gzip with a q above 0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.split(';');
    if (coding.trim().toLowerCase() !== 'gzip') continue;
    let q = 1;
    for (const p of params) {
      const t = p.trim();
      if (t.startsWith('q=')) q = Math.min(1, Math.max(0, Number.parseFloat(t.slice(2)) || 0));
    }
    return q > 0;
  }
  return false;
}

const DAYS = '(Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAYS = '(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MON = `(${MONTHS.join('|')})`;
const IMF = new RegExp(`^${DAYS}, (\\d{2}) ${MON} (\\d{4}) (\\d{2}):(\\d{2}):(\\d{2}) GMT$`);
const RFC850 = new RegExp(`^${LONG_DAYS}, (\\d{2})-${MON}-(\\d{2}) (\\d{2}):(\\d{2}):(\\d{2}) GMT$`);
const ANSIC = new RegExp(`^${DAYS} ${MON} ([ \\d]\\d) (\\d{2}):(\\d{2}):(\\d{2}) (\\d{4})$`);

function utc(y: number, mon: string, d: number, h: number, m: number, s: number): number | undefined {
  const month = MONTHS.indexOf(mon);
  if (d < 1 || d > 31 || h > 23 || m > 59 || s > 59) return undefined;
  const t = Date.UTC(y, month, d, h, m, s);
  // 31 Feb and the like roll over in Date.UTC; Go refuses them.
  return new Date(t).getUTCDate() === d ? t : undefined;
}

/** An HTTP date in any of the three forms Go's http.ParseTime takes, as milliseconds; undefined when it is none. */
export function parseHttpDate(text: string): number | undefined {
  let m = IMF.exec(text);
  if (m !== null) return utc(Number(m[4]), m[3]!, Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7]));
  m = RFC850.exec(text);
  if (m !== null) {
    // Go reads a two-digit year as 1969–2068.
    const yy = Number(m[4]);
    return utc(
      yy >= 69 ? 1900 + yy : 2000 + yy,
      m[3]!,
      Number(m[2]),
      Number(m[5]),
      Number(m[6]),
      Number(m[7]),
    );
  }
  m = ANSIC.exec(text);
  if (m !== null)
    return utc(Number(m[7]), m[2]!, Number(m[3]!.trim()), Number(m[4]), Number(m[5]), Number(m[6]));
  return undefined;
}

/** Go's scanETag: the entity tag at the start of `s` and what follows it, or undefined. */
function scanEtag(s: string): { rest: string } | undefined {
  const start = s.startsWith('W/') ? 2 : 0;
  if (s.length - start < 2 || s[start] !== '"') return undefined;
  for (let i = start + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) return { rest: s.slice(i + 1) };
    if (!(c === 0x21 || (c >= 0x23 && c <= 0x7e) || c >= 0x80)) return undefined;
  }
  return undefined;
}

/**
 * Whether a list of entity tags holds `*` (the only tag that can match: these answers have no ETag).
 * Go stops reading at the first malformed tag.
 */
function listHasStar(header: string): boolean {
  let s = header;
  for (;;) {
    s = s.trim();
    if (s === '') return false;
    if (s.startsWith(',')) {
      s = s.slice(1);
      continue;
    }
    if (s.startsWith('*')) return true;
    const tag = scanEtag(s);
    if (tag === undefined) return false;
    s = tag.rest;
  }
}

/** Seconds are all an HTTP date holds, so comparisons drop the milliseconds (as Go does). */
const truncSeconds = (ms: number): number => Math.floor(ms / 1000) * 1000;

/**
 * RFC 7232's preconditions as Go's ServeContent evaluates them for an answer without an ETag:
 * 412 when If-Match or If-Unmodified-Since fails, 304 when If-None-Match is `*` or nothing changed
 * since If-Modified-Since, undefined to answer in full. A date that does not parse is ignored.
 */
export function preconditions(headers: IncomingMessage['headers'], modified: Date): 304 | 412 | undefined {
  const mod = truncSeconds(modified.getTime());
  const ifMatch = headers['if-match'];
  let ok: boolean | undefined;
  if (ifMatch !== undefined && ifMatch !== '') ok = listHasStar(ifMatch);
  else {
    const ius = headers['if-unmodified-since'];
    const t = ius === undefined || ius === '' ? undefined : parseHttpDate(ius);
    if (t !== undefined) ok = mod <= t;
  }
  if (ok === false) return 412;
  const inm = headers['if-none-match'];
  if (inm !== undefined && inm !== '') return listHasStar(inm) ? 304 : undefined;
  const ims = headers['if-modified-since'];
  const t = ims === undefined || ims === '' ? undefined : parseHttpDate(ims);
  if (t !== undefined && mod <= t) return 304;
  return undefined;
}

const INT64_MAX = (1n << 63n) - 1n;

/** Go's strconv.ParseInt(s, 10, 64) of an unsigned decimal: undefined past int64, as Go's range error. */
function int64(digits: string): number | undefined {
  return BigInt(digits) > INT64_MAX ? undefined : Number(digits);
}

export type RangeAnswer =
  { kind: 'whole' } | { kind: 'one'; section: Section } | { kind: 'invalid'; text: string };

/**
 * A Range header read as Go's ServeContent reads it: one satisfiable range is answered with 206;
 * several, or ranges that add up to more than the body, with the whole body; a malformed header or
 * one whose ranges all start past the end with 416.
 */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined || header === '') return { kind: 'whole' };
  const invalid: RangeAnswer = { kind: 'invalid', text: 'invalid range' };
  if (!header.startsWith('bytes=')) return invalid;
  const int = (s: string): number | undefined => (/^\+?\d+$/.test(s) ? int64(s) : undefined);
  const ranges: Section[] = [];
  let noOverlap = false;
  for (const raw of header.slice(6).split(',')) {
    const ra = raw.trim();
    if (ra === '') continue;
    const dash = ra.indexOf('-');
    if (dash < 0) return invalid;
    const first = ra.slice(0, dash).trim();
    const last = ra.slice(dash + 1).trim();
    if (first === '') {
      if (last === '' || last.startsWith('-')) return invalid;
      let n = int(last);
      if (n === undefined) return invalid;
      if (n > size) n = size;
      ranges.push({ offset: size - n, length: n });
      continue;
    }
    const start = int(first);
    if (start === undefined) return invalid;
    if (start >= size) {
      noOverlap = true;
      continue;
    }
    if (last === '') {
      ranges.push({ offset: start, length: size - start });
      continue;
    }
    let end = int(last);
    if (end === undefined || start > end) return invalid;
    if (end >= size) end = size - 1;
    ranges.push({ offset: start, length: end - start + 1 });
  }
  if (noOverlap && ranges.length === 0) return { kind: 'invalid', text: 'invalid range: failed to overlap' };
  const sum = ranges.reduce((n, r) => n + r.length, 0);
  const only = ranges[0];
  if (ranges.length !== 1 || only === undefined || sum > size) return { kind: 'whole' };
  return { kind: 'one', section: only };
}

/** If-Range: a range is served only when the header names the answer's date (there is no ETag to name). */
export function ifRangeHolds(headers: IncomingMessage['headers'], modified: Date): boolean {
  const raw = headers['if-range'];
  const v = Array.isArray(raw) ? raw.join(', ') : raw;
  if (v === undefined || v === '') return true;
  if (v.startsWith('"') || v.startsWith('W/')) return false;
  const t = parseHttpDate(v);
  return t !== undefined && t === truncSeconds(modified.getTime());
}

/** Go's url.QueryUnescape: `+` is a space, `%XX` a byte; undefined when an escape is malformed. */
function queryUnescape(text: string): string | undefined {
  if (!text.includes('%') && !text.includes('+')) return text;
  const bytes: number[] = [];
  const raw = Buffer.from(text, 'utf8');
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i]!;
    if (b === 0x2b) bytes.push(0x20);
    else if (b === 0x25) {
      const hex = raw.subarray(i + 1, i + 3).toString('latin1');
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return undefined;
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(b);
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * A query string read as Go's url.ParseQuery reads it (what catalogd's handlers see through
 * r.URL.Query()): pairs split at `&`; a pair holding `;` or a malformed escape is dropped, not
 * taken literally; the first value of a key is the one used.
 */
export function goQuery(raw: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of raw.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const key = queryUnescape(eq < 0 ? pair : pair.slice(0, eq));
    const value = queryUnescape(eq < 0 ? '' : pair.slice(eq + 1));
    if (key === undefined || value === undefined) continue;
    const values = out.get(key);
    if (values === undefined) out.set(key, [value]);
    else values.push(value);
  }
  return out;
}
