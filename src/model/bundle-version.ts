/**
 * Reading a bundle's version from its single `olm.package` property, with the messages opm's
 * Mermaid writer and semver template use (`alpha/declcfg/write.go`,
 * `alpha/template/semver/semver.go`).
 */
import { OpmError } from '../errors.js';
import type { Bundle } from '../declcfg/types.js';
import { goQuote } from '../go/fmt.js';
import { SemverError, parseSemver, type SemVer } from './semver.js';
import { isRecord } from '../go/json-value.js';
import { goJsonKind } from '../go/json.js';
import { TYPE_PACKAGE, propertyValue } from '../property/property.js';

export interface PackageProperty {
  packageName: string;
  version: string;
  release?: string;
}

/** Decode an `olm.package` value the way Go's typed decode would (wrong types are errors). */
export function decodePackageProperty(value: unknown, index: number): PackageProperty {
  const fail = (msg: string): never => {
    throw new OpmError(`parse property[${index}] of type "${TYPE_PACKAGE}": ${msg}`);
  };
  if (!isRecord(value))
    return fail(`json: cannot unmarshal ${goJsonKind(value)} into Go value of type property.Package`);
  const out: PackageProperty = { packageName: '', version: '' };
  for (const [k, v] of Object.entries(value)) {
    const key = k.toLowerCase();
    if (key !== 'packagename' && key !== 'version' && key !== 'release') continue;
    if (typeof v !== 'string') {
      const field = key === 'packagename' ? 'packageName' : key;
      return fail(
        `json: cannot unmarshal ${goJsonKind(v)} into Go struct field Package.${field} of type string`,
      );
    }
    if (key === 'packagename') out.packageName = v;
    else if (key === 'version') out.version = v;
    else out.release = v;
  }
  return out;
}

/**
 * The single `olm.package` property of a bundle and its parsed version. Zero or several such
 * properties fail with opm's "multiple" message (opm uses it for both).
 */
export function bundleVersion(b: Bundle): { pkg: PackageProperty; version: SemVer } {
  const found: PackageProperty[] = [];
  (b.properties ?? []).forEach((p, i) => {
    if (p.type !== TYPE_PACKAGE) return;
    try {
      found.push(decodePackageProperty(propertyValue(p), i));
    } catch (e) {
      if (e instanceof OpmError) {
        throw new OpmError(`parse properties for bundle ${goQuote(b.name)}: ${e.message}`, { code: e.code });
      }
      throw e;
    }
  });
  const pkg = found[0];
  if (found.length !== 1 || pkg === undefined) {
    throw new OpmError(
      `bundle ${goQuote(b.name)} has multiple ${goQuote(TYPE_PACKAGE)} properties, expected exactly 1`,
    );
  }
  try {
    return { pkg, version: parseSemver(pkg.version) };
  } catch (e) {
    if (e instanceof SemverError) {
      throw new OpmError(
        `bundle ${goQuote(b.name)} has invalid version ${goQuote(pkg.version)}: ${e.message}`,
      );
    }
    throw e;
  }
}
