import { parse as parseToml, TomlError } from 'smol-toml';
import { OpmError } from '../../errors.js';
import { isRecord } from '../../go/json-value.js';
import { DOMAIN } from '../reference.js';
import {
  emptyConf,
  sortByPrefix,
  type Alias,
  type MirrorEndpoint,
  type PullFromMirror,
  type RegistriesConf,
  type RegistryEntry,
} from './config.js';

const HINT = 'fix the file, or set CONTAINERS_REGISTRIES_CONF to another one (/dev/null for none)';

const TOP_KEYS = new Set([
  'registry',
  'aliases',
  'unqualified-search-registries',
  'short-name-mode',
  'credential-helpers',
  'additional-layer-store-auth-helper',
  'registries',
]);
const REGISTRY_KEYS = new Set([
  'prefix',
  'location',
  'insecure',
  'blocked',
  'mirror',
  'mirror-by-digest-only',
  'pull-from-mirror',
]);
const MIRROR_KEYS = new Set(['location', 'insecure', 'pull-from-mirror']);
const PULL_FROM_MIRROR = new Set<string>(['all', 'digest-only', 'tag-only']);
const SHORT_NAME_MODES = new Set<string>(['enforcing', 'permissive', 'disabled']);

export interface ParseOptions {
  /** Drop-in files must use the version 2 format; the main file may still use version 1. */
  dropIn?: boolean;
}

