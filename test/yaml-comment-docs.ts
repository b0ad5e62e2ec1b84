/**
 * Seeded YAML with comments everywhere YAML allows them, for the differential tests of the readers
 * (test/reference/yaml-comments.test.ts, test/reference/bundle-dirs.test.ts): full-line comments at
 * every column between mapping entries and sequence items, before the first key, after `key:` with
 * a nested value, after `---`; comments after values, flow collections and block scalar headers;
 * `#` inside plain and quoted scalars and as content of block scalars; comment texts holding `: `,
 * `- ` and tabs. The text is written with `\n`; callers may turn it into CRLF.
 */
import { seededRandom } from './seeded-random.js';

// The texts after `#`: some look like entries, some hold tabs, one is empty.
const COMMENT_TEXTS = [
  ' a comment',
  '',
  '#',
  ' key: value',
  ' - item',
  ': colon first',
  ' -- dashes -- ',
  ' é ✓ 😀',
  '\ttab inside',
  ' trailing spaces   ',
  ' "quoted" and \'single\'',
  ' [flow, like] {a: b}',
  ' |',
  ' &anchor *alias !tag',
];

// Plain scalars holding `#` with no space before it, and other plain texts.
const PLAIN = [
  'a#b',
  'c#',
  'http://example.com/x#frag',
  'x:y',
  'plain text',
  'v1.2.3',
  '1.10',
  '42',
  'true',
  'no',
  '~',
  'a-b',
  '-x',
  'é✓',
];

// Quoted scalars holding `#`, `: ` and `- `.
const QUOTED = [
  "'# not a comment'",
  '"# not a comment"',
  "'a # b'",
  '"a # b"',
  '"tab\\t# x"',
  "'key: value'",
  '"- item"',
  "'it''s # here'",
  '"\\u0023 hash"',
  "''",
  '""',
  '"yes"',
];

// Scalars that are strings (a package's description must be one).
const TEXTS = [
  'a#b',
  'c#',
  'plain text',
  'http://example.com/x#frag',
  "'# not a comment'",
  '"a # b"',
  "'key: value'",
];

// Keys: plain, with `#` inside, quoted with `#` or `: `.
const KEYS = [
  'name',
  'value',
  'k',
  'a#b',
  'key#',
  '"# quoted key"',
  "'a: b'",
  'spaced key',
  'é',
  'x-y',
  'data',
  'list',
  'nested',
  'z',
];

// Content lines of block scalars: lines starting with `#` are content there.
const BLOCK_LINES = ['# not a comment', 'text # not a comment', '#', '  # more indented', 'plain line', ''];

/**
 * Entries (at the indentation `i`, their nested lines at `j`) with comments beside rarer
 * constructs; keys start with `r` and a digit, apart from KEYS, and the anchor's name is made
 * from the depth, so that an alias follows its anchor in the same mapping.
 */
const RARE: readonly ((i: string, j: string, depth: number) => string)[] = [
  (i, j, d) => `${i}r0: &n${d} # c\n${j}x: 1\n${i}r1: *n${d} # c\n`,
  (i, j) => `${i}? # c\n${j}r2\n${i}: v # c\n`,
  (i, j) => `${i}r3: !!str # c\n${j}value\n`,
  (i, j) => `${i}r4: 'multi\n${j}# not a comment\n${j}line' # c\n`,
  (i, j) => `${i}r5: "multi\n${j}# not a comment\n${j}line" # c\n`,
  (i, j) => `${i}r6: a\n${j}b#c\n${j}# a comment ends the scalar\n`,
  (i, j) => `${i}r7: {a: # c\n${j}  1, b: 2 # c\n${j}}\n`,
  (i) => `${i}r8: # a key with no value\n`,
  (i, j) => `${i}r9: !!map # c\n${j}a: 1\n`,
  (i) => `${i}"r10 # x": v #c#d\n`,
];

/** The generator's state: one seeded stream of choices. */
export interface CommentedYaml {
  rnd: () => number;
  pick: <T>(xs: readonly T[]) => T;
  /** Full-line comments placed around a block at `indent` (deeper, the same, shallower, column 0), or ''. */
  lines: (indent: number, chance?: number) => string;
  /** A comment after a value on its line (` # x`, `\t# x`, `#` after spaces), or ''. */
  after: (chance?: number, dash?: boolean) => string;
  /** A scalar's text: plain or quoted, `#` inside often. */
  scalar: () => string;
  /** What follows `key:` for a string value at `indent`: a scalar that resolves to a string, or a block scalar. */
  text: (indent: number) => string;
  /** What follows `key:` for a key at `indent`: a scalar, a block scalar, a flow or a nested block. */
  value: (indent: number, depth: number) => string;
  /** A block mapping at `indent` with distinct keys. */
  mapping: (indent: number, depth: number) => string;
  /** A block sequence at `indent`. */
  sequence: (indent: number, depth: number) => string;
  /** A literal or folded block scalar (header after `key:`), with `#` lines in its content. */
  blockScalar: (indent: number) => string;
}

const sp = (n: number): string => ' '.repeat(n);

