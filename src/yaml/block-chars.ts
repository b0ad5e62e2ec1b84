/**
 * The characters of the block reader (block-reader.ts): those it leaves to js-yaml, the escapes of
 * double-quoted scalars, and the indicators that cannot start a plain scalar.
 */
// js-yaml refuses these anywhere in the input (its PATTERN_NON_PRINTABLE: control characters and
// unpaired surrogates), and the caller's reader must be the one to say so; carriage returns and
// byte-order marks are left to it as well. A single character class is much faster to test than
// the surrogate pairing, which is checked only when there are surrogates at all. Written as strings:
// source transforms may not keep surrogate escapes in regular expression literals.
// eslint-disable-next-line no-control-regex
const UNUSUAL = new RegExp('[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x84\\x86-\\x9f\\ufeff\\ufffe\\uffff]');
const SURROGATE = new RegExp('[\\ud800-\\udfff]');
const UNPAIRED = new RegExp(
  '[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?:[^\\ud800-\\udbff]|^)[\\udc00-\\udfff]',
);

export function unusual(text: string, wellFormed: boolean): boolean {
  return UNUSUAL.test(text) || (!wellFormed && SURROGATE.test(text) && UNPAIRED.test(text));
}

/** The bytes UNUSUAL finds in an ASCII text (NUL aside: catalog files holding one are refused before). */
const UNUSUAL_ASCII: readonly number[] = [
  0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14,
  0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x7f,
];

/**
 * Whether the bytes of an ASCII text without NUL hold none of the characters the block reader leaves
 * to js-yaml, so that the texts decoded from them need not be tested (readBlockYaml's `usual`): one
 * native search per character over a file's bytes takes a third of the time of the expression over
 * its documents' texts (docs/performance.md).
 */
export function usualAscii(bytes: Buffer): boolean {
  for (const c of UNUSUAL_ASCII) if (bytes.includes(c)) return false;
  return true;
}

export const SPACE = 0x20;
export const NL = 0x0a;
export const TAB = 0x09;
export const COLON = 0x3a;
export const HASH = 0x23;
export const DASH = 0x2d;
export const PLUS = 0x2b;
export const DQUOTE = 0x22;
export const SQUOTE = 0x27;
export const BACKSLASH = 0x5c;

/** The one-character escapes of double-quoted scalars (as js-yaml reads them). */
export const SIMPLE_ESCAPES = new Map<number, string>(
  (
    [
      ['0', '\x00'],
      ['a', '\x07'],
      ['b', '\x08'],
      ['t', '\t'],
      ['\t', '\t'],
      ['n', '\n'],
      ['v', '\x0b'],
      ['f', '\x0c'],
      ['r', '\r'],
      ['e', '\x1b'],
      [' ', ' '],
      ['"', '"'],
      ['/', '/'],
      ['\\', '\\'],
      ['N', '\x85'],
      ['_', '\xa0'],
      ['L', '\u2028'],
      ['P', '\u2029'],
    ] as const
  ).map(([k, v]) => [k.charCodeAt(0), v]),
);
export const HEX = /^[0-9a-fA-F]+$/;

/** Characters that cannot start a plain scalar here (YAML indicators, and `-`, `?`, `:` alone). */
export function isIndicator(c: number): boolean {
  switch (c) {
    case 0x2c: // ,
    case 0x5b: // [
    case 0x5d: // ]
    case 0x7b: // {
    case 0x7d: // }
    case HASH:
    case 0x26: // &
    case 0x2a: // *
    case 0x21: // !
    case 0x7c: // |
    case 0x3e: // >
    case SQUOTE:
    case DQUOTE:
    case 0x25: // %
    case 0x40: // @
    case 0x60: // `
    case 0x3f: // ?
    case COLON:
    case DASH:
    case SPACE:
    case TAB:
    case NL:
      return true;
    default:
      return false;
  }
}