/** One registries.conf file, validated the way containers/image validates it. */
export function parseRegistriesConf(text: string, file: string, opts: ParseOptions = {}): RegistriesConf {
  // The position goes into the message: callers prefix their own context (the image being pulled).
  const fail = (message: string, line?: number): OpmError =>
    new OpmError(`${file}${line === undefined ? '' : `:${line}`}: ${message}`, {
      code: 'E_REGISTRIES_CONF',
      hint: HINT,
    });
  /** The first line holding `"value"`, to point at the table an error is about. */
  const lineOf = (value: string): number | undefined => {
    if (value === '') return undefined;
    const i = text.split('\n').findIndex((l) => l.includes(`"${value}"`) || l.includes(`'${value}'`));
    return i < 0 ? undefined : i + 1;
  };
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text);
  } catch (err) {
    if (err instanceof TomlError) {
      const first = err.message.split('\n')[0] ?? '';
      throw fail(first.replace(/^Invalid TOML document: /, 'invalid TOML: '), err.line);
    }
    throw fail(`invalid TOML: ${err instanceof Error ? err.message : String(err)}`);
  }
  const conf = emptyConf();
  conf.files.push(file);
  const warn = (what: string): void => void conf.warnings.push(`${file}: ${what}`);
  for (const key of Object.keys(doc)) if (!TOP_KEYS.has(key)) warn(`unknown key "${key}" ignored`);

  const v1 = doc.registries;
  const hasV2 = ['registry', 'aliases', 'unqualified-search-registries', 'short-name-mode'].some(
    (k) => doc[k] !== undefined,
  );
  if (v1 !== undefined) {
    if (opts.dropIn === true)
      throw fail('drop-in files must use the version 2 format ([[registry]] tables), not [registries.*]');
    if (hasV2) throw fail('mixes the version 1 format ([registries.*]) with version 2 ([[registry]] …)');
    return fromV1(v1, file, conf, fail);
  }

  const bool = (v: unknown, what: string, line?: number): boolean => {
    if (v === undefined) return false;
    if (typeof v !== 'boolean') throw fail(`${what} must be true or false`, line);
    return v;
  };
  const str = (v: unknown, what: string, line?: number): string => {
    if (v === undefined) return '';
    if (typeof v !== 'string') throw fail(`${what} must be a string`, line);
    return v;
  };

  const raw = doc.registry;
  if (raw !== undefined && !Array.isArray(raw))
    throw fail('"registry" must be an array of tables: write [[registry]]');
  const entries: RegistryEntry[] = [];
  const rawList: unknown[] = Array.isArray(raw) ? raw : [];
  for (const [i, r] of rawList.entries()) {
    if (!isRecord(r)) throw fail(`[[registry]] #${i + 1} must be a table`);
    const where = `[[registry]] #${i + 1}`;
    const line = lineOf(
      typeof r.prefix === 'string' ? r.prefix : typeof r.location === 'string' ? r.location : '',
    );
    for (const k of Object.keys(r)) if (!REGISTRY_KEYS.has(k)) warn(`${where}: unknown key "${k}" ignored`);
    const location = parseLocation(str(r.location, `${where}: "location"`, line), where, line, fail);
    let prefix = str(r.prefix, `${where}: "prefix"`, line);
    if (prefix === '') {
      if (location === '') throw fail(`${where}: neither "prefix" nor "location" is set`, line);
      prefix = location;
    } else {
      prefix = parseLocation(prefix, where, line, fail);
      if (!prefix.startsWith('*.') && location === '')
        throw fail(
          `${where}: "location" is unset and prefix "${prefix}" is not a wildcard (*.example.com)`,
          line,
        );
      if (prefix.startsWith('*.') && /[/@:]/.test(prefix))
        throw fail(`${where}: wildcard prefix "${prefix}" must have the form *.example.com`, line);
    }
    if (r['pull-from-mirror'] !== undefined)
      throw fail(
        `${where}: "pull-from-mirror" belongs in a [[registry.mirror]] table, not in [[registry]]`,
        line,
      );
    const mirrorByDigestOnly = bool(r['mirror-by-digest-only'], `${where}: "mirror-by-digest-only"`, line);
    const rawMirrors = r.mirror;
    if (rawMirrors !== undefined && !Array.isArray(rawMirrors))
      throw fail(`${where}: "mirror" must be an array of tables: write [[registry.mirror]]`, line);
    const mirrors: MirrorEndpoint[] = [];
    const mirrorList: unknown[] = Array.isArray(rawMirrors) ? rawMirrors : [];
    for (const [j, m] of mirrorList.entries()) {
      const mwhere = `${where} mirror #${j + 1}`;
      if (!isRecord(m)) throw fail(`${mwhere} must be a table`, line);
      for (const k of Object.keys(m)) if (!MIRROR_KEYS.has(k)) warn(`${mwhere}: unknown key "${k}" ignored`);
      const mline = lineOf(typeof m.location === 'string' ? m.location : '') ?? line;
      const mloc = parseLocation(str(m.location, `${mwhere}: "location"`, mline), mwhere, mline, fail);
      if (mloc === '') throw fail(`${mwhere}: "location" is unset`, mline);
      const pfm = str(m['pull-from-mirror'], `${mwhere}: "pull-from-mirror"`, mline);
      if (pfm !== '' && !PULL_FROM_MIRROR.has(pfm))
        throw fail(`${mwhere}: "pull-from-mirror" is "${pfm}"; expected all, digest-only or tag-only`, mline);
      if (pfm !== '' && mirrorByDigestOnly)
        throw fail(
          `${mwhere}: "pull-from-mirror" cannot be combined with the registry's "mirror-by-digest-only"`,
          mline,
        );
      mirrors.push({
        location: mloc,
        insecure: bool(m.insecure, `${mwhere}: "insecure"`, mline),
        pullFromMirror: (pfm === '' ? 'all' : pfm) as PullFromMirror,
      });
    }
    entries.push({
      prefix,
      location,
      insecure: bool(r.insecure, `${where}: "insecure"`, line),
      blocked: bool(r.blocked, `${where}: "blocked"`, line),
      mirrorByDigestOnly,
      mirrors,
      file,
    });
  }
  // One location may back several prefixes, but not with different security settings.
  for (const e of entries) {
    const key = e.location === '' ? e.prefix : e.location;
    const other = entries.find((o) => (o.location === '' ? o.prefix : o.location) === key);
    if (
      other !== undefined &&
      other !== e &&
      (other.insecure !== e.insecure || other.blocked !== e.blocked)
    ) {
      const which = other.insecure !== e.insecure ? 'insecure' : 'blocked';
      throw fail(
        `registry "${key}" is defined more than once with different "${which}" settings`,
        lineOf(e.prefix),
      );
    }
  }
  // The first table with a prefix wins, as in containers/image; later ones are said to be ignored.
  const seen = new Map<string, RegistryEntry>();
  for (const e of entries) {
    if (seen.has(e.prefix)) warn(`a second [[registry]] with prefix "${e.prefix}" is ignored`);
    else seen.set(e.prefix, e);
  }
  conf.registries = sortByPrefix([...seen.values()]);

  const usr = doc['unqualified-search-registries'];
  if (usr !== undefined) {
    if (!Array.isArray(usr) || usr.some((x) => typeof x !== 'string'))
      throw fail('"unqualified-search-registries" must be an array of strings');
    conf.unqualifiedSearchRegistries = usr.map((x: string) => {
      const host = x.replace(/\/+$/, '');
      if (!DOMAIN.test(host))
        throw fail(`"unqualified-search-registries" entry "${x}" is not a host[:port]`, lineOf(x));
      return host;
    });
  }
  const mode = doc['short-name-mode'];
  if (mode !== undefined && mode !== '') {
    if (typeof mode !== 'string' || !SHORT_NAME_MODES.has(mode))
      throw fail(`"short-name-mode" is ${JSON.stringify(mode)}; expected enforcing, permissive or disabled`);
    conf.shortNameMode = mode as RegistriesConf['shortNameMode'];
  }
  const aliases = doc.aliases;
  if (aliases !== undefined) {
    if (!isRecord(aliases)) throw fail('[aliases] must be a table of "name" = "registry/repository"');
    for (const [name, value] of Object.entries(aliases)) {
      const line = lineOf(name);
      if (typeof value !== 'string') throw fail(`alias "${name}" must be a string`, line);
      checkAlias(name, value, line, fail);
      conf.aliases.set(name, { value, file } satisfies Alias);
    }
  }
  return conf;
}