/**
 * The generator for `seed`. With `fullLineOnly`, comments stand on lines of their own only and the
 * YAML stays within what the block reader of src/yaml/block-reader.ts takes (block collections,
 * one-line scalars, literal block scalars), so that reader, not js-yaml, skips those comments. With
 * `tabs`, tabs also stand where go-yaml refuses them and js-yaml does not: in the indentation of
 * comment lines and after a sequence's `-` (src/yaml/go-tabs.ts).
 */
export function commentedYaml(seed: number, fullLineOnly = false, tabs = false): CommentedYaml {
  const rnd = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;

  function commentLine(indent: number): string {
    // The column: the block's, deeper, shallower, or the first; with `tabs`, a tab in the
    // indentation now and then (go-yaml refuses it unless it follows a plain scalar, right of its
    // block).
    const col = pick([indent, indent, indent + 2, indent + 5, Math.max(0, indent - 2), 0]);
    const tab = tabs && rnd() < 0.3 ? '\t' : '';
    return `${sp(col)}${tab}#${pick(COMMENT_TEXTS)}\n`;
  }

  function lines(indent: number, chance = 0.3): string {
    let out = '';
    while (rnd() < chance && out.length < 200) out += commentLine(indent);
    return out;
  }

  // Tabs before the `#`: after a value or a key's `:`; after a sequence's `-`, where go-yaml refuses
  // them, only with `tabs`.
  function after(chance = 0.3, dash = false): string {
    if (fullLineOnly || rnd() >= chance) return '';
    return `${pick(dash && !tabs ? [' ', '  '] : [' ', '  ', '\t', ' \t'])}#${pick(COMMENT_TEXTS)}`;
  }

  function scalar(): string {
    return rnd() < 0.6 ? pick(PLAIN) : pick(QUOTED);
  }

  function text(indent: number): string {
    return rnd() < 0.5 ? blockScalar(indent) : ` ${pick(TEXTS)}${after()}\n`;
  }

  function blockScalar(indent: number): string {
    const style = fullLineOnly ? '|' : pick(['|', '>']);
    const chomp = pick(['', '-', '+']);
    // An indentation indicator, now and then, before or after the chomping indicator.
    const indicator = rnd() < 0.3 ? '2' : '';
    const header = rnd() < 0.5 ? style + chomp + indicator : style + indicator + chomp;
    const content = indent + 2;
    const n = 1 + Math.floor(rnd() * 4);
    const body: string[] = [];
    // The first line may not be more indented without an indicator, nor start the block empty.
    body.push(
      indicator === '' ? pick(['first # line', '# first']) : pick(BLOCK_LINES.filter((l) => l !== '')),
    );
    for (let i = 1; i < n; i++) body.push(pick(BLOCK_LINES));
    const bodyText = body.map((l) => (l === '' ? '' : sp(content) + l)).join('\n');
    // A comment line less indented than the content ends the scalar; one as deep is content.
    return ` ${header}${after(0.3)}\n${bodyText}\n`;
  }

  function flow(indent: number): string {
    const items = Array.from({ length: Math.floor(rnd() * 3) }, () =>
      pick(['a#b', 'x', '1', "'# q'", '"a, b"', 'é']),
    );
    const map = rnd() < 0.4;
    const entries = map ? items.map((v, i) => `f${i}: ${v}`) : items;
    const [open, close] = map ? ['{', '}'] : ['[', ']'];
    if (rnd() < 0.6 || entries.length === 0) return ` ${open}${entries.join(', ')}${close}${after(0.4)}\n`;
    // Over several lines, deeper than the key, with comments after items and on lines of their own.
    const inner = sp(indent + 4);
    let out = ` ${open}${after(0.4)}\n`;
    entries.forEach((e, i) => {
      out += `${inner}${e}${i < entries.length - 1 ? ',' : ''}${after(0.4)}\n`;
      if (rnd() < 0.3) out += `${inner}#${pick(COMMENT_TEXTS)}\n`;
    });
    return `${out}${sp(indent + 2)}${close}${after(0.4)}\n`;
  }

  function value(indent: number, depth: number): string {
    const r = rnd();
    if (depth >= 4 || r < 0.4) return ` ${scalar()}${after()}\n`;
    if (r < 0.5) return blockScalar(indent);
    if (r < 0.6) return fullLineOnly ? ` ${scalar()}\n` : flow(indent);
    // A nested block, with a comment after the key and comment lines before its first entry.
    const head = `${after(0.4)}\n${lines(indent + 2)}`;
    if (r < 0.82) return head + mapping(indent + 2, depth + 1);
    // A sequence may sit at the key's own column.
    return head + sequence(rnd() < 0.3 ? indent : indent + 2, depth + 1);
  }

  function mapping(indent: number, depth: number): string {
    const n = 1 + Math.floor(rnd() * 4);
    const keys = new Set<string>();
    while (keys.size < n) keys.add(pick(KEYS));
    let out = '';
    let first = true;
    for (const key of keys) {
      if (!first) out += lines(indent);
      first = false;
      out += `${sp(indent)}${key}:${value(indent, depth)}`;
    }
    // Now and then one entry more whose comments sit beside an anchor, an alias, a tag, a complex
    // key or in a multi-line quoted or plain scalar.
    if (!fullLineOnly && rnd() < 0.15) out += pick(RARE)(sp(indent), sp(indent + 2), depth);
    return out;
  }

  function sequence(indent: number, depth: number): string {
    const n = 1 + Math.floor(rnd() * 3);
    let out = '';
    for (let i = 0; i < n; i++) {
      if (i > 0) out += lines(indent);
      const r = rnd();
      if (depth < 4 && r < 0.35) {
        // A mapping starting on the item's line, its other entries at the column after `- `.
        const m = mapping(indent + 2, depth + 1);
        out += `${sp(indent)}- ${m.slice(indent + 2)}`;
      } else if (depth < 4 && r < 0.45) {
        out += `${sp(indent)}-${after(0.5, true)}\n${lines(indent + 2)}${mapping(indent + 2, depth + 1)}`;
      } else {
        out += `${sp(indent)}- ${scalar()}${after()}\n`;
      }
    }
    return out;
  }

  return { rnd, pick, lines, after, scalar, text, value, mapping, sequence, blockScalar };
}

