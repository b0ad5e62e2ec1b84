/**
 * A checker for the CEL rules of `olm.constraint` values. OLM compiles each rule in an environment
 * (operator-framework/api pkg/constraints/cel.go) with one variable, `properties` (the bundle's
 * properties: a list of maps), and one function beyond CEL's standard ones, `semver_compare(a, b)`
 * (an int, like blang/semver's Compare); the rule must be boolean. This checker parses the CEL
 * grammar (github.com/google/cel-spec, doc/langdef.md), resolves names against that environment and
 * infers a coarse type for the result. It does not evaluate anything.
 */

export interface CelProblem {
  message: string;
  /** 1-based column in the rule text. */
  column: number;
}

type Coarse =
  'bool' | 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'null' | 'list' | 'map' | 'type' | 'dyn';

interface Token {
  kind: 'ident' | 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'op' | 'eof';
  text: string;
  pos: number;
}

class CelSyntaxError extends Error {
  readonly pos: number;
  constructor(message: string, pos: number) {
    super(message);
    this.pos = pos;
  }
}

const RESERVED = new Set([
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

const OPERATORS = [
  '&&',
  '||',
  '==',
  '!=',
  '<=',
  '>=',
  '<',
  '>',
  '!',
  '+',
  '-',
  '*',
  '/',
  '%',
  '?',
  ':',
  '.',
  ',',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
];

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] ?? '';
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (src.startsWith('//', i)) {
      const nl = src.indexOf('\n', i);
      i = nl === -1 ? src.length : nl;
      continue;
    }
    const start = i;
    // String and bytes literals, with their r/b prefixes.
    const prefix = /^([rRbB]{0,2})(['"])/.exec(src.slice(i, i + 3));
    if (prefix !== null && /^(|[rR]|[bB]|[rR][bB]|[bB][rR])$/.test(prefix[1] ?? '')) {
      const p = (prefix[1] ?? '').toLowerCase();
      const quote = prefix[2] ?? '"';
      i += p.length;
      const triple = src.startsWith(quote.repeat(3), i);
      const close = triple ? quote.repeat(3) : quote;
      i += close.length;
      for (;;) {
        if (i >= src.length) throw new CelSyntaxError('unterminated string literal', start);
        const ch = src[i];
        if (!triple && (ch === '\n' || ch === '\r')) throw new CelSyntaxError('newline in string literal', i);
        if (ch === '\\' && !p.includes('r')) {
          i += 2;
          continue;
        }
        if (src.startsWith(close, i)) {
          i += close.length;
          break;
        }
        i++;
      }
      out.push({ kind: p.includes('b') ? 'bytes' : 'string', text: src.slice(start, i), pos: start });
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      while (i < src.length && /[A-Za-z0-9_]/.test(src[i] ?? '')) i++;
      out.push({ kind: 'ident', text: src.slice(start, i), pos: start });
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const hex = /^0[xX][0-9a-fA-F]+[uU]?/.exec(src.slice(i));
      if (hex !== null) {
        i += hex[0].length;
        out.push({ kind: /[uU]$/.test(hex[0]) ? 'uint' : 'int', text: hex[0], pos: start });
        continue;
      }
      const num = /^(\d*\.\d+([eE][+-]?\d+)?|\d+[eE][+-]?\d+|\d+)([uU])?/.exec(src.slice(i));
      const text = num?.[0] ?? c;
      i += text.length;
      const isDouble = /[.eE]/.test(num?.[1] ?? '');
      if (isDouble && num?.[3] !== undefined) throw new CelSyntaxError(`invalid number ${text}`, start);
      out.push({ kind: isDouble ? 'double' : num?.[3] !== undefined ? 'uint' : 'int', text, pos: start });
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (op === undefined) throw new CelSyntaxError(`unexpected character ${JSON.stringify(c)}`, start);
    i += op.length;
    out.push({ kind: 'op', text: op, pos: start });
  }
  out.push({ kind: 'eof', text: '', pos: src.length });
  return out;
}

/** Standard functions callable as `f(x)`, with the number of arguments they accept. */
const GLOBAL_FUNCTIONS: Record<string, readonly number[]> = {
  size: [1],
  int: [1],
  uint: [1],
  double: [1],
  string: [1],
  bytes: [1],
  bool: [1],
  type: [1],
  dyn: [1],
  duration: [1],
  timestamp: [1],
  matches: [2],
  // OLM's own (operator-framework/api pkg/constraints/cel.go).
  semver_compare: [2],
};

/** Standard functions callable as `x.f(...)`. */
const MEMBER_FUNCTIONS: Record<string, readonly number[]> = {
  size: [0],
  contains: [1],
  startsWith: [1],
  endsWith: [1],
  matches: [1],
  getDate: [0, 1],
  getDayOfMonth: [0, 1],
  getDayOfWeek: [0, 1],
  getDayOfYear: [0, 1],
  getFullYear: [0, 1],
  getHours: [0, 1],
  getMilliseconds: [0, 1],
  getMinutes: [0, 1],
  getMonth: [0, 1],
  getSeconds: [0, 1],
};

/** Macros: `x.all(v, p)` and friends take a variable name first. */
const MACROS: Record<string, readonly number[]> = {
  all: [2],
  exists: [2],
  exists_one: [2],
  map: [2, 3],
  filter: [2],
};

const RESULT: Record<string, Coarse> = {
  size: 'int',
  int: 'int',
  uint: 'uint',
  double: 'double',
  string: 'string',
  bytes: 'bytes',
  bool: 'bool',
  type: 'type',
  dyn: 'dyn',
  duration: 'dyn',
  timestamp: 'dyn',
  matches: 'bool',
  semver_compare: 'int',
  contains: 'bool',
  startsWith: 'bool',
  endsWith: 'bool',
  all: 'bool',
  exists: 'bool',
  exists_one: 'bool',
  map: 'list',
  filter: 'list',
};

/** Names the environment declares, besides comprehension variables. */
const VARIABLES: Record<string, Coarse> = {
  properties: 'list',
  int: 'type',
  uint: 'type',
  double: 'type',
  bool: 'type',
  string: 'type',
  bytes: 'type',
  list: 'type',
  map: 'type',
  null_type: 'type',
  type: 'type',
};

class Parser {
  private i = 0;
  private readonly scopes: Set<string>[] = [];
  /** Name and overload problems: reported only when the rule parses (as CEL checks after parsing). */
  readonly checkErrors: CelSyntaxError[] = [];
  private readonly toks: Token[];
  constructor(toks: Token[]) {
    this.toks = toks;
  }

  private peek(): Token {
    return this.toks[this.i] ?? { kind: 'eof', text: '', pos: 0 };
  }
  private next(): Token {
    const t = this.peek();
    this.i++;
    return t;
  }
  private isOp(text: string): boolean {
    const t = this.peek();
    return t.kind === 'op' && t.text === text;
  }
  private expect(text: string): Token {
    const t = this.peek();
    if (t.kind !== 'op' || t.text !== text) {
      throw new CelSyntaxError(`expected '${text}', found ${describe(t)}`, t.pos);
    }
    return this.next();
  }

  parse(): Coarse {
    const t = this.expr();
    const rest = this.peek();
    if (rest.kind !== 'eof') throw new CelSyntaxError(`unexpected ${describe(rest)}`, rest.pos);
    return t;
  }

  private expr(): Coarse {
    const cond = this.or();
    if (!this.isOp('?')) return cond;
    this.next();
    const a = this.or();
    this.expect(':');
    const b = this.expr();
    return a === b ? a : 'dyn';
  }
  private or(): Coarse {
    let t = this.and();
    while (this.isOp('||')) {
      this.next();
      this.and();
      t = 'bool';
    }
    return t;
  }
  private and(): Coarse {
    let t = this.relation();
    while (this.isOp('&&')) {
      this.next();
      this.relation();
      t = 'bool';
    }
    return t;
  }
  private relation(): Coarse {
    let t = this.addition();
    for (;;) {
      const tok = this.peek();
      const rel =
        (tok.kind === 'op' && ['<', '<=', '>', '>=', '==', '!='].includes(tok.text)) ||
        (tok.kind === 'ident' && tok.text === 'in');
      if (!rel) return t;
      this.next();
      this.addition();
      t = 'bool';
    }
  }
  private addition(): Coarse {
    let t = this.multiplication();
    while (this.isOp('+') || this.isOp('-')) {
      this.next();
      const u = this.multiplication();
      t = t === u ? t : 'dyn';
    }
    return t;
  }
  private multiplication(): Coarse {
    let t = this.unary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      this.next();
      const u = this.unary();
      t = t === u ? t : 'dyn';
    }
    return t;
  }
  private unary(): Coarse {
    if (this.isOp('!')) {
      this.next();
      this.unary();
      return 'bool';
    }
    if (this.isOp('-')) {
      this.next();
      return this.unary();
    }
    return this.member();
  }
  private member(): Coarse {
    let t = this.primary();
    for (;;) {
      if (this.isOp('.')) {
        this.next();
        const name = this.ident();
        if (this.isOp('(')) t = this.memberCall(name);
        else t = 'dyn';
      } else if (this.isOp('[')) {
        this.next();
        this.expr();
        this.expect(']');
        t = 'dyn';
      } else {
        return t;
      }
    }
  }
  private ident(): Token {
    const t = this.next();
    if (t.kind !== 'ident') throw new CelSyntaxError(`expected an identifier, found ${describe(t)}`, t.pos);
    if (RESERVED.has(t.text)) throw new CelSyntaxError(`reserved identifier: ${t.text}`, t.pos);
    return t;
  }
  private memberCall(name: Token): Coarse {
    const open = this.expect('(');
    const macro = MACROS[name.text];
    if (macro !== undefined) {
      const v = this.ident();
      this.expect(',');
      this.scopes.push(new Set([v.text]));
      let n = 1;
      try {
        this.expr();
        n++;
        while (this.isOp(',')) {
          this.next();
          this.expr();
          n++;
        }
      } finally {
        this.scopes.pop();
      }
      this.expect(')');
      if (!macro.includes(n)) this.checkErrors.push(arity(name, n, open.pos));
      return RESULT[name.text] ?? 'dyn';
    }
    const arities = MEMBER_FUNCTIONS[name.text];
    if (arities === undefined) this.undeclared(name);
    const n = this.args();
    if (arities !== undefined && !arities.includes(n)) this.checkErrors.push(arity(name, n + 1, name.pos));
    return RESULT[name.text] ?? 'dyn';
  }
  /** Arguments up to and including `)`; returns how many. */
  private args(): number {
    let n = 0;
    if (!this.isOp(')')) {
      this.expr();
      n++;
      while (this.isOp(',')) {
        this.next();
        this.expr();
        n++;
      }
    }
    this.expect(')');
    return n;
  }
  private primary(): Coarse {
    const t = this.peek();
    switch (t.kind) {
      case 'int':
      case 'uint':
      case 'double':
      case 'string':
      case 'bytes':
        this.next();
        return t.kind;
      case 'ident': {
        if (t.text === 'true' || t.text === 'false') {
          this.next();
          return 'bool';
        }
        if (t.text === 'null') {
          this.next();
          return 'null';
        }
        const name = this.ident();
        if (this.isOp('(')) return this.globalCall(name);
        if (this.isOp('{')) {
          // A message construction: OLM's environment declares no message types.
          this.undeclared(name);
          this.next();
          this.mapInits();
          return 'dyn';
        }
        if (this.scopes.some((s) => s.has(name.text))) return 'dyn';
        const v = VARIABLES[name.text];
        if (v === undefined) this.undeclared(name);
        return v ?? 'dyn';
      }
      case 'op':
        if (t.text === '(') {
          this.next();
          const inner = this.expr();
          this.expect(')');
          return inner;
        }
        if (t.text === '[') {
          this.next();
          this.list(']');
          return 'list';
        }
        if (t.text === '{') {
          this.next();
          this.mapInits();
          return 'map';
        }
        if (t.text === '.') {
          this.next();
          return this.primary();
        }
        throw new CelSyntaxError(`unexpected ${describe(t)}`, t.pos);
      default:
        throw new CelSyntaxError('unexpected end of expression', t.pos);
    }
  }
  private globalCall(name: Token): Coarse {
    if (name.text === 'has') {
      // has(x.f): the argument must be a field selection.
      this.expect('(');
      const before = this.i;
      this.member();
      const last = this.toks[this.i - 1];
      const prev = this.toks[this.i - 2];
      if (this.i - before < 3 || last?.kind !== 'ident' || prev?.text !== '.') {
        throw new CelSyntaxError('invalid argument to has() macro', name.pos);
      }
      this.expect(')');
      return 'bool';
    }
    const arities = GLOBAL_FUNCTIONS[name.text];
    if (arities === undefined) this.undeclared(name);
    this.expect('(');
    const n = this.args();
    if (arities !== undefined && !arities.includes(n)) this.checkErrors.push(arity(name, n, name.pos));
    return RESULT[name.text] ?? 'dyn';
  }
  private undeclared(name: Token): void {
    this.checkErrors.push(
      new CelSyntaxError(`undeclared reference to '${name.text}' (in container '')`, name.pos),
    );
  }
  private list(close: string): void {
    if (this.isOp(close)) {
      this.next();
      return;
    }
    this.expr();
    while (this.isOp(',')) {
      this.next();
      if (this.isOp(close)) break;
      this.expr();
    }
    this.expect(close);
  }
  private mapInits(): void {
    if (this.isOp('}')) {
      this.next();
      return;
    }
    for (;;) {
      this.expr();
      this.expect(':');
      this.expr();
      if (!this.isOp(',')) break;
      this.next();
      if (this.isOp('}')) break;
    }
    this.expect('}');
  }
}

function arity(name: Token, n: number, pos: number): CelSyntaxError {
  return new CelSyntaxError(
    `found no matching overload for '${name.text}' with ${n} argument${n === 1 ? '' : 's'}`,
    pos,
  );
}

function describe(t: Token): string {
  return t.kind === 'eof' ? 'end of expression' : `'${t.text}'`;
}

/** Check a CEL rule as OLM would compile it; undefined when it compiles to a boolean. */
export function checkCelRule(rule: string): CelProblem | undefined {
  let type: Coarse;
  try {
    if (rule.trim() === '') return { message: 'the rule is empty', column: 1 };
    const parser = new Parser(tokenize(rule));
    type = parser.parse();
    const first = parser.checkErrors[0];
    if (first !== undefined) throw first;
  } catch (e) {
    if (e instanceof CelSyntaxError) return { message: e.message, column: columnOf(rule, e.pos) };
    throw e;
  }
  if (type !== 'bool' && type !== 'dyn') {
    return { message: `cel expressions must have type Bool (this one is ${type})`, column: 1 };
  }
  return undefined;
}

function columnOf(text: string, pos: number): number {
  const nl = text.lastIndexOf('\n', pos - 1);
  return pos - nl;
}
