/**
 * declcfg → model conversion with every check of opm's ConvertToModel (operator-registry
 * `alpha/declcfg/declcfg_to_model.go`). opm stops at the first failed check; here every check runs
 * and each problem becomes a finding, and the text opm would have printed is kept as well
 * (`opmMessage`), so commands that must fail like opm still can.
 */
import {
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_PACKAGE,
  type Bundle,
  type DeclarativeConfig,
  type Location,
} from '../declcfg/types.js';
import { OpmError, positionText } from '../errors.js';
import type { Finding } from '../findings.js';
import type { RuleId } from '../rules.js';
import { TYPE_BUNDLE_OBJECT, tryParseProperties, type PropertiesParse } from '../property/property.js';
import { goQuote } from '../go/fmt.js';
import { entryBundle, type Model, type ModelBundle, type ModelChannel, type ModelPackage } from './model.js';
import { dns1123LabelErrors, imageReferenceError } from './names.js';
import { parseRelease, type Release } from './release.js';
import { parseSemver, SemverError, type SemVer } from './semver.js';
import { validateModel, type ValidationNode, renderValidationTree } from './validate.js';
import { compareUtf8 } from '../go/utf8.js';
import { expectConfig } from '../util/args.js';

export interface ConvertResult {
  model: Model;
  /** All problems found, conversion and model validation, in check order (not yet sorted). */
  findings: Finding[];
  /** The error text opm would print for this catalog, or undefined when opm would accept it. */
  opmMessage?: string;
  /** opm's validation tree, when conversion passed and model validation failed. */
  tree?: ValidationNode;
}

interface Place {
  loc?: Location | undefined;
  package?: string | undefined;
  channel?: string | undefined;
  bundle?: string | undefined;
}

function finding(rule: RuleId, message: string, place: Place): Finding {
  const f: Finding = { rule, severity: 'error', message };
  if (place.loc !== undefined) {
    f.file = place.loc.file;
    f.line = place.loc.line;
  }
  if (place.package !== undefined && place.package !== '') f.package = place.package;
  if (place.channel !== undefined && place.channel !== '') f.channel = place.channel;
  if (place.bundle !== undefined && place.bundle !== '') f.bundle = place.bundle;
  return f;
}

/** Go's `%v` of a string slice. */
function goList(items: readonly string[]): string {
  return `[${items.join(' ')}]`;
}

/** Go's `%#v` of a declcfg.PackageScopedReference. */
function goReference(ref: { schema: string; name?: string | undefined }): string {
  return `declcfg.PackageScopedReference{Schema:${goQuote(ref.schema)}, Name:${goQuote(ref.name ?? '')}}`;
}

class Collector {
  readonly findings: Finding[] = [];
  opmMessage: string | undefined;

  /** A problem opm reports too (its first one ends opm's run). */
  opm(rule: RuleId, message: string, place: Place, findingMessage: string = message): void {
    this.opmMessage ??= message;
    this.findings.push(finding(rule, findingMessage, place));
  }

  /** A problem opm does not see at this point (our stricter check). */
  extra(rule: RuleId, message: string, place: Place): void {
    this.findings.push(finding(rule, message, place));
  }
}

function bundleHasObjects(b: Bundle): boolean {
  return (b.properties ?? []).some((p) => p.type === TYPE_BUNDLE_OBJECT);
}

/** What the phases of a conversion build and hand on to the next. */
interface Conversion {
  readonly c: Collector;
  readonly model: Model;
  /**
   * Entries of the last olm.channel of each package that no olm.bundle has matched yet: opm
   * overwrites its tracking set per channel, so only these decide its error.
   */
  readonly lastChannelEntries: Map<string, Set<string>>;
  /** Entries of every channel that no olm.bundle has matched yet. */
  readonly channelEntries: { ch: ModelChannel; entries: Set<string> }[];
  /** The olm.bundle blobs of each package by name (the first of duplicates). */
  readonly packageBundles: Map<string, Map<string, Bundle>>;
}

