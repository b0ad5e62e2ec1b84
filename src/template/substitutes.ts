/**
 * The substitutes template (`schema: olm.template.substitutes`,
 * `alpha/template/substitutes/substitutes.go`): a valid catalog plus a list of substitutions, each
 * putting a newly rendered bundle in place of an existing one in every channel, so that upgrades
 * flow through the substitute.
 */
import { OpmError } from '../errors.js';
import { RawJson } from '../go/raw-json.js';
import type { Bundle, ChannelEntry, DeclarativeConfig } from '../declcfg/types.js';
import { goQuote } from '../go/fmt.js';
import { compareRelease, parseRelease, type Release } from '../model/release.js';
import { SemverError, compareSemver, parseSemver, type SemVer } from '../model/semver.js';
import { convertToModelOrThrow } from '../model/convert.js';
import { decodePackageProperty } from '../model/bundle-version.js';
import { TYPE_PACKAGE, propertyValue } from '../property/property.js';
import { SUBSTITUTES_SCHEMA } from './detect.js';
import { type TemplateDocument } from './input.js';
import { stringField, templateEntries, type TemplateEntry } from './entries.js';
import { isJsonObject } from '../go/json-value.js';

const PARSE_PREFIX = 'render: unable to parse template: ';

export interface Substitution {
  /** Image reference of the substitute bundle. */
  name: string;
  /** Name of the bundle it substitutes for. */
  base: string;
  line: number;
}

export interface SubstitutesTemplate {
  label: string;
  entries: TemplateEntry[];
  substitutions: Substitution[];
}

export function parseSubstitutesTemplate(doc: TemplateDocument): SubstitutesTemplate {
  const entries = templateEntries(doc, SUBSTITUTES_SCHEMA, PARSE_PREFIX);
  const v = doc.value;
  const key = isJsonObject(v) ? Object.keys(v).find((k) => k.toLowerCase() === 'substitutions') : undefined;
  const list = key === undefined || !isJsonObject(v) ? null : v[key];
  const fail = (msg: string, path: (string | number)[]): never => {
    throw new OpmError(PARSE_PREFIX + msg, {
      at: { file: doc.label, line: doc.lineOf(path) },
    });
  };
  const substitutions: Substitution[] = [];
  if (list !== null && list !== undefined) {
    if (!Array.isArray(list)) return fail('"substitutions" must be a list of {name, base}', [key ?? '']);
    list.forEach((s, i) => {
      const path = [key ?? '', i];
      if (!isJsonObject(s)) return fail(`substitution ${i} is not an object`, path);
      for (const f of ['name', 'base']) {
        const fv = Object.entries(s).find(([k]) => k.toLowerCase() === f)?.[1];
        if (fv !== undefined && fv !== null && typeof fv !== 'string') {
          return fail(`substitution ${i}: ${f} must be a string`, [...path, f]);
        }
      }
      substitutions.push({
        name: stringField(s, 'name'),
        base: stringField(s, 'base'),
        line: doc.lineOf(path),
      });
    });
  }
  return { label: doc.label, entries, substitutions };
}

interface VersionRelease {
  version: SemVer;
  release: Release;
}

function csvHasSubstitutesFor(csv: Record<string, unknown> | undefined, b: Bundle): boolean {
  const has = (annotations: unknown): boolean =>
    isJsonObject(annotations) && typeof annotations['olm.substitutesFor'] === 'string';
  const meta = csv?.['metadata'];
  if (isJsonObject(meta) && has(meta['annotations'])) return true;
  for (const p of b.properties ?? []) {
    if (p.type !== 'olm.csv.metadata') continue;
    const v = p.value instanceof RawJson ? p.value.parse() : p.value;
    if (isJsonObject(v) && has(v['annotations'])) return true;
  }
  return false;
}

/**
 * A bundle's version and release (opm's Bundle.VersionRelease, `alpha/declcfg/declcfg.go`): build
 * metadata of a bundle that substitutes for another (CSV annotation `olm.substitutesFor`) is its
 * release.
 */
export function bundleVersionRelease(b: Bundle, csv?: Record<string, unknown>): VersionRelease {
  const props = (b.properties ?? []).map((p, i) => ({ p, i })).filter(({ p }) => p.type === TYPE_PACKAGE);
  if (props.length === 0)
    throw new OpmError(`no ${goQuote(TYPE_PACKAGE)} property found for bundle ${goQuote(b.name)}`);
  if (props.length > 1) throw new OpmError(`must be exactly one property of type ${goQuote(TYPE_PACKAGE)}`);
  const first = props[0];
  if (first === undefined)
    throw new OpmError(`no ${goQuote(TYPE_PACKAGE)} property found for bundle ${goQuote(b.name)}`);
  const pkg = decodePackageProperty(propertyValue(first.p), first.i);
  try {
    let version = parseSemver(pkg.version);
    let release = parseRelease(pkg.release);
    if (release.length === 0 && version.build.length > 0 && csvHasSubstitutesFor(csv, b)) {
      release = parseRelease(version.build.join('.'));
      version = { ...version, build: [] };
    }
    return { version, release };
  } catch (e) {
    if (e instanceof SemverError) throw new OpmError(e.message);
    throw e;
  }
}

