/**
 * `.indexignore` files (opm reads them with github.com/joelanford/ignore): gitignore-style patterns
 * whose domain is the directory holding the file. Patterns of all files are combined in discovery
 * order and the last pattern that matches a path decides. Only file paths are ever tested, so a
 * negation can re-include a file under an ignored directory.
 */

type Segment = ComponentGlob | '**' | '';

interface IgnorePattern {
  /** Path components of the directory holding the `.indexignore` file. */
  domain: string[];
  negate: boolean;
  dirOnly: boolean;
  /** A pattern containing `/` is anchored to its domain; otherwise it matches any one component. */
  anchored: boolean;
  segments: Segment[];
  /** A segment that can never match (malformed class, `**` inside a name). */
  broken: boolean;
}

/** One token of a component glob: each matches exactly one character, except `*`. */
type Token =
  | { kind: 'star' }
  | { kind: 'any' }
  | { kind: 'char'; cp: number }
  | { kind: 'class'; negate: boolean; ranges: [number, number][] };

function matchesOne(t: Token, cp: number): boolean {
  switch (t.kind) {
    case 'any':
      return true;
    case 'char':
      return t.cp === cp;
    case 'class': {
      const inside = t.ranges.some(([lo, hi]) => lo <= cp && cp <= hi);
      return t.negate ? !inside : inside;
    }
    default:
      return false;
  }
}

/**
 * A Go path/filepath.Match pattern for one path component. Matching keeps only the position after
 * the last `*` to fall back to, so it takes at most (name length × pattern length) steps whatever
 * the pattern: a crafted `.indexignore` (from a pulled catalog image) cannot make it backtrack.
 */
class ComponentGlob {
  private readonly tokens: Token[];
  constructor(tokens: Token[]) {
    this.tokens = tokens;
  }

  test(name: string): boolean {
    const cps = Array.from(name, (c) => c.codePointAt(0) ?? 0);
    const toks = this.tokens;
    let p = 0;
    let n = 0;
    let starP = -1;
    let starN = 0;
    while (n < cps.length) {
      const t = toks[p];
      if (t !== undefined && t.kind === 'star') {
        starP = p++;
        starN = n;
      } else if (t !== undefined && matchesOne(t, cps[n] ?? 0)) {
        p++;
        n++;
      } else if (starP >= 0) {
        p = starP + 1;
        n = ++starN;
      } else return false;
    }
    while (toks[p]?.kind === 'star') p++;
    return p === toks.length;
  }
}

/** Go path/filepath.Match for one path component; undefined when malformed. */
export function componentPattern(glob: string): ComponentGlob | undefined {
  const tokens: Token[] = [];
  const cps = Array.from(glob);
  const cp = (c: string): number => c.codePointAt(0) ?? 0;
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i] ?? '';
    if (c === '*') {
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (c === '?') tokens.push({ kind: 'any' });
    else if (c === '\\') {
      const next = cps[++i];
      if (next === undefined) return undefined;
      tokens.push({ kind: 'char', cp: cp(next) });
    } else if (c === '[') {
      const parsed = parseClass(cps, i + 1);
      if (!parsed) return undefined;
      tokens.push(parsed.token);
      i = parsed.end;
    } else tokens.push({ kind: 'char', cp: cp(c) });
  }
  return new ComponentGlob(tokens);
}

/** A `[...]` class starting after `[` at index `from`; `end` is the index of the closing `]`. */
function parseClass(cps: string[], from: number): { token: Token; end: number } | undefined {
  let i = from;
  let negate = false;
  if (cps[i] === '^') {
    negate = true;
    i++;
  }
  const ranges: [number, number][] = [];
  let count = 0;
  // One class character: `\x` escapes x; a bare `-` or `]` where a character is expected is malformed.
  const char = (): string | undefined => {
    const c = cps[i];
    if (c === undefined || c === '-' || c === ']') return undefined;
    i++;
    if (c !== '\\') return c;
    const e = cps[i++];
    return e;
  };
  for (;;) {
    if (cps[i] === ']' && count > 0) break;
    const lo = char();
    if (lo === undefined) return undefined;
    let hi = lo;
    if (cps[i] === '-') {
      i++;
      const h = char();
      if (h === undefined) return undefined;
      hi = h;
    }
    // A reversed range matches nothing, as in Go.
    const [l, h] = [lo.codePointAt(0) ?? 0, hi.codePointAt(0) ?? 0];
    if (l <= h) ranges.push([l, h]);
    count++;
  }
  return { token: { kind: 'class', negate, ranges }, end: i };
}

