/** One `WWW-Authenticate` challenge: scheme (lower-case) and its parameters (lower-case keys). */
export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;

/**
 * Parse RFC 7235 challenges. Several may share one header, and a quoted `scope` may itself contain
 * commas (`repository:a:pull,push`), so a naive split on commas is wrong.
 */
export function parseChallenges(headers: string | readonly string[] | undefined): Challenge[] {
  if (headers === undefined) return [];
  const all = typeof headers === 'string' ? [headers] : headers;
  return all.flatMap(parseOne);
}

function parseOne(s: string): Challenge[] {
  const out: Challenge[] = [];
  let i = 0;
  const skipSep = (): void => {
    while (i < s.length && (s[i] === ' ' || s[i] === ',' || s[i] === '\t')) i++;
  };
  const skipSpace = (): void => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t')) i++;
  };
  const token = (): string => {
    const start = i;
    while (i < s.length && TOKEN_CHAR.test(s.charAt(i))) i++;
    return s.slice(start, i);
  };
  // Bounded: every pass consumes at least one character or stops.
  while (i < s.length) {
    skipSep();
    const scheme = token().toLowerCase();
    if (scheme === '') break;
    const params: Record<string, string> = {};
    for (;;) {
      skipSep();
      const save = i;
      const key = token();
      skipSpace();
      if (key === '' || s[i] !== '=') {
        // Not a parameter: the start of the next challenge.
        i = save;
        break;
      }
      i++;
      skipSpace();
      let value = '';
      if (s[i] === '"') {
        i++;
        while (i < s.length && s[i] !== '"') {
          if (s[i] === '\\' && i + 1 < s.length) i++;
          value += s[i];
          i++;
        }
        i++;
      } else {
        value = token();
      }
      params[key.toLowerCase()] = value;
    }
    out.push({ scheme, params });
  }
  return out;
}