/**
 * Convert and validate. Never throws on catalog problems: they are returned as findings. The
 * phases run in opm's order (operator-registry `alpha/declcfg/declcfg_to_model.go`), so the first
 * problem recorded is the one opm stops at.
 */
export function convertToModel(cfg: DeclarativeConfig): ConvertResult {
  expectConfig(cfg, 'convertToModel(cfg)');
  const s: Conversion = {
    c: new Collector(),
    model: new Map(),
    lastChannelEntries: new Map(),
    channelEntries: [],
    packageBundles: new Map(),
  };
  convertPackages(cfg.packages, s);
  convertChannels(cfg.channels, s);
  for (const b of cfg.bundles) convertBundle(b, s);
  reportMissingBundles(s);
  synthesizeDefaultChannels(s.model);
  convertDeprecations(cfg, s.model, s.packageBundles, s.c);
  return validated(s);
}

/** olm.package blobs: a name, no duplicate, a DNS-1123 label. */
function convertPackages(packages: DeclarativeConfig['packages'], s: Conversion): void {
  const { c, model } = s;
  for (const p of packages) {
    const place: Place = { loc: p.loc, package: p.name };
    if (p.name === '') {
      c.opm('package.name-empty', 'config contains package with no name', place);
      continue;
    }
    if (model.has(p.name)) {
      const first = model.get(p.name)?.loc;
      c.opm(
        'package.duplicate',
        `duplicate package ${goQuote(p.name)}`,
        place,
        `duplicate package ${goQuote(p.name)}${first ? ` (first defined at ${positionText(first)})` : ''}`,
      );
      continue;
    }
    const errs = dns1123LabelErrors(p.name);
    if (errs.length > 0)
      c.opm('package.name-invalid', `invalid package name ${goQuote(p.name)}: ${goList(errs)}`, place);
    const mp: ModelPackage = {
      name: p.name,
      description: p.description ?? '',
      defaultChannelName: p.defaultChannel,
      channels: new Map(),
    };
    if (p.icon !== undefined) mp.icon = p.icon;
    if (p.loc !== undefined) mp.loc = p.loc;
    model.set(p.name, mp);
  }
}

/**
 * olm.channel blobs: a known package, a name, no duplicate channel or entry. Each entry becomes a
 * bundle without its blob yet. opm remembers the entries of only the last channel of each package.
 */
function convertChannels(channels: DeclarativeConfig['channels'], s: Conversion): void {
  const { c, model } = s;
  for (const ch of channels) {
    const place: Place = { loc: ch.loc, package: ch.package, channel: ch.name };
    const mp = model.get(ch.package);
    if (mp === undefined) {
      c.opm(
        'channel.unknown-package',
        `unknown package ${goQuote(ch.package)} for channel ${goQuote(ch.name)}`,
        place,
      );
      continue;
    }
    if (ch.name === '') {
      c.opm('channel.name-empty', `package ${goQuote(ch.package)} contains channel with no name`, place);
      continue;
    }
    if (mp.channels.has(ch.name)) {
      c.opm(
        'channel.duplicate',
        `package ${goQuote(ch.package)} has duplicate channel ${goQuote(ch.name)}`,
        place,
      );
      continue;
    }
    const mc: ModelChannel = {
      package: mp,
      name: ch.name,
      bundles: new Map(),
      properties: ch.properties ?? [],
      synthesized: false,
    };
    if (ch.loc !== undefined) mc.loc = ch.loc;
    const entries = new Set<string>();
    for (const e of ch.entries ?? []) {
      if (mc.bundles.has(e.name)) {
        c.opm(
          'channel.duplicate-entry',
          `invalid package ${goQuote(ch.package)}, channel ${goQuote(ch.name)}: duplicate entry ${goQuote(e.name)}`,
          { ...place, bundle: e.name },
        );
        continue;
      }
      entries.add(e.name);
      mc.bundles.set(e.name, entryBundle(mp, mc, e));
    }
    s.lastChannelEntries.set(ch.package, new Set(entries));
    s.channelEntries.push({ ch: mc, entries });
    mp.channels.set(ch.name, mc);
    if (mp.defaultChannelName === ch.name) mp.defaultChannel = mc;
  }
}

