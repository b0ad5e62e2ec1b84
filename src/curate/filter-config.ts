/**
 * What a filter keeps, and reading it from a file. The file takes the shape oc-mirror users already
 * write for `mirror.operators[].packages` (an ImageSetConfiguration, a `{packages: [...]}` document,
 * or a bare list of packages); schemas/filter-config.json describes it.
 */
import { LineCounter, isMap, isScalar, isSeq, type Node as YamlNode, type YAMLMap } from 'yaml';
import { OpmError, type SourcePosition } from '../errors.js';
import { parseConfigDocument } from '../yaml/config-text.js';
import { parseSemver, SemverError, compareSemver, type SemVer } from '../model/semver.js';

export interface VersionBound {
  text: string;
  version: SemVer;
}

export interface ChannelSelection {
  name: string;
  minVersion?: VersionBound;
  maxVersion?: VersionBound;
  /** Where the selection was written (`--config` file and line), for messages. */
  origin: string;
}

export interface PackageSelection {
  name: string;
  /** Empty: every channel (or, with a package-level version range or heads-only, the default one). */
  channels: ChannelSelection[];
  minVersion?: VersionBound;
  maxVersion?: VersionBound;
  /** The default channel of the filtered package, when the catalog's is not kept. */
  defaultChannel?: string;
  origin: string;
}

export interface FilterSpec {
  /** Empty: every package. */
  packages: PackageSelection[];
  /** Keep only the head of each kept channel. */
  headsOnly: boolean;
}

/** `--package NAME` flags: whole packages. */
export function packagesFromFlags(names: readonly string[]): PackageSelection[] {
  return names.map((name) => ({ name, channels: [], origin: `--package ${name}` }));
}

/** Join the selections of the flags and of the file; a package named twice is an error. */
export function mergeSelections(...lists: PackageSelection[][]): PackageSelection[] {
  const seen = new Map<string, PackageSelection>();
  for (const p of lists.flat()) {
    const first = seen.get(p.name);
    if (first !== undefined) {
      throw new OpmError(`package "${p.name}" is selected twice (${first.origin} and ${p.origin})`, {
        hint: 'name each package once',
      });
    }
    seen.set(p.name, p);
  }
  return [...seen.values()];
}

class ConfigReader {
  private counter = new LineCounter();
  private readonly file: string;
  private readonly text: string;
  constructor(file: string, text: string) {
    this.file = file;
    this.text = text;
  }

  parse(catalogRef: string | undefined): PackageSelection[] {
    // The failsafe schema reads every scalar as text: `minVersion: 1.10` stays "1.10". Parse
    // errors, nesting too deep and excessive aliasing are OpmErrors with file and line.
    const { doc, counter } = parseConfigDocument(this.text, this.file, {
      version: '1.2',
      schema: 'failsafe',
      uniqueKeys: true,
    });
    this.counter = counter;
    const root = doc.contents as YamlNode | null;
    if (root === null) throw this.fail(undefined, 'the file is empty', 'list the packages to keep');
    if (isSeq(root)) return this.packages(root);
    if (!isMap(root)) throw this.fail(root, 'expected a list of packages or a mapping');
    const mirror = root.get('mirror', true) as YamlNode | undefined;
    if (mirror !== undefined) return this.imageSetConfiguration(mirror, catalogRef);
    const packages = root.get('packages', true) as YamlNode | undefined;
    if (packages === undefined) {
      throw this.fail(root, 'no packages found', 'write `packages:` or `mirror.operators[].packages`');
    }
    return this.packages(packages);
  }

  private imageSetConfiguration(mirror: YamlNode, catalogRef: string | undefined): PackageSelection[] {
    if (!isMap(mirror)) throw this.fail(mirror, '`mirror` must be a mapping');
    const operators = mirror.get('operators', true) as YamlNode | undefined;
    if (operators === undefined || !isSeq(operators) || operators.items.length === 0) {
      throw this.fail(operators ?? mirror, '`mirror.operators` must list at least one catalog');
    }
    const entries = operators.items as YamlNode[];
    let chosen = entries[0];
    if (entries.length > 1) {
      chosen = entries.find((e) => isMap(e) && this.str(e.get('catalog', true) as YamlNode) === catalogRef);
      if (chosen === undefined) {
        const catalogs = entries.map((e) => (isMap(e) ? this.str(e.get('catalog', true) as YamlNode) : ''));
        throw this.fail(
          operators,
          `\`mirror.operators\` lists ${entries.length} catalogs and none is "${catalogRef ?? ''}"`,
          `filter one of ${catalogs.map((c) => `"${c}"`).join(', ')} by that reference`,
        );
      }
    }
    if (chosen === undefined || !isMap(chosen)) throw this.fail(chosen ?? operators, 'expected a mapping');
    const packages = chosen.get('packages', true) as YamlNode | undefined;
    if (packages === undefined) throw this.fail(chosen, 'the catalog entry lists no `packages`');
    return this.packages(packages);
  }

