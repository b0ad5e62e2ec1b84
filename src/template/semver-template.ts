/**
 * The semver template (`schema: olm.semver`, `alpha/template/semver/semver.go` and its README):
 * channels generated from bundle versions.
 *
 * Bundles listed under Candidate, Fast and Stable go into `<archetype>-v<major>` and/or
 * `<archetype>-v<major>.<minor>` channels; within each (archetype, kind, major) run of versions, the
 * last bundle of each minor version (its "Y-stream head") replaces the previous head and skips the
 * bundles before it. These are opm 1.73's rules and the default; `--semver-compat v1.46` (see
 * SemverCompat) links each channel on its own, as opm 1.46 did. Everything here is pure: rendering
 * the images is the caller's job.
 */
import { OpmError } from '../errors.js';
import { goQuote } from '../go/fmt.js';
import { compareSemver, formatSemver, type SemVer } from '../model/semver.js';
import {
  SCHEMA_CHANNEL,
  SCHEMA_PACKAGE,
  emptyConfig,
  type Bundle,
  type Channel,
  type ChannelEntry,
  type DeclarativeConfig,
  type Icon,
  type Package,
} from '../declcfg/types.js';
import { isJsonObject, type JsonValue } from '../go/json-value.js';
import { bundleVersion } from '../model/bundle-version.js';
import { unmarshalFieldError, unmarshalValueError } from '../go/json-decode.js';
import { type TemplateDocument } from './input.js';
import { compareUtf8 } from '../go/utf8.js';

const SEMVER_SCHEMA = 'olm.semver';

export type Archetype = 'candidate' | 'fast' | 'stable';
/** In increasing stability, which is also the order channels are generated and linked in. */
const ARCHETYPES: readonly Archetype[] = ['candidate', 'fast', 'stable'];
export type StreamKind = 'major' | 'minor';

/**
 * Which opm's semver rules to follow. `current` (the default, opm 1.73's rules): Y-stream heads are
 * linked across the channels of one archetype, kind and major version, each skipping every earlier
 * bundle of that major except the one it replaces, and the package takes its description and icon
 * from the default channel head. `v1.46`, for pipelines that pin that older release: every channel
 * is linked on its own — each Y-stream head replaces the previous head and skips it and the earlier
 * bundles of its own minor version — and the package gets no description or icon.
 */
export type SemverCompat = 'current' | 'v1.46';
export const SEMVER_COMPAT_LEVELS: readonly SemverCompat[] = ['current', 'v1.46'];
export const DEFAULT_SEMVER_COMPAT: SemverCompat = 'current';

export interface SemverTemplateImage {
  image: string;
  /** Line of the entry in the template. */
  line: number;
}

export interface SemverTemplate {
  generateMajorChannels: boolean;
  generateMinorChannels: boolean;
  defaultChannelTypePreference: StreamKind;
  bundles: Record<Archetype, SemverTemplateImage[]>;
  /** Input name, for error positions. */
  label: string;
}

/** A bundle rendered from an image, with its CSV manifest when the render had one. */
export interface RenderedBundle {
  bundle: Bundle;
  csv?: Record<string, unknown> | undefined;
}

const READ_PREFIX = 'render: unable to read file: ';
const POST_PREFIX = 'render: unable to post-process bundle info: ';

function readError(message: string, label: string, line?: number): OpmError {
  return new OpmError(READ_PREFIX + message, {
    at: line === undefined ? { file: label } : { file: label, line },
  });
}

/** The prefix sigs.k8s.io/yaml puts before the decoder's errors. */
const DECODING = 'error unmarshaling JSON: while decoding JSON: ';

/** Go's error text for an unknown key under DisallowUnknownFields. */
function unknownField(key: string): string {
  return `${DECODING}json: unknown field ${goQuote(key)}`;
}

function typeError(v: JsonValue, struct: string, path: string, goType: string): string {
  return DECODING + unmarshalFieldError(v, `${struct}.${path}`, goType);
}