/**
 * One olm.bundle blob: a known package, no duplicate, then its properties; the blob is attached to
 * the entry of that name in every channel, and a blob no channel lists is a problem.
 */
function convertBundle(b: Bundle, s: Conversion): void {
  const { c } = s;
  const place: Place = { loc: b.loc, package: b.package, bundle: b.name };
  if (b.package === '') {
    c.opm('bundle.package-empty', `package name must be set for bundle ${goQuote(b.name)}`, place);
    return;
  }
  const mp = s.model.get(b.package);
  if (mp === undefined) {
    c.opm(
      'bundle.unknown-package',
      `unknown package ${goQuote(b.package)} for bundle ${goQuote(b.name)}`,
      place,
    );
    return;
  }
  let seen = s.packageBundles.get(b.package);
  if (seen === undefined) {
    seen = new Map();
    s.packageBundles.set(b.package, seen);
  }
  const earlier = seen.get(b.name);
  if (earlier !== undefined) {
    const msg = `package ${goQuote(b.package)} has duplicate bundle ${goQuote(b.name)}`;
    c.opm(
      'bundle.duplicate',
      msg,
      place,
      earlier.loc ? `${msg} (first defined at ${positionText(earlier.loc)})` : msg,
    );
    return;
  }
  seen.set(b.name, b);
  s.lastChannelEntries.get(b.package)?.delete(b.name);
  for (const e of s.channelEntries) if (e.ch.package === mp) e.entries.delete(b.name);

  const checked = checkBundleBlob(b, place, c);
  let found = false;
  for (const mc of mp.channels.values()) {
    const mb = mc.bundles.get(b.name);
    if (mb === undefined) continue;
    found = true;
    attachBlob(mb, b, checked.version, checked.release, checked.reported, checked.parsed);
  }
  if (!found) {
    c.opm(
      'bundle.not-in-channel',
      `package ${goQuote(b.package)}, bundle ${goQuote(b.name)} not found in any channel entries`,
      place,
      `package ${goQuote(b.package)}, bundle ${goQuote(b.name)} not found in any channel entries (no olm.channel of the package lists it)`,
    );
  }
}

interface CheckedBundle {
  parsed: PropertiesParse;
  version: SemVer | undefined;
  release: Release;
  /** Whether a problem of this blob was recorded (model validation then says less about it). */
  reported: boolean;
}

/**
 * The checks of one olm.bundle blob's content, in opm's order: properties parse, exactly one
 * olm.package naming the blob's package, image references, version and release.
 */
