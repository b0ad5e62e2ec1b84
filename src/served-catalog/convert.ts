/**
 * The model → API conversion of opm's catalog server (operator-registry `pkg/api/model_to_api.go`
 * and the bundle objects of `alpha/declcfg/load.go`): a model bundle as the `Bundle` message, with
 * its manifests decoded, its CSV found or synthesised, its properties and dependencies as JSON text.
 */
import type { Bundle } from '../declcfg/types.js';
import { goStruct } from '../go/go-struct.js';
import { marshal } from '../go/json-encode.js';
import { isRecord } from '../go/json-value.js';
import type { ModelBundle } from '../model/model.js';
import { formatSemver } from '../model/semver.js';
import {
  propertyValue,
  TYPE_BUNDLE_OBJECT,
  TYPE_CSV_METADATA,
  TYPE_GVK,
  TYPE_GVK_REQUIRED,
  TYPE_PACKAGE,
  TYPE_PACKAGE_REQUIRED,
} from '../property/property.js';
import { parseYamlDocument } from '../yaml/yaml11.js';
import type { Property } from '../property/types.js';
import { field, asString } from '../go/json-decode.js';
import { synthesizeCsv } from './csv.js';
import type { ApiBundle, ApiDependency, ApiGroupVersionKind, ApiProperty } from '../api-contract/messages.js';

/** A bundle the server cannot convert (opm fails its cache build with this text). */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversionError';
  }
}

/** A property value as opm stores it after decoding: compact JSON, map keys sorted, no HTML escaping. */
export function propertyText(p: Property): string {
  const v = propertyValue(p);
  return v === undefined ? 'null' : marshal(v, false);
}

/**
 * The JSON text of a manifest as apimachinery's `yaml.ToJSON` gives it: text that starts with `{`
 * (after white space) is taken as it is, anything else is read as YAML and written as Go's
 * json.Marshal writes a map (keys sorted, HTML-safe).
 */
export function manifestJson(data: string): string {
  const text = Buffer.from(data, 'base64').toString('utf8');
  if (/^\s*\{/u.test(text)) return text;
  return marshal(parseYamlDocument(text) ?? null, true);
}

/** The JSON of every `olm.bundle.object` of a bundle blob (its payloads restored), in order. */
export function bundleObjects(blob: Bundle | undefined): string[] {
  const out: string[] = [];
  for (const p of blob?.properties ?? []) {
    if (p.type !== TYPE_BUNDLE_OBJECT) continue;
    const v = propertyValue(p);
    const data = isRecord(v) ? v.data : undefined;
    out.push(manifestJson(typeof data === 'string' ? data : ''));
  }
  return out;
}

function isCsv(json: string): boolean {
  try {
    const v: unknown = JSON.parse(json);
    return isRecord(v) && v.kind === 'ClusterServiceVersion';
  } catch {
    return false;
  }
}

function gvkOf(p: Property): ApiGroupVersionKind {
  const v = propertyValue(p);
  const o = isRecord(v) ? v : {};
  return {
    group: asString(field(o, 'group'), 'GVK.group'),
    version: asString(field(o, 'version'), 'GVK.version'),
    kind: asString(field(o, 'kind'), 'GVK.kind'),
  };
}

/** `olm.gvk.required` and `olm.package.required` as the Dependency list, in property order. */
export function dependencies(props: readonly Property[]): ApiDependency[] {
  const out: ApiDependency[] = [];
  for (const p of props) {
    if (p.type === TYPE_GVK_REQUIRED) out.push({ type: TYPE_GVK, value: propertyText(p) });
    else if (p.type === TYPE_PACKAGE_REQUIRED) {
      const v = propertyValue(p);
      const o = isRecord(v) ? v : {};
      const value = goStruct({
        packageName: asString(field(o, 'packageName'), 'PackageRequired.packageName'),
        version: asString(field(o, 'versionRange'), 'PackageRequired.versionRange'),
      });
      out.push({ type: TYPE_PACKAGE, value: marshal(value, false) });
    }
  }
  return out;
}

/** What the conversion needs beyond the model bundle. */
export interface ConvertOptions {
  /** Leave out csvJson and object (a ListBundles message of a bundle with an image). */
  withoutManifests?: boolean;
  /** The bundle's blob with its payloads, when the loader left them on disk. */
  restore?: (blob: Bundle) => Bundle;
}

/**
 * The `Bundle` message of a model bundle in its channel, untrimmed (replaces and skips set).
 * Throws ConversionError with opm's text when the properties do not allow one.
 */
export function toApiBundle(b: ModelBundle, opts: ConvertOptions = {}): ApiBundle {
  const props = b.properties;
  const packages = props.filter((p) => p.type === TYPE_PACKAGE);
  if (packages.length !== 1) {
    throw new ConversionError(
      `parse properties: expected exactly 1 property of type "${TYPE_PACKAGE}", found ${packages.length}`,
    );
  }
  const metadatas = props.filter((p) => p.type === TYPE_CSV_METADATA);
  if (metadatas.length > 1) {
    throw new ConversionError(
      `parse properties: expected at most 1 property of type "${TYPE_CSV_METADATA}", found ${metadatas.length}`,
    );
  }
  const pkgValue = propertyValue(packages[0] as Property);
  const version = asString(field(isRecord(pkgValue) ? pkgValue : {}, 'version'), 'Package.version');

  let csvJson = '';
  let object: string[] = [];
  if (!opts.withoutManifests) {
    const blob = b.blob !== undefined && opts.restore !== undefined ? opts.restore(b.blob) : b.blob;
    object = bundleObjects(blob);
    csvJson = object.find(isCsv) ?? '';
    const meta = metadatas[0];
    if (csvJson === '' && meta !== undefined) {
      csvJson = synthesizeCsv({
        name: b.name,
        version: b.version === undefined ? '0.0.0' : formatSemver(b.version),
        metadata: propertyValue(meta),
        packageDescription: b.package.description,
        packageIcon: b.package.icon,
        relatedImages: b.relatedImages,
      });
      if (object.length === 0) object = [csvJson];
    }
  }
  const properties: ApiProperty[] = props
    .filter((p) => p.type !== TYPE_BUNDLE_OBJECT && p.type !== TYPE_CSV_METADATA)
    .map((p) => ({ type: p.type, value: propertyText(p) }));
  return {
    csvName: b.name,
    packageName: b.package.name,
    channelName: b.channel.name,
    csvJson,
    object,
    bundlePath: b.image,
    providedApis: props.filter((p) => p.type === TYPE_GVK).map(gvkOf),
    requiredApis: props.filter((p) => p.type === TYPE_GVK_REQUIRED).map(gvkOf),
    version,
    skipRange: b.skipRange,
    dependencies: dependencies(props),
    properties,
    replaces: b.replaces,
    skips: [...b.skips],
    deprecation: b.deprecation === undefined ? undefined : { message: b.deprecation.message },
  };
}