/** Strict, case-insensitive decode of the template (Go's UnmarshalStrict on the typed struct). */
export function parseSemverTemplate(doc: TemplateDocument): SemverTemplate {
  const { value, label } = doc;
  const fail = (msg: string, path: (string | number)[] = []): never => {
    throw readError(msg, label, doc.lineOf(path));
  };
  if (!isJsonObject(value)) {
    return fail(DECODING + unmarshalValueError(value, 'semver.semverTemplate'));
  }
  let schema = '';
  let major = false;
  let minor = false;
  let preference = '';
  const bundles: Record<Archetype, SemverTemplateImage[]> = { candidate: [], fast: [], stable: [] };

  for (const [key, v] of Object.entries(value)) {
    const k = key.toLowerCase();
    if (k === 'schema' || k === 'defaultchanneltypepreference') {
      const path = k === 'schema' ? 'schema' : 'defaultChannelTypePreference';
      if (v === null) continue;
      if (typeof v !== 'string') {
        return fail(typeError(v, 'semverTemplate', path, k === 'schema' ? 'string' : 'semver.streamType'), [
          key,
        ]);
      }
      if (k === 'schema') schema = v;
      else preference = v;
    } else if (k === 'generatemajorchannels' || k === 'generateminorchannels') {
      const path = k === 'generatemajorchannels' ? 'generateMajorChannels' : 'generateMinorChannels';
      if (v === null) continue;
      if (typeof v !== 'boolean') return fail(typeError(v, 'semverTemplate', path, 'bool'), [key]);
      if (k === 'generatemajorchannels') major = v;
      else minor = v;
    } else if (k === 'candidate' || k === 'fast' || k === 'stable') {
      bundles[k] = parseChannelBundles(v, k, key, doc);
    } else {
      return fail(unknownField(key), [key]);
    }
  }

  if (schema !== SEMVER_SCHEMA)
    return fail(`readFile: input file has unknown schema, should be ${goQuote(SEMVER_SCHEMA)}`);
  if (!major && !minor) minor = true;
  let pref: StreamKind;
  if (preference === '') pref = minor ? 'minor' : 'major';
  else if (preference === 'minor' || preference === 'major') pref = preference;
  else {
    return fail(
      `unknown DefaultChannelTypePreference: ${goQuote(preference)}\nValid values are 'major' or 'minor'`,
    );
  }
  if ((pref === 'minor' && !minor) || (pref === 'major' && !major)) {
    return fail(
      `schema attribute mismatch: DefaultChannelTypePreference set to '${pref}' doesn't make sense if not generating ${pref}-version channels`,
    );
  }
  return {
    generateMajorChannels: major,
    generateMinorChannels: minor,
    defaultChannelTypePreference: pref,
    bundles,
    label,
  };
}

function parseChannelBundles(
  v: JsonValue,
  arch: Archetype,
  key: string,
  doc: TemplateDocument,
): SemverTemplateImage[] {
  const fail = (msg: string, path: (string | number)[]): never => {
    throw readError(msg, doc.label, doc.lineOf(path));
  };
  if (v === null) return [];
  if (!isJsonObject(v)) {
    return fail(typeError(v, 'semverTemplate', arch, 'semver.semverTemplateChannelBundles'), [key]);
  }
  const out: SemverTemplateImage[] = [];
  for (const [bKey, list] of Object.entries(v)) {
    if (bKey.toLowerCase() !== 'bundles') return fail(unknownField(bKey), [key, bKey]);
    if (list === null) continue;
    if (!Array.isArray(list)) {
      return fail(
        typeError(
          list,
          'semverTemplateChannelBundles',
          `${arch}.bundles`,
          '[]semver.semverTemplateBundleEntry',
        ),
        [key, bKey],
      );
    }
    list.forEach((item, i) => {
      const path = [key, bKey, i];
      if (item === null) {
        out.push({ image: '', line: doc.lineOf(path) });
        return;
      }
      if (!isJsonObject(item)) {
        return fail(
          typeError(
            item,
            'semverTemplateChannelBundles',
            `${arch}.bundles`,
            'semver.semverTemplateBundleEntry',
          ),
          path,
        );
      }
      let image = '';
      for (const [iKey, img] of Object.entries(item)) {
        if (iKey.toLowerCase() !== 'image') return fail(unknownField(iKey), [...path, iKey]);
        if (img === null) continue;
        if (typeof img !== 'string') {
          return fail(typeError(img, 'semverTemplateBundleEntry', `${arch}.bundles.image`, 'string'), [
            ...path,
            iKey,
          ]);
        }
        image = img;
      }
      out.push({ image, line: doc.lineOf(path) });
    });
  }
  return out;
}

