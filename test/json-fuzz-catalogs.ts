/**
 * Seeded catalogs of JSON files for the differential reader test: a few packages with channels,
 * bundles and deprecations, written with what the JSON readers must handle alike — text beyond
 * ASCII in names, keys and values at every depth, every kind of `\u` escape (surrogate pairs, lone
 * surrogates, U+2028, U+2029, U+212A, U+FEFF), invalid UTF-8 bytes, long strings, numbers beyond
 * float64's integers and in every notation, keys written twice in nested values, deep nesting,
 * key order, letter case of keys, and white space of every kind between and around the blobs. The
 * same seed gives the same bytes.
 */
import { seededRandom } from './seeded-random.js';

/** One JSON value as bytes are to be written: its text chosen piece by piece. */
type Node =
  { k: 'raw'; text: Buffer } | { k: 'arr'; items: Node[] } | { k: 'obj'; entries: Array<[Buffer, Node]> };

/** What a generated catalog holds beyond what both tools must read the same way. */
export interface JsonFuzzFeatures {
  /** A file starts with a byte-order mark (docs/compatibility.md row R8). */
  byteOrderMark: boolean;
  /** A key written twice among a blob's own keys (row 29: opm-ts refuses it). */
  topLevelDuplicate: boolean;
  /** A number beyond float64 (row H2: opm-ts refuses it). */
  overflowingNumber: boolean;
}

export interface JsonFuzzFile {
  /** Relative to the catalog directory. */
  path: string;
  bytes: Buffer;
  /**
   * What the reference opm is to read instead, where docs/compatibility.md records that opm-ts reads
   * the file as opm reads these bytes: without a leading byte-order mark (row R8); null for a file
   * of white space only, which opm-ts skips and opm fails on (row 28).
   */
  reference?: Buffer | null;
}

export interface JsonFuzzCatalog {
  files: JsonFuzzFile[];
  features: JsonFuzzFeatures;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

// Text pieces: ASCII, 2-, 3- and 4-byte UTF-8, and the characters the readers and writers treat
// apart (U+2028 and U+2029 escaped by Go's writer, U+212A folding to `k`, U+FEFF, HTML characters,
// U+0085 and U+00A0, a zero-width space, control characters).
const WORDS = [
  'alpha',
  'operator',
  'é',
  'ß',
  'Ωmega',
  'ñandú',
  'ø',
  '✓',
  '€',
  '日本語',
  '─┼─',
  '😀',
  '𝄞',
  '🚀x',
  '\u2028',
  '\u2029',
  '\u212a',
  '\ufeff',
  '\u0085',
  '\u00a0',
  '\u200b',
  '<b>',
  'a&b',
  '>',
  '"q"',
  '\\',
  '/path/',
  '\n',
  '\t',
  '\r',
  ' ',
  '  ',
];

// Control characters: JSON escapes them (DEL excepted), but a YAML reader refuses them, so the
// reference's -o yaml, which reads its own JSON output as YAML, fails on them; in some seeds only.
const CONTROLS = ['\b', '\f', '\u0000', '\u0001', '\u001f', '\u007f'];

// Bytes that are not UTF-8, written raw inside strings: opm reads each as U+FFFD (row R1).
const INVALID_UTF8 = [
  [0xff],
  [0xc3],
  [0x80],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf0, 0x9f, 0x98],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xe2, 0x28, 0xa1],
];

// Escapes of lone surrogates: Go reads each as U+FFFD.
const LONE_SURROGATES = ['\\ud800', '\\uDBFF', '\\udc00', '\\uDFFF', '\\ud83d\\u0041', '\\ude00\\ud83d'];

const NUMBERS = [
  '0',
  '-0',
  '-0.0',
  '0.0',
  '1',
  '-17',
  '42',
  '9007199254740992',
  '9007199254740993',
  '-9007199254740993',
  '18446744073709551615',
  '18446744073709551616',
  '123456789012345678901234567890',
  '1.5',
  '3.14159265358979323846264338327950288',
  '0.1',
  '1e3',
  '1E-7',
  '0.1e+2',
  '-1.0e-0',
  '2.5E+10',
  '1e21',
  '1e308',
  '1.7976931348623157e308',
  '5e-324',
  '1e-400',
  '123e-20',
  '100',
  '1.0',
  '-0e5',
];

