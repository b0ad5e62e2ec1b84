/**
 * A parsed registry+v1 bundle → the `olm.bundle` blob opm renders for it: the property set and
 * its order, related images, and the bundle objects.
 */
import { OpmError } from '../errors.js';
import { RawJson } from '../go/raw-json.js';
import type { Bundle, RelatedImage } from '../declcfg/types.js';
import { isRecord, type JsonObject } from '../go/json-value.js';
import type { Property } from '../property/types.js';
import {
  csvAnnotations,
  csvRelatedImages,
  csvRelease,
  csvVersion,
  operatorImages,
  ownedApiServices,
  ownedCrds,
  requiredApiServices,
  requiredCrds,
  splitCrdName,
  type Gvk,
} from './csv.js';
import { asArray, asObject, asString, field, type Obj } from '../go/json-decode.js';
import { goStruct } from '../go/go-struct.js';
import { marshal } from '../go/json-encode.js';
import { compareUtf8 } from '../go/utf8.js';
import { JsonScanError, nodeText, nodeValue, scanJsonDocument } from '../go/json-scan.js';
import type { ManifestObject, RawProperty, RegistryBundle } from './parse.js';
import {
  TYPE_BUNDLE_OBJECT,
  TYPE_GVK,
  TYPE_GVK_REQUIRED,
  TYPE_PACKAGE,
  TYPE_PACKAGE_REQUIRED,
} from '../property/property.js';

export interface ConvertOptions {
  /** Problems opm tolerates silently (an `olm.properties` annotation that is not JSON). */
  onWarning?: (message: string) => void;
}

/** A property with the JSON text opm sorts and de-duplicates it by. */
export interface Keyed {
  type: string;
  text: string;
  value: Property['value'];
}

function bundleError(file: string, message: string, cause?: unknown): never {
  throw new OpmError(`${file}: ${message}`, { ...(cause === undefined ? {} : { cause }) });
}

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Compact JSON of a value built by opm (property.Build: no HTML escaping, field order as given). */
function builtText(v: JsonObject): string {
  return marshal(goStruct(v), false);
}

/**
 * A property opm builds from a Go struct: its value keeps the struct's field order in JSON output
 * (`olm.package` writes `packageName, version, release`), so it is carried as its text.
 */
function built(type: string, value: JsonObject): Keyed {
  const text = builtText(value);
  return { type, text, value: new RawJson(text) };
}

function gvkValue(g: Gvk): JsonObject {
  return { group: g.group, kind: g.kind, version: g.version };
}

/** The base64 JSON of an object as opm stores it in `olm.bundle.object` (Go json.Marshal). */
function bundleObjectData(m: ManifestObject): string {
  return Buffer.from(objectJson(m), 'utf8').toString('base64');
}

/** An object's JSON as Go's json.Marshal writes it (keys sorted, HTML escaped). */
export function objectJson(m: ManifestObject): string {
  return marshal(m.native ?? m.object, true);
}

export interface ProvidedApi extends Gvk {
  plural: string;
}

/** APIs provided by the CRD manifests (every listed version, served or not), in manifest order. */
export function crdApis(b: RegistryBundle): ProvidedApi[] {
  const out: ProvidedApi[] = [];
  for (const m of b.objects) {
    if (m.object.kind !== 'CustomResourceDefinition') continue;
    try {
      const spec = asObject(
        field(m.object, 'spec'),
        'CustomResourceDefinition.spec',
        'CustomResourceDefinitionSpec',
      );
      const names = asObject(field(spec, 'names'), 'spec.names', 'CustomResourceDefinitionNames');
      const group = asString(field(spec, 'group'), 'spec.group');
      const kind = asString(field(names, 'kind'), 'spec.names.kind');
      const plural = asString(field(names, 'plural'), 'spec.names.plural');
      const versions: string[] = [];
      const single = asString(field(spec, 'version'), 'spec.version');
      if (single !== '') versions.push(single);
      for (const v of asArray(
        field(spec, 'versions'),
        'spec.versions',
        '[]CustomResourceDefinitionVersion',
      )) {
        versions.push(
          asString(
            field(asObject(v, 'spec.versions', 'CustomResourceDefinitionVersion'), 'name'),
            'spec.versions.name',
          ),
        );
      }
      for (const version of versions) out.push({ group, version, kind, plural });
    } catch (err) {
      bundleError(m.file, `invalid CustomResourceDefinition: ${errText(err)}`, err);
    }
  }
  return out;
}

function apiKey(g: Gvk): string {
  return `${g.group}/${g.version}/${g.kind}`;
}