function checkBundleBlob(b: Bundle, place: Place, c: Collector): CheckedBundle {
  let reported = false;
  let version: SemVer | undefined;
  let release: Release = [];
  const parsed = tryParseProperties(b.properties);
  if (!parsed.ok) {
    reported = true;
    c.opm(
      'bundle.property-invalid',
      `parse properties for bundle ${goQuote(b.name)}: ${parsed.error.message}`,
      place,
    );
  } else {
    const pkgs = parsed.value.packages;
    const only = pkgs[0];
    if (pkgs.length !== 1 || only === undefined) {
      reported = true;
      c.opm(
        'bundle.package-property-count',
        `package ${goQuote(b.package)} bundle ${goQuote(b.name)} must have exactly 1 "olm.package" property, found ${pkgs.length}`,
        place,
      );
    } else {
      if (only.packageName !== b.package) {
        reported = true;
        c.opm(
          'bundle.package-property-mismatch',
          `package ${goQuote(b.package)} does not match "olm.package" property ${goQuote(only.packageName)}`,
          place,
        );
      }
    }
    if (b.image !== '') {
      const err = imageReferenceError(b.image);
      if (err !== undefined) {
        reported = true;
        c.opm(
          'bundle.image-invalid',
          `package ${goQuote(b.package)} bundle ${goQuote(b.name)} image: invalid image pull spec ${goQuote(b.image)}: ${err}`,
          place,
        );
      }
    }
    (b.relatedImages ?? []).forEach((ri, i) => {
      if (ri.image === '') return;
      const err = imageReferenceError(ri.image);
      if (err !== undefined) {
        reported = true;
        c.opm(
          'bundle.related-image-invalid',
          `package ${goQuote(b.package)} bundle ${goQuote(b.name)} relatedImages[${i}].image: invalid image pull spec ${goQuote(ri.image)}: ${err}`,
          place,
        );
      }
    });
    if (only !== undefined && pkgs.length === 1) {
      try {
        version = parseSemver(only.version);
      } catch (e) {
        if (!(e instanceof SemverError)) throw e;
        reported = true;
        c.opm(
          'bundle.version-invalid',
          `error parsing bundle ${goQuote(b.name)} version ${goQuote(only.version)}: ${e.message}`,
          place,
        );
      }
      try {
        release = parseRelease(only.release);
      } catch (e) {
        if (!(e instanceof SemverError)) throw e;
        reported = true;
        c.opm(
          'bundle.release-invalid',
          `error parsing bundle ${goQuote(b.name)} release version ${goQuote(only.release)}: ${e.message}`,
          place,
        );
      }
    }
  }
  return { parsed, version, release, reported };
}

/**
 * Channel entries without an olm.bundle blob. opm checks only the last channel of each package
 * (its tracking set is overwritten per channel) and names the first package in byte order; every
 * channel is checked here, and each missing bundle is its own finding.
 */
function reportMissingBundles(s: Conversion): void {
  const opmMissing = [...s.lastChannelEntries.entries()]
    .filter(([, set]) => set.size > 0)
    .sort(([a], [b]) => compareUtf8(a, b));
  const firstMissing = opmMissing[0];
  if (firstMissing !== undefined) {
    s.c.opmMessage ??= `no olm.bundle blobs found in package ${goQuote(firstMissing[0])} for olm.channel entries ${goList([...firstMissing[1]].sort(compareUtf8))}`;
  }
  for (const { ch, entries } of s.channelEntries) {
    for (const name of [...entries].sort(compareUtf8)) {
      s.c.extra(
        'channel.entry-bundle-missing',
        `channel ${goQuote(ch.name)} lists bundle ${goQuote(name)}, but package ${goQuote(ch.package.name)} has no olm.bundle blob of that name`,
        { loc: ch.loc, package: ch.package.name, channel: ch.name, bundle: name },
      );
    }
  }
}

/**
 * A default channel without an olm.channel blob is made up, empty, as opm does; model validation
 * then reports it as a channel without bundles.
 */
function synthesizeDefaultChannels(model: Model): void {
  for (const mp of model.values()) {
    if (mp.defaultChannelName !== '' && mp.defaultChannel === undefined) {
      const dc: ModelChannel = {
        package: mp,
        name: mp.defaultChannelName,
        bundles: new Map(),
        properties: [],
        synthesized: true,
      };
      if (mp.loc !== undefined) dc.loc = mp.loc;
      mp.defaultChannel = dc;
      mp.channels.set(dc.name, dc);
    }
  }
}

/**
 * Model validation after conversion. opm validates the model only when conversion passed, so its
 * message is the first conversion problem if there was one, else the validation tree.
 */
function validated(s: Conversion): ConvertResult {
  const result: ConvertResult = { model: s.model, findings: s.c.findings };
  const v = validateModel(s.model);
  result.findings.push(...v.findings);
  if (s.c.opmMessage !== undefined) result.opmMessage = s.c.opmMessage;
  else if (v.tree !== undefined) {
    result.tree = v.tree;
    result.opmMessage = renderValidationTree(v.tree);
  }
  return result;
}

