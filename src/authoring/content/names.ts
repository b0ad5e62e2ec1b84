/**
 * Kubernetes' name and label checks, in its words (the texts opm's validators embed), and
 * blang/semver's tolerant version parse.
 */
import { parseSemver, SemverError, type SemVer } from '../../model/semver.js';

function regexError(msg: string, re: string, examples: string[]): string {
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${re}')`;
}

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';
const LABEL_VALUE = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?';
const whole = (re: string): RegExp => new RegExp(`^(?:${re})$`);

/** Byte length, as Go's len() of a string. */
const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push('must be no more than 253 characters');
  if (!whole(DNS1123_SUBDOMAIN).test(value))
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN,
        ['example.com'],
      ),
    );
  return errs;
}

export function dns1035LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push('must be no more than 63 characters');
  if (!whole(DNS1035_LABEL).test(value))
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL,
        ['my-name', 'abc-123'],
      ),
    );
  return errs;
}

export function dns1123LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push('must be no more than 63 characters');
  if (!whole(DNS1123_LABEL).test(value))
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL,
        ['my-name', '123-abc'],
      ),
    );
  return errs;
}

export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push('must be no more than 63 bytes');
  if (!whole(LABEL_VALUE).test(value))
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE,
        ['MyValue', 'my_value', '12345'],
      ),
    );
  return errs;
}

/**
 * blang/semver's ParseTolerant: spaces and one leading `v` trimmed, each of the first three
 * dot-separated parts stripped of leading zeros (a `0` put back when nothing or no digit leads),
 * missing parts filled with `0`, then the strict parse. Throws SemverError with blang's text.
 */
export function parseTolerant(text: string): SemVer {
  let s = text.trim();
  if (s.startsWith('v')) s = s.slice(1);
  const first = s.indexOf('.');
  const second = first === -1 ? -1 : s.indexOf('.', first + 1);
  const parts =
    first === -1
      ? [s]
      : second === -1
        ? [s.slice(0, first), s.slice(first + 1)]
        : [s.slice(0, first), s.slice(first + 1, second), s.slice(second + 1)];
  for (let i = 0; i < parts.length; i++) {
    let p = parts[i] ?? '';
    if (p.length > 1) {
      p = p.replace(/^0+/, '');
      if (p === '' || !/^[0-9]/.test(p)) p = `0${p}`;
      parts[i] = p;
    }
  }
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1] ?? ''))
      throw new SemverError('Short version cannot contain PreRelease/Build meta data');
    while (parts.length < 3) parts.push('0');
  }
  return parseSemver(parts.join('.'));
}

/** blang/semver's strict Parse error, or undefined. */
export function strictVersionError(text: string): string | undefined {
  try {
    parseSemver(text);
    return undefined;
  } catch (e) {
    if (e instanceof SemverError) return e.message;
    throw e;
  }
}