function parseLine(line: string, domain: string[]): IgnorePattern | undefined {
  let p = line.trim();
  if (p === '' || p.startsWith('#')) return undefined;
  const negate = p.startsWith('!');
  if (negate) p = p.slice(1);
  const dirOnly = p.endsWith('/');
  if (dirOnly) p = p.slice(0, -1);
  const anchored = p.includes('/');
  let broken = false;
  const segments = p.split('/').map((s): Segment => {
    if (anchored && (s === '' || s === '**')) return s;
    if (anchored && s.includes('**')) broken = true;
    const re = componentPattern(s);
    if (!re) broken = true;
    return re ?? '';
  });
  return { domain, negate, dirOnly, anchored, segments, broken };
}

function matchesComponent(seg: Segment, name: string): boolean {
  return seg instanceof ComponentGlob && seg.test(name);
}

/** Any component matches; a directory-only pattern must match a component that is not the last. */
function unanchoredMatch(p: IgnorePattern, path: string[]): boolean {
  const seg = p.segments[0] ?? '';
  const i = path.findIndex((name) => matchesComponent(seg, name));
  if (i === -1) return false;
  return !(p.dirOnly && i === path.length - 1);
}

/**
 * Segments are matched from the start of the path; `**` skips directories up to the first component
 * matching the next segment (first match, no backtracking, as opm's matcher does); what is left of
 * the path once the pattern is used up lies beneath a matched directory and is matched too.
 */
function anchoredMatch(p: IgnorePattern, path: string[]): boolean {
  let matched = false;
  let skipping = false;
  let rest = 0;
  for (let s = 0; s < p.segments.length; s++) {
    const seg = p.segments[s] ?? '';
    if (seg === '') {
      skipping = false;
      continue;
    }
    if (seg === '**') {
      if (s === p.segments.length - 1) break;
      skipping = true;
      continue;
    }
    if (rest >= path.length) return false;
    if (skipping) {
      skipping = false;
      const at = path.findIndex((name, i) => i >= rest && matchesComponent(seg, name));
      if (at === -1) return false;
      rest = at + 1;
      matched = true;
    } else {
      if (!matchesComponent(seg, path[rest] ?? '')) return false;
      rest++;
      matched = true;
    }
  }
  if (matched && p.dirOnly && rest >= path.length) return false;
  return matched;
}

function patternMatches(p: IgnorePattern, path: string[]): boolean {
  if (p.broken || path.length <= p.domain.length) return false;
  for (let i = 0; i < p.domain.length; i++) if (path[i] !== p.domain[i]) return false;
  const rel = path.slice(p.domain.length);
  return p.anchored ? anchoredMatch(p, rel) : unanchoredMatch(p, rel);
}

/** The combined patterns of every `.indexignore` file of a catalog. */
export class IndexIgnore {
  private readonly patterns: IgnorePattern[] = [];

  /**
   * Add the patterns of one `.indexignore` file. `dir` is the directory holding it, relative to the
   * catalog root with `/` separators (`''` for the root). Call in discovery (walk) order.
   */
  add(dir: string, text: string): void {
    const domain = dir === '' || dir === '.' ? [] : dir.split('/');
    for (const line of text.split('\n')) {
      const p = parseLine(line, domain);
      if (p) this.patterns.push(p);
    }
  }

  /** Whether the file at `path` (relative to the root, `/` separators) is ignored. */
  ignores(path: string): boolean {
    if (this.patterns.length === 0) return false;
    const parts = path.split('/');
    for (let i = this.patterns.length - 1; i >= 0; i--) {
      const p = this.patterns[i];
      if (p && patternMatches(p, parts)) return !p.negate;
    }
    return false;
  }
}