  private packages(node: YamlNode): PackageSelection[] {
    if (!isSeq(node)) throw this.fail(node, '`packages` must be a list');
    return (node.items as YamlNode[]).map((item) => this.package(item));
  }

  private package(node: YamlNode): PackageSelection {
    if (!isMap(node)) throw this.fail(node, 'a package entry must be a mapping with a `name`');
    this.knownKeys(node, ['name', 'channels', 'minVersion', 'maxVersion', 'defaultChannel'], 'package');
    const name = this.requiredString(node, 'name');
    const out: PackageSelection = { name, channels: [], origin: this.origin(node) };
    Object.assign(out, this.bounds(node, `package "${name}"`));
    const dc = node.get('defaultChannel', true) as YamlNode | undefined;
    if (dc !== undefined) out.defaultChannel = this.string(dc, 'defaultChannel');
    const channels = node.get('channels', true) as YamlNode | undefined;
    if (channels !== undefined) {
      if (!isSeq(channels)) throw this.fail(channels, '`channels` must be a list');
      const seen = new Set<string>();
      for (const c of channels.items as YamlNode[]) {
        if (!isMap(c)) throw this.fail(c, 'a channel entry must be a mapping with a `name`');
        this.knownKeys(c, ['name', 'minVersion', 'maxVersion'], 'channel');
        const cname = this.requiredString(c, 'name');
        if (seen.has(cname)) throw this.fail(c, `channel "${cname}" of package "${name}" is listed twice`);
        seen.add(cname);
        out.channels.push({
          name: cname,
          origin: this.origin(c),
          ...this.bounds(c, `channel "${cname}" of package "${name}"`),
        });
      }
    }
    if (out.defaultChannel !== undefined && out.channels.length > 0) {
      if (!out.channels.some((c) => c.name === out.defaultChannel)) {
        throw this.fail(
          node.get('defaultChannel', true) as YamlNode,
          `defaultChannel "${out.defaultChannel}" of package "${name}" is not one of its listed channels`,
        );
      }
    }
    return out;
  }

  private bounds(node: YAMLMap, what: string): { minVersion?: VersionBound; maxVersion?: VersionBound } {
    const out: { minVersion?: VersionBound; maxVersion?: VersionBound } = {};
    for (const key of ['minVersion', 'maxVersion'] as const) {
      const v = node.get(key, true) as YamlNode | undefined;
      if (v === undefined) continue;
      const text = this.string(v, key);
      try {
        out[key] = { text, version: parseSemver(text) };
      } catch (err) {
        if (!(err instanceof SemverError)) throw err;
        throw this.fail(v, `${key} "${text}" of ${what} is not a semantic version: ${err.message}`);
      }
    }
    if (
      out.minVersion &&
      out.maxVersion &&
      compareSemver(out.minVersion.version, out.maxVersion.version) > 0
    ) {
      throw this.fail(
        node,
        `minVersion ${out.minVersion.text} of ${what} is above its maxVersion ${out.maxVersion.text}`,
      );
    }
    return out;
  }

  private knownKeys(node: YAMLMap, known: string[], what: string): void {
    for (const pair of node.items) {
      const key = this.str(pair.key as YamlNode);
      if (!known.includes(key)) {
        throw this.fail(
          pair.key as YamlNode,
          `unknown key "${key}" in a ${what} entry`,
          `a ${what} entry takes ${known.join(', ')}`,
        );
      }
    }
  }

  private requiredString(node: YAMLMap, key: string): string {
    const v = node.get(key, true) as YamlNode | undefined;
    if (v === undefined) throw this.fail(node, `\`${key}\` is missing`);
    const s = this.string(v, key);
    if (s === '') throw this.fail(v, `\`${key}\` is empty`);
    return s;
  }

  private string(node: YamlNode, key: string): string {
    if (!isScalar(node)) throw this.fail(node, `\`${key}\` must be a string`);
    return String(node.value);
  }

  private str(node: YamlNode | undefined): string {
    return node !== undefined && isScalar(node) ? String(node.value) : '';
  }

  private origin(node: YamlNode): string {
    const at = this.at(node.range?.[0]);
    return `--config ${at.file}:${at.line ?? 1}`;
  }

  private at(offset: number | undefined): SourcePosition {
    return offset === undefined
      ? { file: this.file }
      : { file: this.file, line: this.counter.linePos(offset).line };
  }

  private fail(node: YamlNode | undefined, message: string, hint?: string): OpmError {
    return new OpmError(message, {
      at: this.at(node?.range?.[0]),
      ...(hint === undefined ? {} : { hint }),
    });
  }
}

/**
 * Read a filter file. `file` names it in messages; `catalogRef` picks the entry of an
 * ImageSetConfiguration that lists several catalogs. Throws OpmError with the file and line.
 */
export function parseFilterConfig(text: string, file: string, catalogRef?: string): PackageSelection[] {
  return new ConfigReader(file, text).parse(catalogRef);
}
