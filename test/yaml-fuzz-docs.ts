/**
 * Seeded YAML documents for the differential reader test: FBC bundles whose property values mix
 * what go-yaml v2 reads in its own way — YAML 1.1 scalars, tags, anchors and aliases, merge keys,
 * quoting and escapes, unicode, block scalars, and keys written twice at every depth of the value.
 */
import { seededRandom } from './seeded-random.js';

const PLAIN_SCALARS = [
  'yes',
  'No',
  'on',
  'OFF',
  'y',
  'n',
  '~',
  'null',
  'Null',
  'true',
  'False',
  '0',
  '-0',
  '017',
  '0o17',
  '0x1F',
  '0b101',
  '1_000',
  '+12',
  '-7',
  '9223372036854775807',
  '9223372036854775808',
  '18446744073709551615',
  '99999999999999999999',
  '1.5',
  '.5',
  '-.5e3',
  '1e3',
  '1E-2',
  '6.02e+23',
  '.inf',
  '-.Inf',
  '1_0.5',
  '190:20:30',
  '2001-12-14',
  '2001-12-14t21:59:43.10-05:00',
  '2001-12-14 21:59:43.10 -5',
  '0.1.2',
  'v1.2.3',
  'a b c',
  'é✓😀',
  'x:y',
  'a#b',
  '=',
  '<<',
  '1-2',
];

const QUOTED_SCALARS = [
  "'yes'",
  '"no"',
  "'it''s'",
  '"tab\\there"',
  '"\\u00e9\\x41\\N\\_\\L\\P"',
  '"\\U0001F600"',
  '"line\\nbreak"',
  "''",
  '""',
  '"\\"quoted\\""',
  "'#not a comment'",
  '"  spaces  "',
];

const TAGGED_SCALARS = [
  '!!str 12',
  '!!str yes',
  '!!int 0x10',
  '!!float 3',
  '!!bool on',
  '!!null ~',
  '!!binary aGVsbG8=',
  '!!binary /w==',
  '!!timestamp 2001-12-14',
  '!!value x',
  '!local 42',
  '!<tag:example.com,2000:t> y',
  '!!set x',
  '!!merge <<',
  '!!str',
];

const KEYS = [
  // No float keys: Go keeps 1 and 1.0 apart until JSON, where the order between them is random.
  'name',
  'k',
  'yes',
  'on',
  '1',
  '0x1F',
  '"quoted key"',
  "'single'",
  'é',
  '2001-12-14',
  'a b',
  'true',
  '-1',
  'y',
];

/**
 * `count` bundle documents of package `pkg`, each with one property whose value is generated. The
 * same seed gives the same documents.
 */
export function fuzzBundles(seed: number, count: number, pkg: string): string[] {
  const rnd = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  let anchors = 0;

  function scalar(): string {
    const r = rnd();
    if (r < 0.55) return pick(PLAIN_SCALARS);
    if (r < 0.8) return pick(QUOTED_SCALARS);
    return pick(TAGGED_SCALARS);
  }

  function block(indent: string): string {
    const style = pick(['|', '|-', '|+', '>', '>-']);
    const lines = ['first line', '  more indented', '', 'last é ✓'];
    return `${style}\n${lines.map((l) => (l === '' ? '' : indent + l)).join('\n')}\n`;
  }

  // A value written after `key:` at `indent` (the indent of the key).
  function value(indent: string, depth: number, defined: string[]): string {
    const r = rnd();
    const inner = indent + '  ';
    if (depth >= 3 || r < 0.4) {
      if (rnd() < 0.08) return ' ' + block(inner);
      if (defined.length > 0 && rnd() < 0.1) return ` *${pick(defined)}\n`;
      return ` ${scalar()}\n`;
    }
    const name = `a${anchors++}`;
    const anchor = rnd() < 0.2 ? ` &${name}` : '';
    // An anchor can be aliased once its node is complete (an alias inside it would be recursive).
    const done = (text: string): string => {
      if (anchor !== '') defined.push(name);
      return text;
    };
    if (r < 0.7) return done(`${anchor}\n${mapping(inner, depth + 1, defined)}`);
    if (r < 0.85) return done(`${anchor}\n${sequence(inner, depth + 1, defined)}`);
    // Flow collections.
    const items = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => scalar().replace(/[,[\]{}]/g, ''));
    return done(
      rnd() < 0.5
        ? `${anchor} [${items.join(', ')}]\n`
        : `${anchor} {${items.map((v, i) => `f${i}: ${v}`).join(', ')}}\n`,
    );
  }

  function mapping(indent: string, depth: number, defined: string[]): string {
    const n = 1 + Math.floor(rnd() * 4);
    const keys: string[] = [];
    let out = '';
    const mergeable = defined.filter((a) => a.startsWith('m'));
    if (mergeable.length > 0 && rnd() < 0.3) out += `${indent}<<: *${pick(mergeable)}\n`;
    for (let i = 0; i < n; i++) {
      // A key written twice in this mapping, now and then: go-yaml keeps the last value.
      const key = keys.length > 0 && rnd() < 0.15 ? pick(keys) : pick(KEYS);
      keys.push(key);
      out += `${indent}${key}:${value(indent, depth, defined)}`;
    }
    return out;
  }

  function sequence(indent: string, depth: number, defined: string[]): string {
    const n = 1 + Math.floor(rnd() * 3);
    let out = '';
    for (let i = 0; i < n; i++) out += `${indent}-${value(indent, depth, defined)}`;
    return out;
  }

  const docs: string[] = [];
  for (let i = 0; i < count; i++) {
    anchors = 0;
    const defined: string[] = [];
    // A mapping anchored for merge keys, defined before use.
    const base = rnd() < 0.3 ? `      base: &m0\n        shared: ${scalar()}\n        k: ${scalar()}\n` : '';
    if (base !== '') defined.push('m0');
    const body = mapping('      ', 1, defined);
    docs.push(
      [
        'schema: olm.bundle',
        `name: ${pkg}.v0.0.${i}`,
        `package: ${pkg}`,
        `image: example.com/${pkg}:v0.0.${i}`,
        'properties:',
        '  - type: olm.package',
        '    value:',
        `      packageName: ${pkg}`,
        `      version: 0.0.${i}`,
        '  - type: example.fuzz',
        '    value:',
        base + body,
      ].join('\n'),
    );
  }
  return docs;
}