/** Every distinct image of the template, Candidate first, in listed order: each is rendered once. */
export function semverTemplateImages(t: SemverTemplate): SemverTemplateImage[] {
  const seen = new Set<string>();
  const out: SemverTemplateImage[] = [];
  for (const arch of ARCHETYPES) {
    for (const img of t.bundles[arch]) {
      if (seen.has(img.image)) continue;
      seen.add(img.image);
      out.push(img);
    }
  }
  return out;
}

interface VersionedBundle {
  name: string;
  version: SemVer;
  line: number;
}

interface EntryTuple {
  arch: Archetype;
  kind: StreamKind;
  version: SemVer;
  entry: ChannelEntry;
  channel: string;
}

const ARCH_PRIORITY: Record<Archetype, number> = { candidate: 0, fast: 1, stable: 2 };
const KIND_PRIORITY: Record<StreamKind | 'none', number> = { minor: 2, major: 1, none: 0 };
const KIND_ORDER: Record<StreamKind, number> = { major: 0, minor: 1 };

function withoutBuild(v: SemVer): SemVer {
  return { ...v, build: [] };
}

/** k8s aggregate error text: one error bare, several as `[a, b]`. */
function aggregate(items: string[]): string {
  return items.length === 1 ? (items[0] ?? '') : `[${items.join(', ')}]`;
}

/**
 * Versions per archetype, with opm's checks: each image is a rendered bundle of the one package,
 * listed once per archetype, and no two versions differ only by build metadata.
 */
function collectVersions(
  t: SemverTemplate,
  byImage: Map<string, RenderedBundle>,
): { pkg: string; versions: Record<Archetype, VersionedBundle[]> } {
  let pkg: string | undefined;
  const versions: Record<Archetype, VersionedBundle[]> = { candidate: [], fast: [], stable: [] };
  const post = (msg: string, line: number): OpmError =>
    new OpmError(POST_PREFIX + msg, { at: { file: t.label, line } });
  for (const arch of ARCHETYPES) {
    const seen = new Set<string>();
    for (const img of t.bundles[arch]) {
      const rb = byImage.get(img.image);
      if (rb === undefined) {
        throw post(
          `supplied bundle image name ${goQuote(img.image)} not found in rendered bundle images`,
          img.line,
        );
      }
      const b = rb.bundle;
      let version: SemVer;
      try {
        version = bundleVersion(b).version;
      } catch (e) {
        if (e instanceof OpmError) throw post(e.message, img.line);
        throw e;
      }
      if (pkg === undefined) pkg = b.package;
      else if (b.package !== pkg) {
        throw post(`bundle ${goQuote(b.package)} does not belong to this package: ${goQuote(pkg)}`, img.line);
      }
      if (seen.has(b.name)) throw post(`duplicate bundle name ${goQuote(b.name)}`, img.line);
      seen.add(b.name);
      versions[arch].push({ name: b.name, version, line: img.line });
    }
    // Build metadata does not take part in precedence, so such versions cannot be ordered.
    const byCore = new Map<string, VersionedBundle[]>();
    for (const vb of versions[arch]) {
      const core = formatSemver(withoutBuild(vb.version));
      const list = byCore.get(core);
      if (list === undefined) byCore.set(core, [vb]);
      else list.push(vb);
    }
    const problems: string[] = [];
    let firstLine: number | undefined;
    for (const [core, list] of byCore) {
      if (list.length < 2) continue;
      firstLine ??= list[1]?.line;
      for (const vb of list.slice(1)) {
        const item = `bundle version ${goQuote(formatSemver(vb.version))} cannot be compared to ${goQuote(core)}`;
        if (!problems.includes(item)) problems.push(item);
      }
    }
    if (problems.length > 0) {
      throw post(
        `encountered bundle versions which differ only by build metadata, which cannot be ordered: ${aggregate(problems)}`,
        firstLine ?? 1,
      );
    }
  }
  return { pkg: pkg ?? '', versions };
}

interface HighWater {
  arch: Archetype;
  kind: StreamKind | 'none';
  version: SemVer;
  name: string;
}

/**
 * Whether a newly created channel becomes the default-channel candidate (opm's "high-water mark"):
 * a more stable archetype wins, else a higher version, else the preferred kind, else minor.
 */