/** opm refuses a bundle whose CSV owns a CRD that no manifest of the bundle defines. */
function checkOwnedCrds(b: RegistryBundle, provided: ProvidedApi[]): void {
  const have = new Set(provided.map((p) => `${apiKey(p)} (${p.plural})`));
  for (const owned of ownedCrds(b.csv.object)) {
    const split = splitCrdName(owned.name);
    if (split === undefined) {
      bundleError(
        b.csv.file,
        `error checking provided apis in bundle ${b.name}: couldn't parse plural.group from crd name: ${owned.name}`,
      );
    }
    const key = `${split.group}/${owned.version}/${owned.kind} (${split.plural})`;
    if (!have.has(key)) {
      bundleError(
        b.csv.file,
        `error checking provided apis in bundle ${b.name}: couldn't find ${key} in bundle (owned CRD ${owned.name} has no CustomResourceDefinition in manifests/)`,
      );
    }
  }
}

/** Entries of the `olm.properties` CSV annotation, each with its value text as written; undefined when absent or not JSON. */
export function annotationProperties(b: RegistryBundle, warn: (m: string) => void): Keyed[] {
  let raw: unknown;
  try {
    raw = csvAnnotations(b.csv.object)['olm.properties'];
  } catch (err) {
    return bundleError(b.csv.file, errText(err), err);
  }
  if (raw === undefined || raw === null) return [];
  if (typeof raw !== 'string') {
    warn(`${b.csv.file}: annotation olm.properties is not a string; ignored (as in opm)`);
    return [];
  }
  try {
    const root = scanJsonDocument(raw);
    if (root.kind !== 'array') throw new JsonScanError('not a JSON list');
    return root.items.map((item) => {
      if (item.kind !== 'object') throw new JsonScanError('an entry is not an object');
      const typeNode = item.entries.filter(([k]) => k === 'type').at(-1)?.[1];
      const valueNode = item.entries.filter(([k]) => k === 'value').at(-1)?.[1];
      const type = typeNode === undefined ? '' : nodeValue(typeNode);
      if (typeof type !== 'string' && type !== null) throw new JsonScanError('an entry type is not a string');
      const text = valueNode === undefined ? '' : nodeText(raw, valueNode);
      return { type: type ?? '', text, value: valueNode === undefined ? null : new RawJson(text) };
    });
  } catch (err) {
    warn(
      `${b.csv.file}: annotation olm.properties is not a JSON list of properties (${errText(err)}); ignored (as in opm)`,
    );
    return [];
  }
}

function fromRaw(p: RawProperty): Keyed {
  return { type: p.type, text: p.text, value: p.text === '' ? null : new RawJson(p.text) };
}