function attachBlob(
  mb: ModelBundle,
  b: Bundle,
  version: SemVer | undefined,
  release: Release,
  reported: boolean,
  parsed: PropertiesParse,
): void {
  mb.blob = b;
  mb.image = b.image;
  mb.properties = b.properties ?? [];
  mb.relatedImages = b.relatedImages ?? [];
  mb.hasObjects = bundleHasObjects(b);
  if (version !== undefined) mb.version = version;
  mb.release = release;
  mb.blobReported = reported;
  mb.propertiesParse = parsed;
}

function convertDeprecations(
  cfg: DeclarativeConfig,
  model: Model,
  packageBundles: Map<string, Map<string, Bundle>>,
  c: Collector,
): void {
  const seenPackages = new Set<string>();
  cfg.deprecations.forEach((d, i) => {
    const place: Place = { loc: d.loc, package: d.package };
    if (d.package === '') {
      c.opm('deprecation.package-empty', `package name must be set for deprecation item ${i}`, place);
      return;
    }
    const mp = model.get(d.package);
    if (mp === undefined) {
      c.opm(
        'deprecation.unknown-package',
        `cannot apply deprecations to an unknown package ${goQuote(d.package)}`,
        place,
      );
      return;
    }
    if (seenPackages.has(d.package)) {
      c.opm(
        'deprecation.duplicate-package',
        `expected a maximum of one deprecation per package: ${goQuote(d.package)}`,
        place,
      );
      return;
    }
    seenPackages.add(d.package);
    const refs = new Set<string>();
    (d.entries ?? []).forEach((entry, j) => {
      const ref = entry.reference;
      const name = ref.name ?? '';
      const dep = { message: entry.message, ...(d.loc === undefined ? {} : { loc: d.loc }) };
      if (ref.schema === '') {
        c.opm(
          'deprecation.schema-empty',
          `schema must be set for deprecation entry [${j}] for package ${goQuote(d.package)}`,
          place,
        );
        return;
      }
      const key = `${ref.schema}\u0000${name}`;
      if (refs.has(key)) {
        c.opm(
          'deprecation.duplicate-entry',
          `duplicate deprecation entry ${goReference(ref)} for package ${goQuote(d.package)}`,
          place,
        );
        return;
      }
      refs.add(key);
      switch (ref.schema) {
        case SCHEMA_BUNDLE:
          if (!packageBundles.get(d.package)?.has(name)) {
            c.opm(
              'deprecation.unknown-bundle',
              `cannot deprecate bundle ${goQuote(name)} for package ${goQuote(d.package)}: bundle not found`,
              { ...place, bundle: name },
            );
            return;
          }
          for (const mc of mp.channels.values()) {
            const mb = mc.bundles.get(name);
            if (mb !== undefined) mb.deprecation = dep;
          }
          return;
        case SCHEMA_CHANNEL: {
          const mc = mp.channels.get(name);
          if (mc === undefined) {
            c.opm(
              'deprecation.unknown-channel',
              `cannot deprecate channel ${goQuote(name)} for package ${goQuote(d.package)}: channel not found`,
              { ...place, channel: name },
            );
            return;
          }
          mc.deprecation = dep;
          return;
        }
        case SCHEMA_PACKAGE:
          if (name !== '') {
            c.opm(
              'deprecation.package-name-set',
              `package name must be empty for deprecated package ${goQuote(d.package)} (specified ${goQuote(name)})`,
              place,
            );
            return;
          }
          mp.deprecation = dep;
          return;
        default:
          c.opm(
            'deprecation.unknown-schema',
            `cannot deprecate object ${goReference(ref)} referenced by entry ${j} for package ${goQuote(d.package)}: object schema unknown`,
            place,
          );
      }
    });
  });
}

/** opm's ConvertToModel: the model, or an OpmError with exactly opm's message. */
export function convertToModelOrThrow(cfg: DeclarativeConfig): Model {
  const r = convertToModel(cfg);
  if (r.opmMessage !== undefined) throw new OpmError(r.opmMessage);
  return r.model;
}