function outranks(c: HighWater, cur: HighWater, pref: StreamKind): boolean {
  if (ARCH_PRIORITY[c.arch] !== ARCH_PRIORITY[cur.arch])
    return ARCH_PRIORITY[c.arch] > ARCH_PRIORITY[cur.arch];
  const v = compareSemver(c.version, cur.version);
  if (v !== 0) return v > 0;
  if (c.kind === cur.kind) return false;
  if (c.kind === pref) return true;
  if (cur.kind === pref) return false;
  return KIND_PRIORITY[c.kind] > KIND_PRIORITY[cur.kind];
}

export interface GeneratedChannels {
  channels: Channel[];
  defaultChannel: string;
}

/**
 * Generate the channels, their edges and the default channel from bundle versions per archetype.
 * Versions must already be free of build-metadata ties.
 */
export function generateSemverChannels(
  pkg: string,
  versions: Record<Archetype, { name: string; version: SemVer }[]>,
  opts: { major: boolean; minor: boolean; preference: StreamKind; compat?: SemverCompat },
): GeneratedChannels {
  const channels = new Map<string, Channel>();
  const tuples: EntryTuple[] = [];
  let high: HighWater = {
    arch: 'candidate',
    kind: 'none',
    version: { major: 0n, minor: 0n, patch: 0n, pre: [], build: [] },
    name: '',
  };
  for (const arch of ARCHETYPES) {
    const sorted = [...versions[arch]].sort((a, b) => compareSemver(a.version, b.version));
    for (const b of sorted) {
      const kinds: StreamKind[] = [];
      if (opts.major) kinds.push('major');
      if (opts.minor) kinds.push('minor');
      for (const kind of kinds) {
        const name =
          kind === 'major' ? `${arch}-v${b.version.major}` : `${arch}-v${b.version.major}.${b.version.minor}`;
        let ch = channels.get(name);
        if (ch === undefined) {
          ch = { schema: SCHEMA_CHANNEL, name, package: pkg, entries: [] };
          channels.set(name, ch);
          const candidate: HighWater = { arch, kind, version: b.version, name };
          if (outranks(candidate, high, opts.preference)) high = candidate;
        }
        const entry: ChannelEntry = { name: b.name };
        ch.entries?.push(entry);
        tuples.push({ arch, kind, version: b.version, entry, channel: name });
      }
    }
  }
  if ((opts.compat ?? DEFAULT_SEMVER_COMPAT) === 'v1.46') linkEachChannel(tuples);
  else linkEntries(tuples);
  return {
    channels: [...channels.values()].sort((a, b) => compareUtf8(a.name, b.name)),
    defaultChannel: high.name,
  };
}

/**
 * opm 1.46: each channel is linked on its own. Its entries are in ascending version order; the last
 * entry of each minor version (the Y-stream head) replaces the previous head, and skips it and the
 * earlier entries of its own minor, in that order (opm appends them; it does not sort them).
 */
function linkEachChannel(tuples: EntryTuple[]): void {
  const byChannel = new Map<string, EntryTuple[]>();
  for (const t of tuples) {
    const list = byChannel.get(t.channel);
    if (list === undefined) byChannel.set(t.channel, [t]);
    else list.push(t);
  }
  for (const entries of byChannel.values()) {
    let prevHead: string | undefined;
    let groupStart = 0;
    for (let i = 0; i < entries.length; i++) {
      const cur = entries[i];
      const next = entries[i + 1];
      if (cur === undefined) continue;
      if (next !== undefined && sameMinor(next.version, cur.version)) continue;
      const skips: string[] = [];
      if (prevHead !== undefined) {
        cur.entry.replaces = prevHead;
        skips.push(prevHead);
      }
      for (const e of entries.slice(groupStart, i)) skips.push(e.entry.name);
      if (skips.length > 0) cur.entry.skips = skips;
      prevHead = cur.entry.name;
      groupStart = i + 1;
    }
  }
}

function sameMinor(a: SemVer, b: SemVer): boolean {
  return a.major === b.major && a.minor === b.minor;
}

