/**
 * The checks OLM v1's CRD upgrade safety preflight runs on one schema property that changed
 * between two CRD versions (operator-controller's defaults over crdify's validations): each looks
 * at its own keyword, then forgets it, and whatever still differs afterwards is an "unhandled"
 * change, which the preflight refuses too. Descriptions may change freely; enum values may be added.
 */
import { compareUtf8 } from '../go/utf8.js';
import { goQuote } from '../go/fmt.js';
import { formatGoFloatG } from '../go/json-number.js';
import { canonical, type Schema } from './schema.js';

/** The name of a check on a property, as the preflight names it in its messages. */
export type PropertyCheck =
  | 'default'
  | 'enum'
  | 'maximum'
  | 'maxItems'
  | 'maxLength'
  | 'maxProperties'
  | 'minimum'
  | 'minItems'
  | 'minLength'
  | 'minProperties'
  | 'nullable'
  | 'pattern'
  | 'required'
  | 'type'
  | 'unhandled';

export interface PropertyProblem {
  check: PropertyCheck;
  message: string;
}

/** Go's `%v` of a []string: `[a b]`. */
function goList(items: readonly string[]): string {
  return `[${items.join(' ')}]`;
}

function num(v: unknown, float: boolean): string {
  return float ? formatGoFloatG(v as number) : String(v);
}

function maxCheck(a: unknown, b: unknown, float: boolean): string | undefined {
  if (a === undefined && b !== undefined)
    return `maximum constraint added when there was none previously : ${num(b, float)}`;
  if (a !== undefined && b !== undefined && (b as number) < (a as number))
    return `maximum decreased : ${num(a, float)} -> ${num(b, float)}`;
  return undefined;
}

function minCheck(a: unknown, b: unknown, float: boolean): string | undefined {
  if (a === undefined && b !== undefined)
    return `minimum constraint added when there was none previously : ${num(b, float)}`;
  if (a !== undefined && b !== undefined && (b as number) > (a as number))
    return `minimum increased : ${num(a, float)} -> ${num(b, float)}`;
  return undefined;
}

type Check = (a: Schema, b: Schema) => string | undefined;

const BOUNDS: [PropertyCheck, string, boolean, typeof maxCheck][] = [
  ['maximum', 'maximum', true, maxCheck],
  ['maxItems', 'maxItems', false, maxCheck],
  ['maxLength', 'maxLength', false, maxCheck],
  ['maxProperties', 'maxProperties', false, maxCheck],
  ['minimum', 'minimum', true, minCheck],
  ['minItems', 'minItems', false, minCheck],
  ['minLength', 'minLength', false, minCheck],
  ['minProperties', 'minProperties', false, minCheck],
];

const CHECKS: [PropertyCheck, string, Check][] = [
  [
    'default',
    'default',
    (a, b) => {
      const [x, y] = [a.default as string | undefined, b.default as string | undefined];
      if (x === undefined && y !== undefined)
        return `default added when there was none previously : ${goQuote(y)}`;
      if (x !== undefined && y === undefined) return `default value removed : ${goQuote(x)}`;
      if (x !== undefined && y !== undefined && x !== y)
        return `default value changed : ${goQuote(x)} -> ${goQuote(y)}`;
      return undefined;
    },
  ],
  [
    'enum',
    'enum',
    (a, b) => {
      const before = new Set((a.enum ?? []) as string[]);
      const after = new Set((b.enum ?? []) as string[]);
      const removed = [...before].filter((e) => !after.has(e)).sort(compareUtf8);
      if (before.size === 0 && after.size > 0)
        return `enum constraint added when there was none previously : ${goList([...after].sort(compareUtf8))}`;
      if (removed.length > 0) return `allowed enum values removed : ${goList(removed)}`;
      return undefined; // additions are allowed by OLM's configuration
    },
  ],
  ...BOUNDS.map(([check, key, float, f]): [PropertyCheck, string, Check] => [
    check,
    key,
    (a, b) => f(a[key], b[key], float),
  ]),
  [
    'nullable',
    'nullable',
    (a, b) => {
      const [x, y] = [a.nullable === true, b.nullable === true];
      if (x === y) return undefined;
      return `${y ? 'nullable added' : 'nullable removed'} : ${String(x)} -> ${String(y)}`;
    },
  ],
  [
    'pattern',
    'pattern',
    (a, b) => {
      const [x, y] = [(a.pattern ?? '') as string, (b.pattern ?? '') as string];
      if (x === y) return undefined;
      const what = x === '' ? 'pattern added' : y === '' ? 'pattern removed' : 'pattern changed';
      return `${what} : ${goQuote(x)} -> ${goQuote(y)}`;
    },
  ],
  [
    'required',
    'required',
    (a, b) => {
      const before = new Set((a.required ?? []) as string[]);
      const added = [...new Set((b.required ?? []) as string[])]
        .filter((r) => !before.has(r))
        .sort(compareUtf8);
      return added.length > 0 ? `new required fields: ${goList(added)}` : undefined;
    },
  ],
  [
    'type',
    'type',
    (a, b) => {
      const [x, y] = [(a.type ?? '') as string, (b.type ?? '') as string];
      return x === y ? undefined : `type changed : ${goQuote(x)} -> ${goQuote(y)}`;
    },
  ],
];

/** What is left different once the handled keywords are set aside, as `key old -> new` items. */
function unhandledDetails(a: Schema, b: Schema): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(compareUtf8);
  const out: string[] = [];
  for (const k of keys) {
    const [x, y] = [a[k], b[k]];
    if (canonical(x) === canonical(y)) continue;
    const show = (v: unknown): string =>
      v === undefined ? '<empty>' : typeof v === 'object' ? '<complex value>' : JSON.stringify(v);
    out.push(`${k} ${show(x)} -> ${show(y)}`);
  }
  return out;
}

/**
 * The problems of one property (children dropped: `properties` and `items` are compared at their
 * own paths). `a` is the old schema, `b` the new one; neither is changed.
 */
export function compareProperty(a: Schema, b: Schema): PropertyProblem[] {
  const x: Schema = { ...a, description: undefined };
  const y: Schema = { ...b, description: undefined };
  const out: PropertyProblem[] = [];
  for (const [check, key, f] of CHECKS) {
    const message = f(x, y);
    if (message !== undefined) out.push({ check, message });
    x[key] = undefined;
    y[key] = undefined;
  }
  const rest = unhandledDetails(clean(x), clean(y));
  if (rest.length > 0)
    out.push({ check: 'unhandled', message: `unhandled changes found (${rest.join('; ')})` });
  return out;
}

function clean(s: Schema): Schema {
  return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined));
}