function parseLocation(
  input: string,
  where: string,
  line: number | undefined,
  fail: (m: string, line?: number) => OpmError,
): string {
  const trimmed = input.replace(/\/+$/, '');
  if (/^https?:\/\//.test(trimmed))
    throw fail(
      `${where}: "${input}" has a URL scheme; write host[:port][/namespace] (use "insecure" for HTTP)`,
      line,
    );
  return trimmed;
}

/** The host part when `name` starts with one (a dot or port in its first component, or localhost). */
export function hostOf(name: string): string | undefined {
  const slash = name.indexOf('/');
  if (slash < 0) return undefined;
  const first = name.slice(0, slash);
  return first.includes('.') || first.includes(':') || first === 'localhost' ? first : undefined;
}

function checkAlias(
  name: string,
  value: string,
  line: number | undefined,
  fail: (m: string, line?: number) => OpmError,
): void {
  if (/[:@]/.test(name.replace(/^[^/]*\//, '')) || name.includes('@'))
    throw fail(`alias "${name}": the name may not have a tag or digest`, line);
  if (hostOf(name) !== undefined || name === 'localhost')
    throw fail(`alias "${name}": the name must be a short name, without a registry`, line);
  if (value === '') return;
  const host = hostOf(value);
  if (host === undefined || !DOMAIN.test(host))
    throw fail(
      `alias "${name}": "${value}" must be a fully qualified repository (registry/repository)`,
      line,
    );
  const path = value.slice(host.length + 1);
  if (/[:@]/.test(path)) throw fail(`alias "${name}": "${value}" may not have a tag or digest`, line);
}

/** Version 1 (`[registries.search|insecure|block] registries = […]`) as version 2 tables. */
function fromV1(
  v1: unknown,
  file: string,
  conf: RegistriesConf,
  fail: (m: string, line?: number) => OpmError,
): RegistriesConf {
  if (!isRecord(v1)) throw fail('[registries] must be a table');
  const list = (k: string): string[] => {
    const t = v1[k];
    if (t === undefined) return [];
    const regs = isRecord(t) ? t.registries : undefined;
    if (!Array.isArray(regs) || regs.some((x) => typeof x !== 'string'))
      throw fail(`[registries.${k}] must hold registries = ["host", …]`);
    return regs.map((x: string) => x.replace(/\/+$/, ''));
  };
  const byLocation = new Map<string, RegistryEntry>();
  const get = (location: string): RegistryEntry => {
    if (location === '') throw fail('a [registries.*] entry is empty');
    let e = byLocation.get(location);
    if (e === undefined) {
      e = {
        prefix: location,
        location,
        insecure: false,
        blocked: false,
        mirrorByDigestOnly: false,
        mirrors: [],
        file,
      };
      byLocation.set(location, e);
    }
    return e;
  };
  for (const l of list('block')) get(l).blocked = true;
  for (const l of list('insecure')) get(l).insecure = true;
  const search = list('search');
  if (search.length > 0) conf.unqualifiedSearchRegistries = search;
  conf.registries = sortByPrefix([...byLocation.values()]);
  return conf;
}