/** opm 1.73: Y-stream heads linked across the channels of one archetype, kind and major. */
function linkEntries(tuples: EntryTuple[]): void {
  const sorted = tuples
    .map((t, i) => ({ t, i }))
    .sort(
      (a, b) =>
        ARCH_PRIORITY[a.t.arch] - ARCH_PRIORITY[b.t.arch] ||
        KIND_ORDER[a.t.kind] - KIND_ORDER[b.t.kind] ||
        compareSemver(a.t.version, b.t.version) ||
        a.i - b.i,
    )
    .map((x) => x.t);
  let start = 0;
  while (start < sorted.length) {
    const first = sorted[start];
    if (first === undefined) break;
    let end = start;
    while (end < sorted.length) {
      const t = sorted[end];
      if (
        t === undefined ||
        t.arch !== first.arch ||
        t.kind !== first.kind ||
        t.version.major !== first.version.major
      ) {
        break;
      }
      end++;
    }
    linkPartition(sorted.slice(start, end));
    start = end;
  }
}

function linkPartition(part: EntryTuple[]): void {
  let prevHead: string | undefined;
  for (let i = 0; i < part.length; i++) {
    const cur = part[i];
    const next = part[i + 1];
    if (cur === undefined) continue;
    if (next !== undefined && next.version.minor === cur.version.minor) continue;
    // cur is the last bundle of its minor version: the Y-stream head. It skips every earlier entry
    // of the partition but the one it replaces (a sorted set in opm).
    const skips = new Set<string>();
    for (const e of part.slice(0, i)) skips.add(e.entry.name);
    if (prevHead !== undefined) {
      cur.entry.replaces = prevHead;
      skips.delete(prevHead);
    }
    if (skips.size > 0) cur.entry.skips = [...skips].sort(compareUtf8);
    prevHead = cur.entry.name;
  }
}

/**
 * Description and icon of the package, from the CSV of the default channel's head (opm 1.73; a CSV
 * without them, or one that does not parse, leaves them out).
 */
function packageMetadata(csv: RenderedBundle['csv']): { description?: string; icon?: Icon } {
  const spec = csv?.['spec'];
  if (!isJsonObject(spec)) return {};
  const out: { description?: string; icon?: Icon } = {};
  const description = spec['description'];
  if (typeof description === 'string' && description !== '') out.description = description;
  const icons = spec['icon'];
  const icon = Array.isArray(icons) ? icons[0] : undefined;
  if (isJsonObject(icon)) {
    const data = icon['base64data'];
    const mediatype = icon['mediatype'];
    if (typeof data === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(data) && data.length % 4 === 0) {
      out.icon = {
        base64data: Buffer.from(data, 'base64').toString('base64'),
        mediatype: typeof mediatype === 'string' ? mediatype : '',
      };
    }
  }
  return out;
}

/**
 * Build the catalog of a semver template from its rendered bundles: one package, the generated
 * channels, and every rendered bundle (in the order of `rendered`).
 */
export function buildSemverCatalog(
  t: SemverTemplate,
  rendered: { image: string; bundles: RenderedBundle[] }[],
  compat: SemverCompat = DEFAULT_SEMVER_COMPAT,
): DeclarativeConfig {
  const byImage = new Map<string, RenderedBundle>();
  const images = new Map(semverTemplateImages(t).map((i) => [i.image, i.line]));
  for (const r of rendered) {
    if (r.bundles.length !== 1) {
      throw new OpmError(
        `bundle reference ${goQuote(r.image)} resulted in ${r.bundles.length} bundles, expected 1`,
        { at: { file: t.label, line: images.get(r.image) ?? 1 } },
      );
    }
    for (const rb of r.bundles) byImage.set(rb.bundle.image, rb);
  }
  const { pkg, versions } = collectVersions(t, byImage);
  const { channels, defaultChannel } = generateSemverChannels(pkg, versions, {
    major: t.generateMajorChannels,
    minor: t.generateMinorChannels,
    preference: t.defaultChannelTypePreference,
    compat,
  });
  const p: Package = { schema: SCHEMA_PACKAGE, name: pkg, defaultChannel };
  if (compat === 'current') {
    const head = channels.find((c) => c.name === defaultChannel)?.entries?.at(-1)?.name;
    const rb = [...byImage.values()].find((r) => r.bundle.name === head);
    const meta = packageMetadata(rb?.csv);
    if (meta.icon !== undefined) p.icon = meta.icon;
    if (meta.description !== undefined) p.description = meta.description;
  }
  const cfg = emptyConfig();
  cfg.packages.push(p);
  cfg.channels.push(...channels);
  for (const r of rendered) for (const rb of r.bundles) cfg.bundles.push(rb.bundle);
  return cfg;
}
