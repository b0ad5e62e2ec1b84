/**
 * Reading a bundle's version from its single `olm.package` property, with the messages opm's
 * Mermaid writer and semver template use (`alpha/declcfg/write.go`,
 * `alpha/template/semver/semver.go`).
 */
import { OpmError } from '../errors.js';
import type { Bundle } from '../declcfg/types.js';
import { goQuote } from '../go/fmt.js';
import { SemverError, parseSemver, type SemVer } from './semver.js';
import type { JsonValue } from '../go/json-value.js';
import {
  PropertyParseError,
  TYPE_PACKAGE,
  parsePackageProperty,
  propertyValue,
  type PackageProperty,
} from '../property/property.js';

/** Decode an `olm.package` value as opm's property.Parse does; a failure is an OpmError. */
export function decodePackageProperty(value: JsonValue | undefined, index: number): PackageProperty {
  try {
    return parsePackageProperty(value, index);
  } catch (e) {
    if (e instanceof PropertyParseError) throw new OpmError(e.message);
    throw e;
  }
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