// Beyond float64: opm-ts refuses them at load (docs/compatibility.md row H2).
const OVERFLOWING = ['1e400', '-1e400', '1' + '0'.repeat(400)];

const KEYS = [
  'name',
  'k',
  'value',
  'é',
  'ключ',
  '键',
  '😀',
  'a b',
  '',
  '\u212a',
  'K',
  'Name',
  '1',
  '10',
  '2',
  '<tag>',
  'a&b',
  '\u2028',
  '\ufeff',
  'z',
  'Z',
  '\\',
  '"',
];

// Strings a YAML writer must quote or write in a style of its own, as keys and as values.
const YAML_SPECIAL = [
  'yes',
  'No',
  'on',
  'OFF',
  'y',
  'n',
  'true',
  'null',
  '~',
  '<<',
  '-',
  '?',
  ':',
  '1e3',
  '0x10',
  '017',
  '.inf',
  '-.5',
  '2001-12-14',
  ' lead',
  'trail ',
  '#',
  'a #b',
  '- a',
  'a: b',
  '@x',
  '`x',
  '!tag',
  '&a',
  '*a',
  '%x',
  '|',
  '>',
  '{a}',
  '[a]',
  'a,b',
  "'q'",
  '"',
  'line\nbreak',
  'trailing\n',
  '\n',
  '\t',
  '=',
];

type WsStyle = 'opm' | 'compact' | 'tabs' | 'crlf' | 'two' | 'random';

