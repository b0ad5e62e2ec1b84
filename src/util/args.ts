/**
 * Checks of the arguments of the library's exported functions, for callers that no compiler checks
 * (plain JavaScript, `any`): a wrong argument is a TypeError naming the function, the argument and
 * what it must be, thrown before anything is read, pulled or written. Without them such a call
 * fails later with a message about our internals (`opts.refs.map is not a function`), or not at all.
 */

/** What a value is, for the message: `a string`, `an array`, `undefined`, `null`. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  const t = typeof value;
  return t === 'object' || t === 'undefined' ? `an ${t}` : `a ${t}`;
}

function fail(where: string, what: string, value: unknown, hint?: string): never {
  throw new TypeError(
    `${where} must be ${what}, not ${kindOf(value)}${hint === undefined ? '' : ` (${hint})`}`,
  );
}

/** `value` is a non-empty string. `where` names the argument: `validateCatalog(dir)`. */
export function expectString(value: unknown, where: string, hint?: string): asserts value is string {
  if (typeof value !== 'string') fail(where, 'a string', value, hint);
  if (value === '')
    throw new TypeError(`${where} must not be empty${hint === undefined ? '' : ` (${hint})`}`);
}

/** `value` is a string when given. */
export function expectOptionalString(value: unknown, where: string): asserts value is string | undefined {
  if (value !== undefined && typeof value !== 'string') fail(where, 'a string', value);
}

/** `value` is a plain object (an options object, not an array or a string). */
export function expectObject(value: unknown, where: string, hint?: string): asserts value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(where, 'an object', value, hint);
}

/** `value` is an options object, or left out. */
export function expectOptions(value: unknown, where: string): asserts value is object | undefined {
  if (value !== undefined) expectObject(value, where);
}

/** `value` is an array of strings. */
export function expectStringArray(value: unknown, where: string, hint?: string): asserts value is string[] {
  if (!Array.isArray(value)) fail(where, 'an array of strings', value, hint);
  value.forEach((v: unknown, i) => {
    if (typeof v !== 'string') fail(`${where}[${i}]`, 'a string', v);
  });
}

/** `value` is a function when given. */
export function expectOptionalFunction(value: unknown, where: string): void {
  if (value !== undefined && typeof value !== 'function') fail(where, 'a function', value);
}

/** `value` is a boolean when given. */
export function expectOptionalBoolean(value: unknown, where: string): asserts value is boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') fail(where, 'a boolean', value);
}

const CONFIG_LISTS = ['packages', 'channels', 'bundles', 'others', 'deprecations'] as const;

/**
 * `value` looks like a DeclarativeConfig: an object with the five blob lists (what `render`,
 * `loadCatalogDir(...).cfg` and `emptyConfig` return). A LoadResult (`{ cfg, findings }`) passed
 * whole is the usual slip, and is named as such.
 */
export function expectConfig(value: unknown, where: string): void {
  expectObject(value, where, 'a DeclarativeConfig, as render() returns');
  const o = value as Record<string, unknown>;
  if ('cfg' in o && 'findings' in o) {
    throw new TypeError(
      `${where} must be a DeclarativeConfig: pass the \`cfg\` of loadCatalogDir's result, not the result`,
    );
  }
  for (const key of CONFIG_LISTS) {
    if (!Array.isArray(o[key])) {
      throw new TypeError(
        `${where} must be a DeclarativeConfig: its \`${key}\` must be an array, not ${kindOf(o[key])}`,
      );
    }
  }
}