function compareVersionRelease(a: VersionRelease, b: VersionRelease): number {
  return compareSemver(a.version, b.version) || compareRelease(a.release, b.release);
}

/** A rendered substitute: its bundles and, when available, each one's CSV. */
export interface RenderedSubstitute {
  bundles: Bundle[];
  csvs: Map<Bundle, Record<string, unknown>>;
}

/**
 * Rewrite every channel so `sub` takes `base`'s place: `sub` is added with `base`'s edges plus a
 * skip of `base`, `base` loses its edges, and entries that replaced or skipped `base` now point at
 * `sub` (a replacer also skips `base`).
 */
function substituteInChannels(cfg: DeclarativeConfig, base: string, sub: string): void {
  for (const ch of cfg.channels) {
    const entries = ch.entries ?? [];
    const originals = entries.length;
    for (let i = 0; i < originals; i++) {
      const e = entries[i];
      if (e === undefined || e.name !== base) continue;
      const added: ChannelEntry = { name: sub };
      if (e.replaces !== undefined && e.replaces !== '') added.replaces = e.replaces;
      if (e.skipRange !== undefined && e.skipRange !== '') added.skipRange = e.skipRange;
      added.skips = [...(e.skips ?? []), base];
      entries.push(added);
      delete e.replaces;
      delete e.skips;
      delete e.skipRange;
    }
    for (let i = 0; i < originals; i++) {
      const e = entries[i];
      if (e === undefined) continue;
      if (e.skips !== undefined) e.skips = e.skips.map((s) => (s === base ? sub : s));
      if (e.replaces === base) {
        e.replaces = sub;
        e.skips = [...(e.skips ?? []), base];
      }
    }
    if (entries.length > 0 && ch.entries === null) ch.entries = entries;
  }
}

/**
 * Apply the substitutions in order to `cfg` (the template's entries, already loaded), rendering each
 * substitute with `render`. `cfg` is modified and returned.
 */
export async function applySubstitutions(
  t: SubstitutesTemplate,
  cfg: DeclarativeConfig,
  render: (image: string, s: Substitution) => Promise<RenderedSubstitute>,
): Promise<DeclarativeConfig> {
  const at = (s: Substitution) => ({ file: t.label, line: s.line });
  try {
    convertToModelOrThrow(cfg);
  } catch (e) {
    if (e instanceof OpmError) {
      throw new OpmError(`render: entries are not valid FBC: ${e.message}`, {
        code: e.code,
        at: { file: t.label },
      });
    }
    throw e;
  }
  const bases = new Map<string, string>();
  const names = new Map<string, string>();
  for (const s of t.substitutions) {
    if (bases.has(s.base)) {
      throw new OpmError(`render: cannot reuse the same substitution base ${goQuote(s.base)}`, { at: at(s) });
    }
    const prevBase = names.get(s.name);
    if (prevBase !== undefined) {
      throw new OpmError(
        `render: cannot reuse the same substitution ${goQuote(s.name)} for different bases (${goQuote(prevBase)} and ${goQuote(s.base)})`,
        { at: at(s) },
      );
    }
    bases.set(s.base, s.name);
    names.set(s.name, s.base);
    try {
      await applyOne(cfg, s, render);
    } catch (e) {
      if (e instanceof OpmError) {
        throw new OpmError(
          `render: error processing substitution ${goQuote(s.base)} -> ${goQuote(s.name)}: ${e.message}`,
          { code: e.code, at: e.at ?? at(s), ...(e.hint === undefined ? {} : { hint: e.hint }), cause: e },
        );
      }
      throw e;
    }
  }
  return cfg;
}

async function applyOne(
  cfg: DeclarativeConfig,
  s: Substitution,
  render: (image: string, s: Substitution) => Promise<RenderedSubstitute>,
): Promise<void> {
  if (s.name === '') throw new OpmError('substitution name cannot be empty');
  if (s.base === '') throw new OpmError('substitution base cannot be empty');
  if (s.name === s.base) throw new OpmError('substitution name and base cannot be the same');
  const rendered = await render(s.name, s);
  const sub = rendered.bundles[0];
  if (sub === undefined)
    throw new OpmError(`rendered bundle image reference ${goQuote(s.name)} contains no bundles`);
  const base = cfg.bundles.find((b) => b.name === s.base);
  if (base === undefined) throw new OpmError(`base bundle ${goQuote(s.base)} does not exist in catalog`);
  const baseVr = bundleVersionRelease(base);
  const subVr = bundleVersionRelease(sub, rendered.csvs.get(sub));
  if (compareVersionRelease(baseVr, subVr) >= 0) {
    throw new OpmError(
      `base bundle ${goQuote(s.base)} is not less than substitute bundle ${goQuote(sub.name)}`,
    );
  }
  substituteInChannels(cfg, s.base, sub.name);
  cfg.bundles.push(sub);
  try {
    convertToModelOrThrow(cfg);
  } catch (e) {
    if (e instanceof OpmError)
      throw new OpmError(`resulting config is not valid FBC: ${e.message}`, { code: e.code });
    throw e;
  }
}