/**
 * How a file's text is finished: CRLF line ends now and then, the final newline dropped now and then
 * (neither with `fullLineOnly`: the block reader leaves both to js-yaml).
 */
export function finishText(text: string, rnd: () => number, fullLineOnly = false): string {
  let out = text;
  if (fullLineOnly) return out;
  if (rnd() < 0.15) out = out.replace(/\n/g, '\r\n');
  if (rnd() < 0.2) out = out.replace(/\r?\n$/, '');
  return out;
}

/**
 * A catalog file (`catalog.yaml`) of package `pkg` with comments everywhere: a package, a channel
 * and two bundles, `---` separated, their property values generated by commentedYaml; one seed in
 * three with full-line comments only, one in five with tabs in comment lines' indentation.
 */
export function commentedCatalog(seed: number, pkg: string): string {
  // One seed in three stays within the block reader's subset.
  const fullLineOnly = seed % 3 === 0;
  // One in five with tabs where go-yaml refuses most of them.
  const y = commentedYaml(seed, fullLineOnly, seed % 5 === 4);
  const { rnd, pick, lines, after, value } = y;
  // A separator line: `---`, with a comment after it now and then, and comment lines after it.
  const separator = (): string => `---${rnd() < 0.25 ? ` #${pick(COMMENT_TEXTS)}` : ''}\n${lines(0, 0.4)}`;
  const entry = (key: string, text: string, indent = 0): string =>
    `${lines(indent)}${sp(indent)}${key}: ${text}${after()}\n`;

  const pkgDoc =
    entry('schema', 'olm.package') +
    entry('name', pkg) +
    entry('defaultChannel', pick(['stable', "'stable'", '"stable"'])) +
    // A description is a string: a block scalar or a scalar that resolves to one.
    `${lines(0)}description:${y.text(0)}`;

  let entries = '';
  for (let i = 0; i < 2; i++) {
    entries += lines(2);
    entries += `  - name: ${pkg}.v0.${i}.0${after()}\n`;
    if (i > 0) entries += `${lines(4)}    replaces: ${pkg}.v0.${i - 1}.0${after()}\n`;
    if (rnd() < 0.4) entries += `${lines(4)}    skips:${after()}\n${lines(4)}    - a#b${after()}\n`;
  }
  const channelDoc =
    entry('schema', 'olm.channel') +
    entry('package', pkg) +
    entry('name', 'stable') +
    `${lines(0)}entries:${after(0.4)}\n${entries}`;

  const bundleDoc = (i: number): string => {
    let props = '';
    props += `${lines(2)}  - type: olm.package${after()}\n`;
    props += `${lines(4)}    value:${after(0.4)}\n${lines(6)}`;
    props += `      packageName: ${pkg}${after()}\n${lines(6)}      version: 0.${i}.0${after()}\n`;
    for (let p = 0; p < 2; p++) {
      props += `${lines(2)}  - type: example.comment${p}${after()}\n`;
      props += `${lines(4)}    value:${value(4, 1)}`;
    }
    return (
      entry('schema', 'olm.bundle') +
      entry('name', `${pkg}.v0.${i}.0`) +
      entry('package', pkg) +
      entry('image', `example.com/${pkg}:v0.${i}.0`) +
      `${lines(0)}properties:${after(0.4)}\n${props}` +
      `${lines(0)}relatedImages:${after(0.4)}\n${lines(2)}  - name: a#b${after()}\n` +
      `    image: example.com/${pkg}:v0.${i}.0${after()}\n${lines(0, 0.3)}`
    );
  };

  // The first document starts with `---` or with comment lines and its first key (not with
  // comments before a `---`: an empty document, row 28 of docs/compatibility.md).
  const start = rnd() < 0.5 ? separator() : lines(0, 0.6);
  const text = start + [pkgDoc, channelDoc, bundleDoc(0), bundleDoc(1)].join(separator());
  return finishText(text, rnd, fullLineOnly);
}
