/**
 * Bundle releases (operator-registry `alpha/model/versionrelease.go`): a dot-separated list of
 * semver pre-release identifiers, at most 20 characters, that orders bundles sharing one version.
 */
import { goQuote } from '../go/fmt.js';
import { comparePreReleaseId, parsePreReleaseId, SemverError, type PreReleaseId } from './semver.js';

export type Release = PreReleaseId[];

/** Parse a release; '' is "no release". Throws SemverError with opm's (newline-joined) message. */
export function parseRelease(s: string): Release {
  if (s === '') return [];
  if (s.length > 20)
    throw new SemverError(`invalid release ${goQuote(s)}: exceeds maximum length of 20 characters`);
  const errs: string[] = [];
  const out: Release = [];
  s.split('.').forEach((seg, i) => {
    try {
      out.push(parsePreReleaseId(seg));
    } catch (e) {
      if (!(e instanceof SemverError)) throw e;
      errs.push(`invalid release ${goQuote(s)}: segment ${i}: ${e.message}`);
    }
  });
  if (errs.length > 0) throw new SemverError(errs.join('\n'));
  return out;
}

export function compareRelease(a: Release, b: Release): number {
  if (a.length === 0 && b.length === 0) return 0;
  if (a.length === 0) return -1;
  if (b.length === 0) return 1;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined) break;
    const c = comparePreReleaseId(x, y);
    if (c !== 0) return c;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

export function formatRelease(r: Release): string {
  return r.map((p) => ('num' in p ? p.num.toString() : p.str)).join('.');
}
