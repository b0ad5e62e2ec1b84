/**
 * Version order of opm's package manifests: semver precedence, then build ids compared as
 * pre-release ids are, a version without build id before one with (1.0.0 < 1.0.0+1).
 */
import { compareSemver, parsePreReleaseId, type SemVer } from '../../model/semver.js';

export function BuildIdCompare(a: SemVer, b: SemVer): number {
  const c = compareSemver(a, b);
  if (c !== 0) return c;
  if (a.build.length === 0 && b.build.length === 0) return 0;
  if (a.build.length === 0) return -1;
  if (b.build.length === 0) return 1;
  const pre = (v: SemVer): SemVer => ({ ...v, pre: v.build.map(parsePreReleaseId), build: [] });
  return compareSemver(pre(a), pre(b));
}