/** One seeded catalog directory. */
export function fuzzJsonCatalog(seed: number): JsonFuzzCatalog {
  const rnd = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const chance = (p: number): boolean => rnd() < p;
  const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
  const features: JsonFuzzFeatures = {
    byteOrderMark: false,
    topLevelDuplicate: false,
    overflowingNumber: false,
  };
  // How often this catalog escapes a character it could write raw.
  const escapeRate = pick([0, 0.05, 0.3, 1]);
  const words = chance(0.3) ? [...WORDS, ...CONTROLS] : WORDS;
  // Constructs whose outcome docs/compatibility.md records as different, in a few seeds each.
  const wantBom = chance(0.1);
  const wantTopDuplicate = chance(0.05);
  const wantOverflow = chance(0.04);
  // Package names beyond ASCII render, but fail validate (not RFC 1123 labels): in some seeds only.
  const namesBeyondAscii = chance(0.4);

  const hex4 = (n: number): string => {
    const h = n.toString(16).padStart(4, '0');
    return chance(0.5) ? h : h.toUpperCase();
  };

  /** A string as JSON text, each character raw or escaped; `noise` adds what only free text may hold. */
  function str(s: string, noise = false): Node {
    const parts: Buffer[] = [Buffer.from('"')];
    // Where free text gets one sequence of invalid bytes and one lone surrogate, now and then.
    const chars = [...s].length;
    const invalidAt = noise && chance(0.15) ? int(0, chars) : -1;
    const loneAt = noise && chance(0.1) ? int(0, chars) : -1;
    let at = 0;
    const extra = (): void => {
      if (at === invalidAt) parts.push(Buffer.from(pick(INVALID_UTF8)));
      if (at === loneAt) parts.push(Buffer.from(pick(LONE_SURROGATES)));
      at++;
    };
    for (const ch of s) {
      extra();
      const cp = ch.codePointAt(0) as number;
      const escape = chance(escapeRate);
      let text: string;
      if (ch === '"') text = escape ? '\\u0022' : '\\"';
      else if (ch === '\\') text = escape ? '\\u005c' : '\\\\';
      else if (cp < 0x20) {
        const short: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r' };
        text = short[cp] !== undefined && !escape ? short[cp] : `\\u${hex4(cp)}`;
      } else if (ch === '/') text = escape ? '\\/' : '/';
      else if (!escape) text = ch;
      else if (cp > 0xffff) {
        const v = cp - 0x10000;
        text = `\\u${hex4(0xd800 + (v >> 10))}\\u${hex4(0xdc00 + (v & 0x3ff))}`;
      } else text = `\\u${hex4(cp)}`;
      parts.push(Buffer.from(text));
    }
    extra();
    parts.push(Buffer.from('"'));
    return { k: 'raw', text: Buffer.concat(parts) };
  }

  const raw = (text: string): Node => ({ k: 'raw', text: Buffer.from(text) });
  const key = (s: string): Buffer => (str(s) as { text: Buffer }).text;
  const obj = (entries: Array<[string, Node]>): Node => ({
    k: 'obj',
    entries: entries.map(([k, v]) => [key(k), v]),
  });

  function text(): string {
    const r = rnd();
    if (r < 0.06) return '';
    if (r < 0.1) return 'x'.repeat(int(17, 20) * 1024); // long, no spaces
    if (r < 0.13) return Array.from({ length: 3000 }, () => pick(words.slice(0, 14))).join(' ');
    if (r < 0.17)
      return Array.from({ length: int(1, 6) }, () => pick(['\n', '\t', '"', '\\', '\u2028'])).join('');
    if (r < 0.27) return pick(YAML_SPECIAL);
    return Array.from({ length: int(1, 6) }, () => pick(words)).join(pick(['', ' ', '-']));
  }

  /** A value of any kind, nested up to `depth` more levels. */
  function value(depth: number): Node {
    const r = rnd();
    if (depth <= 0 || r < 0.45) {
      const s = rnd();
      if (s < 0.5) return str(text(), true);
      if (s < 0.8) return raw(pick(NUMBERS));
      return raw(pick(['true', 'false', 'null']));
    }
    if (r < 0.7) return object(depth - 1);
    return { k: 'arr', items: Array.from({ length: int(0, 4) }, () => value(depth - 1)) };
  }

  /** An object of generated keys; a key written twice now and then, its last value the one kept. */
  function object(depth: number): Node {
    const entries: Array<[Buffer, Node]> = [];
    const n = int(0, 5);
    for (let i = 0; i < n; i++) {
      // No U+0085 in keys: opm's -o yaml fails on them (it reads its JSON output back as YAML, where
      // U+0085 is a line break, which an implicit key may not hold), while opm-ts writes the key
      // with a space in its place, as both write U+0085 in a value.
      const k = chance(0.3)
        ? text().slice(0, 12).replaceAll('\u0085', '')
        : chance(0.2)
          ? pick(YAML_SPECIAL)
          : pick(KEYS);
      // Now and then with invalid bytes or a lone surrogate in it too (and so its twin).
      const written = (str(k, chance(0.2)) as { text: Buffer }).text;
      entries.push([written, value(depth)]);
      if (chance(0.1)) entries.push([written, value(depth)]);
    }
    return { k: 'obj', entries };
  }

  /** Nested `levels` deep, objects and arrays in turn. */
  function deep(levels: number): Node {
    let v: Node = str(text(), true);
    for (let i = 0; i < levels; i++)
      v = chance(0.5) ? { k: 'arr', items: [v] } : obj([[pick(['d', 'é', '😀']), v]]);
    return v;
  }

  const word = (): string => pick(['é', 'ü', '✓', '日本', '😀', 'ß', 'x', 'op', '𝄞', 'Ω']);
  const ascii = (): string => pick(['etcd', 'prom', 'vault', 'kafka', 'redis', 'mongo']);
  const uniqueName = (i: number): string =>
    namesBeyondAscii && chance(0.6)
      ? `${word()}${ascii()}${i}${chance(0.5) ? word() : ''}`
      : `${ascii()}-${i}`;

  interface Blob {
    node: Node;
    /** The blob's own keys, for a duplicate written among them. */
    entries: Array<[Buffer, Node]>;
  }
  const blobs: Blob[][] = []; // per package
  const extras: Blob[] = []; // blobs of other schemas
  const blob = (entries: Array<[string, Node]>, extra = true): Blob => {
    const e: Array<[Buffer, Node]> = entries.map(([k, v]) => [key(k), v]);
    // Keys the typed blobs do not know (dropped by both, row 30), beyond ASCII too.
    if (extra && chance(0.25)) e.push([key(pick(['ünknown', 'extra', '键', 'x😀'])), value(2)]);
    if (chance(0.3)) shuffle(e);
    return { node: { k: 'obj', entries: e }, entries: e };
  };
  function shuffle<T>(xs: T[]): void {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [xs[i], xs[j]] = [xs[j] as T, xs[i] as T];
    }
  }
  // A typed key in another letter case, which Go's decoder matches without regard to case, the
  // characters beyond ASCII that fold to an ASCII letter (U+017F, U+212A) included.
  const cased = (k: string): string =>
    chance(0.06)
      ? pick([
          k.toUpperCase(),
          k[0]?.toUpperCase() + k.slice(1),
          k.replace('s', '\u017f'),
          k.replace('k', '\u212a'),
        ])
      : k;

  const packages = int(1, 3);
  for (let p = 0; p < packages; p++) {
    const pkg = uniqueName(p);
    const own: Blob[] = [];
    const channels = Array.from({ length: int(1, 2) }, (_, i) => (i === 0 ? 'stable' : `fast-${word()}`));
    const count = int(1, 4);
    const bundles = Array.from({ length: count }, (_, i) => `${pkg}.v${i}.${int(0, 9)}.0${word()}`);
    const pkgEntries: Array<[string, Node]> = [
      ['schema', str('olm.package')],
      [cased('name'), str(pkg)],
      [cased('defaultChannel'), str(pick(channels))],
    ];
    if (chance(0.5)) pkgEntries.push([cased('description'), str(text(), true)]);
    if (chance(0.2))
      pkgEntries.push([
        'icon',
        obj([
          ['base64data', str('PHN2Zy8+')],
          ['mediatype', str('image/svg+xml')],
        ]),
      ]);
    if (chance(0.2)) pkgEntries.push(['properties', { k: 'arr', items: [property(p)] }]);
    own.push(blob(pkgEntries));
    for (const ch of channels) {
      const entries: Node[] = bundles.map((b, i) => {
        const e: Array<[string, Node]> = [[cased('name'), str(b)]];
        if (i > 0) e.push(['replaces', str(bundles[i - 1] as string)]);
        if (i > 1 && chance(0.4)) e.push(['skips', { k: 'arr', items: [str(bundles[0] as string)] }]);
        if (chance(0.3)) e.push(['skipRange', str(`<${i}.0.0`)]);
        return obj(e);
      });
      own.push(
        blob([
          ['schema', str('olm.channel')],
          [cased('package'), str(pkg)],
          ['name', str(ch)],
          ['entries', { k: 'arr', items: entries }],
        ]),
      );
    }
    bundles.forEach((b, i) => {
      const props: Node[] = [
        obj([
          ['type', str('olm.package')],
          [
            'value',
            obj([
              [cased('packageName'), str(pkg)],
              [cased('version'), str(`${i}.0.0`)],
            ]),
          ],
        ]),
      ];
      for (let n = int(0, 4); n > 0; n--) props.push(property(n));
      if (chance(0.4)) shuffle(props);
      const entries: Array<[string, Node]> = [
        ['schema', str('olm.bundle')],
        ['name', str(b)],
        ['package', str(pkg)],
        [cased('image'), str(`quay.io/fuzz/${ascii()}:v${i}`)],
        [cased('properties'), { k: 'arr', items: props }],
      ];
      if (chance(0.5))
        entries.push([
          'relatedImages',
          {
            k: 'arr',
            items: [
              obj([
                ['name', str(chance(0.5) ? '' : word())],
                ['image', str(`quay.io/fuzz/rel:${i}`)],
              ]),
            ],
          },
        ]);
      own.push(blob(entries));
    });
    if (chance(0.5)) {
      // A deprecation of the bundle or channel `name`, its message with noise.
      const deprecated = (schema: string, name: string): Node =>
        obj([
          [
            'reference',
            obj([
              ['schema', str(schema)],
              ['name', str(name)],
            ]),
          ],
          ['message', str(text(), true)],
        ]);
      const entries: Node[] = [deprecated('olm.bundle', bundles[0] as string)];
      if (chance(0.5)) entries.push(deprecated('olm.channel', channels[0] as string));
      if (chance(0.3))
        entries.push(
          obj([
            ['reference', obj([['schema', str('olm.package')]])],
            ['message', str(text())],
          ]),
        );
      own.push(
        blob([
          ['schema', str('olm.deprecations')],
          ['package', str(pkg)],
          ['entries', { k: 'arr', items: entries }],
        ]),
      );
    }
    // A blob of a schema of its own: opm keeps every key of it, top-level keys beyond ASCII included.
    if (chance(0.4)) {
      const e: Array<[string, Node]> = [
        ['schema', str(pick(['fuzz.custom', 'fuzz.ünïcode/v1', 'olm.fuzz😀']))],
        ['package', str(pkg)],
      ];
      // Each key once: a key written twice among a blob's own keys is a case of its own (row 29).
      const keys = new Set<string>();
      for (let n = int(1, 4); n > 0; n--) keys.add(pick(['name', 'é', '键', '😀', 'ZZ', 'num', 'a\u2028b']));
      // A name is a string to opm (anything else fails the whole catalog).
      for (const k of keys) e.push([k, k === 'name' ? str(text(), true) : value(3)]);
      own.push(blob(e, false));
    }
    blobs.push(own);
  }
  if (chance(0.2))
    extras.push(
      blob(
        [
          ['schema', str('fuzz.global')],
          ['data', value(3)],
          ['ü', raw(pick(NUMBERS))],
        ],
        false,
      ),
    );

  /** A property of a generated type, or one of the typed ones opm knows. */
  function property(i: number): Node {
    const r = rnd();
    if (r < 0.15)
      return obj([
        ['type', str('olm.gvk')],
        [
          'value',
          obj([
            ['group', str(`${ascii()}.io`)],
            ['kind', str('Kind')],
            ['version', str(`v${i}`)],
          ]),
        ],
      ]);
    if (r < 0.3) {
      const data = Buffer.from(
        JSON.stringify({ kind: 'ConfigMap', metadata: { name: `é${i}` }, data: { x: text() } }),
      ).toString('base64');
      return obj([
        ['type', str('olm.bundle.object')],
        ['value', obj([['data', str(data)]])],
      ]);
    }
    if (r < 0.45) {
      const e: Array<[string, Node]> = [
        ['displayName', str(text(), true)],
        ['description', str(text(), true)],
        ['keywords', { k: 'arr', items: [str(word()), str(text())] }],
        [
          'annotations',
          obj(Array.from({ length: int(0, 3) }, (): [string, Node] => [pick(KEYS), str(text(), true)])),
        ],
      ];
      if (chance(0.3)) e.push(['maturity', str('stable')]);
      if (chance(0.3)) shuffle(e);
      return obj([
        ['type', str('olm.csv.metadata')],
        ['value', obj(e)],
      ]);
    }
    const type = pick(['fuzz.value', 'fuzz.ünïcode', 'fuzz.😀', 'olm.maxOpenShiftVersion']);
    let v: Node;
    const s = rnd();
    if (s < 0.1) v = raw('null');
    else if (s < 0.2) v = raw(pick(['true', 'false']));
    else if (s < 0.35) v = raw(pick(NUMBERS));
    else if (s < 0.5) v = { k: 'arr', items: Array.from({ length: int(0, 4) }, () => value(2)) };
    else if (s < 0.6) v = deep(int(20, 80));
    else v = object(3);
    return obj([
      ['type', str(type)],
      ['value', v],
    ]);
  }

  // The constructs of the recorded differences, placed after the data is generated.
  const all = [...blobs.flat(), ...extras];
  if (wantTopDuplicate) {
    const b = pick(all);
    // The same key again, before or after, with its own value or with another of the same kind.
    const [k, v] = pick(b.entries);
    b.entries.splice(int(0, b.entries.length), 0, [k, v.k === 'raw' && chance(0.5) ? str(text()) : v]);
    features.topLevelDuplicate = true;
  }
  if (wantOverflow) {
    const b = pick(all);
    b.entries.push([key('size'), raw(pick(OVERFLOWING))]);
    features.overflowingNumber = true;
  }

  // Blobs into files: one per package, several per package in a folder, or mixed.
  const files: JsonFuzzFile[] = [];
  const layout = pick(['per-package', 'split', 'one-file']);
  const groups: Array<{ path: string; blobs: Blob[] }> = [];
  if (layout === 'one-file') groups.push({ path: 'catalog.json', blobs: all });
  else {
    blobs.forEach((own, p) => {
      if (layout === 'per-package') groups.push({ path: `p${p}/catalog.json`, blobs: own });
      else
        own.forEach((b, i) => groups.push({ path: `p${p}/${i}-${pick(['a', 'é', '😀'])}.json`, blobs: [b] }));
    });
    if (extras.length > 0) groups.push({ path: 'extra.json', blobs: extras });
  }
  for (const g of groups) {
    const style: WsStyle = pick(['opm', 'opm', 'compact', 'tabs', 'crlf', 'two', 'random']);
    const between = pick(['\n', '', ' ', '\r\n\r\n', '\t', '\n\n']);
    const parts: Buffer[] = [];
    if (chance(0.15)) parts.push(Buffer.from(pick([' ', '\n', '\r\n', '\t \n'])));
    g.blobs.forEach((b, i) => {
      if (i > 0) parts.push(Buffer.from(between));
      parts.push(write(b.node, style, 0));
    });
    if (style !== 'compact' || chance(0.5)) parts.push(Buffer.from(style === 'crlf' ? '\r\n' : '\n'));
    files.push({ path: g.path, bytes: Buffer.concat(parts) });
  }
  if (wantBom) {
    const f = files.find(() => chance(0.5)) ?? (files[0] as JsonFuzzFile);
    f.reference = f.bytes;
    f.bytes = Buffer.concat([BOM, f.bytes]);
    features.byteOrderMark = true;
  }
  // Files that hold no blob.
  if (chance(0.2)) files.push({ path: 'empty.json', bytes: Buffer.alloc(0) });
  if (chance(0.2))
    files.push({
      path: 'blank.json',
      bytes: Buffer.from(pick([' ', '\n\n', '\r\n\t ', '\t'])),
      reference: null,
    });

  /** A value's text in a white-space style. */
  function write(n: Node, style: WsStyle, depth: number): Buffer {
    const out: string[] = [];
    const bufs: Buffer[] = [];
    const flush = (): void => {
      if (out.length > 0) bufs.push(Buffer.from(out.join('')));
      out.length = 0;
    };
    const unit = { opm: '    ', compact: '', tabs: '\t', crlf: '  ', two: '  ', random: '' }[style];
    const nl = style === 'crlf' ? '\r\n' : style === 'compact' ? '' : '\n';
    const ws = (): string => (style === 'random' ? pick(['', ' ', '\t', '\n', '\r\n', '  \n\t']) : '');
    const indent = (d: number): string => (nl === '' ? '' : unit.repeat(d));
    const colon = style === 'compact' ? ':' : style === 'random' ? `${ws()}:${ws()}` : ': ';
    const go = (v: Node, d: number): void => {
      if (v.k === 'raw') {
        flush();
        bufs.push(v.text);
        return;
      }
      const [open, close] = v.k === 'obj' ? ['{', '}'] : ['[', ']'];
      const items = v.k === 'obj' ? v.entries : v.items;
      out.push(open);
      if (items.length === 0) {
        out.push(ws(), close);
        return;
      }
      items.forEach((item, i) => {
        if (i > 0) out.push(',');
        out.push(nl, indent(d + 1), ws());
        if (v.k === 'obj') {
          const [k, x] = item as [Buffer, Node];
          flush();
          bufs.push(k);
          out.push(colon);
          go(x, d + 1);
        } else go(item as Node, d + 1);
        out.push(ws());
      });
      out.push(nl, indent(d), close);
    };
    go(n, depth);
    flush();
    return Buffer.concat(bufs);
  }

  return { files, features };
}