function dedupe(list: Keyed[]): Keyed[] {
  const seen = new Set<string>();
  return list.filter((p) => {
    const k = `${p.type}\u0000${p.text}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function parsedValue(p: Keyed, index: number): Obj {
  if (p.text === '')
    throw new OpmError(`parse property[${index}] of type "${p.type}": unexpected end of JSON input`);
  const v: unknown = p.value instanceof RawJson ? p.value.parse() : p.value;
  try {
    return asObject(v, p.type, 'struct');
  } catch (err) {
    throw new OpmError(`parse property[${index}] of type "${p.type}": ${errText(err)}`);
  }
}

function parseGvk(p: Keyed, index: number): Gvk {
  const o = parsedValue(p, index);
  try {
    return {
      group: asString(field(o, 'group'), 'GVK.group'),
      kind: asString(field(o, 'kind'), 'GVK.kind'),
      version: asString(field(o, 'version'), 'GVK.version'),
    };
  } catch (err) {
    throw new OpmError(`parse property[${index}] of type "${p.type}": ${errText(err)}`);
  }
}

function packageValue(packageName: string, version: string, release: string): JsonObject {
  const v: JsonObject = { packageName, version };
  if (release !== '') v.release = release;
  return v;
}

/**
 * The sorted property list of a bundle (before render moves the bundle objects to the end):
 * properties file, then the derived `olm.package`, `olm.properties` entries and provided GVKs,
 * de-duplicated; GVKs gathered into sets; the last `olm.package` wins; dependencies become
 * `olm.gvk.required` / `olm.package.required` / themselves; one `olm.bundle.object` per manifest.
 */
function bundleProperties(b: RegistryBundle, opts: ConvertOptions = {}): Property[] {
  const warn = opts.onWarning ?? (() => undefined);
  const csv = b.csv.object;
  let version: string;
  let release: string;
  try {
    version = csvVersion(csv);
    release = csvRelease(csv);
  } catch (err) {
    return bundleError(b.csv.file, errText(err), err);
  }

  const provided = crdApis(b);
  checkOwnedCrds(b, provided);
  const providedGvks: Gvk[] = [...provided, ...ownedApiServices(csv)];

  const derived: Keyed[] = [];
  if (b.packageName !== '') derived.push(built(TYPE_PACKAGE, packageValue(b.packageName, version, release)));
  derived.push(...annotationProperties(b, warn));
  for (const g of providedGvks) derived.push(built(TYPE_GVK, gvkValue(g)));
  const list = dedupe([...b.properties.map(fromRaw), ...dedupe(derived)]);

  const gvks = new Map<string, Gvk>();
  const required = new Map<string, Gvk>();
  let pkg: Keyed | undefined;
  const others: Keyed[] = [];
  list.forEach((p, i) => {
    if (p.type === TYPE_GVK) {
      const g = parseGvk(p, i);
      gvks.set(apiKey(g), g);
    } else if (p.type === TYPE_PACKAGE) {
      const o = parsedValue(p, i);
      try {
        pkg = built(
          TYPE_PACKAGE,
          packageValue(
            asString(field(o, 'packageName'), 'Package.packageName'),
            asString(field(o, 'version'), 'Package.version'),
            asString(field(o, 'release'), 'Package.release'),
          ),
        );
      } catch (err) {
        throw new OpmError(`parse property[${i}] of type "${p.type}": ${errText(err)}`);
      }
    } else {
      if (p.text === '')
        throw new OpmError(`parse property[${i}] of type "${p.type}": unexpected end of JSON input`);
      others.push(p);
    }
  });

  for (const c of requiredCrds(csv)) {
    const split = splitCrdName(c.name);
    const g = { group: split?.group ?? '', version: c.version, kind: c.kind };
    required.set(apiKey(g), g);
  }
  for (const g of requiredApiServices(csv)) required.set(apiKey(g), g);

  const packageRequired: Keyed[] = [];
  b.dependencies.forEach((d, i) => {
    const p = fromRaw(d);
    if (d.type === TYPE_GVK) {
      const g = parseGvk(p, i);
      required.set(apiKey(g), g);
    } else if (d.type === TYPE_PACKAGE) {
      const o = parsedValue(p, i);
      try {
        packageRequired.push(
          built(TYPE_PACKAGE_REQUIRED, {
            packageName: asString(field(o, 'packageName'), 'Package.packageName'),
            versionRange: asString(field(o, 'version'), 'Package.version'),
          }),
        );
      } catch (err) {
        throw new OpmError(`parse dependency[${i}] of type "${d.type}": ${errText(err)}`);
      }
    } else {
      if (p.text === '')
        throw new OpmError(`parse dependency[${i}] of type "${d.type}": unexpected end of JSON input`);
      packageRequired.push(p);
    }
  });

  pkg ??= built(TYPE_PACKAGE, packageValue(b.packageName, version, release));
  const all: Keyed[] = [
    ...b.objects.map((m) => built(TYPE_BUNDLE_OBJECT, { data: bundleObjectData(m) })),
    pkg,
    ...[...gvks.values()].map((g) => built(TYPE_GVK, gvkValue(g))),
    ...[...required.values()].map((g) => built(TYPE_GVK_REQUIRED, gvkValue(g))),
    ...packageRequired,
    ...others,
  ];
  all.sort((x, y) => compareUtf8(x.type, y.type) || compareUtf8(x.text, y.text));
  return all.map((p) => ({ type: p.type, value: p.value }));
}

/**
 * relatedImages as opm builds them: the CSV's list; the bundle image (if any and not listed);
 * each distinct container/init-container image of the install deployments not already listed.
 */
function bundleRelatedImages(b: RegistryBundle, image: string): RelatedImage[] {
  const csvImages = csvRelatedImages(b.csv.object);
  const out: RelatedImage[] = csvImages.map((r) => ({ name: r.name, image: r.image }));
  const listed = new Set(csvImages.map((r) => r.image));
  if (image !== '' && !listed.has(image)) out.push({ name: '', image });
  const seen = new Set<string>();
  for (const img of operatorImages(b.csv.object)) {
    if (seen.has(img)) continue;
    seen.add(img);
    if (!listed.has(img)) out.push({ name: '', image: img });
  }
  return out;
}

/**
 * The `olm.bundle` blob of a parsed bundle. `image` is the bundle's image reference ('' for an
 * untemplated directory), or a function that computes it from the blob's name, package and
 * properties (image reference templates).
 */
export function toDeclcfgBundle(
  b: RegistryBundle,
  image: string | ((bundle: Bundle) => string),
  opts: ConvertOptions = {},
): Bundle {
  const properties = bundleProperties(b, opts);
  const out: Bundle = { schema: 'olm.bundle', name: b.name, package: b.packageName, image: '', properties };
  out.image = typeof image === 'string' ? image : image(out);
  let relatedImages: RelatedImage[];
  try {
    relatedImages = bundleRelatedImages(b, out.image);
  } catch (err) {
    return bundleError(b.csv.file, errText(err), err);
  }
  if (relatedImages.length > 0) out.relatedImages = relatedImages;
  return out;
}

/** The `version` of the bundle's `olm.package` property (the first one), for image templates. */
export function packageVersionOf(bundle: Bundle): string {
  const p = bundle.properties?.find((x) => x.type === TYPE_PACKAGE);
  if (p === undefined) return '';
  const v: unknown = p.value instanceof RawJson ? p.value.parse() : p.value;
  if (!isRecord(v)) return '';
  return typeof v.version === 'string' ? v.version : '';
}
