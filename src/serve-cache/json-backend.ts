/**
 * The older `json` layout of opm's cache, which opm still reads: `<dir>/digest`,
 * `<dir>/cache/packages.json`, one `<dir>/cache/<package>_<channel>_<bundle>.json` per bundle (Go's
 * encoding/json of the `api.Bundle` struct) and the custom-schema blobs as
 * `<dir>/cache/metas/<schema>/<package>/<fnv64a of the blob>.json`.
 *
 * Its digest is FNV-1a 64 over two tar streams as Go's archive/tar writes them: the catalog
 * directory, then `cache/`, every entry in walk order (symlinks left out) with its permission bits
 * and size, owner, names and times zeroed. Entries whose names need PAX records (not ASCII, or too
 * long for a USTAR name and prefix) are refused rather than guessed at.
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { errnoCode } from '../go/errno.js';
import { isRecord, type JsonObject } from '../go/json-value.js';
import { compareUtf8 } from '../go/utf8.js';
import { Fnv1a64 } from './hash.js';
import {
  emptyBundle,
  encodeBundle,
  type ApiBundle,
  type ApiGroupVersionKind,
  type ApiTypedValue,
} from '../api-contract/messages.js';
import { encodeStruct } from '../protobuf/struct.js';
import { throwIfAborted } from '../util/abort.js';

/** A json-layout cache that cannot be read or hashed. */
export class JsonCacheError extends Error {}

const BLOCK = 512;

function octal(block: Buffer, at: number, width: number, x: number): void {
  const s = x.toString(8).padStart(width - 1, '0');
  if (s.length > width - 1) throw new JsonCacheError(`tar: value ${x} does not fit in a USTAR field`);
  block.write(s, at, 'latin1');
}

/** USTAR's split of a long name into prefix and name (Go's splitUSTARPath). */
function splitName(name: string): [string, string] | undefined {
  let length = name.length;
  if (length > 156) length = 156;
  else if (name[length - 1] === '/') length--;
  const i = name.lastIndexOf('/', length - 1);
  const suffix = name.length - i - 1;
  if (i <= 0 || suffix > 100 || suffix === 0 || i > 155) return undefined;
  return [name.slice(0, i), name.slice(i + 1)];
}

function tarHeader(name: string, mode: number, size: number, typeflag: string): Buffer {
  // eslint-disable-next-line no-control-regex
  if (!/^[\x00-\x7f]*$/.test(name))
    throw new JsonCacheError(`tar: ${name}: names outside ASCII are not supported`);
  let prefix = '';
  let base = name;
  if (name.length > 100) {
    const split = splitName(name);
    if (split === undefined) throw new JsonCacheError(`tar: ${name}: name too long for a USTAR header`);
    [prefix, base] = split;
  }
  const b = Buffer.alloc(BLOCK);
  b.write(base, 0, 'latin1');
  octal(b, 100, 8, mode);
  octal(b, 108, 8, 0);
  octal(b, 116, 8, 0);
  octal(b, 124, 12, size);
  octal(b, 136, 12, 0);
  b.write(typeflag, 156, 'latin1');
  b.write('ustar\u000000', 257, 'latin1');
  octal(b, 329, 8, 0);
  octal(b, 337, 8, 0);
  b.write(prefix, 345, 'latin1');
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (b[i] as number);
  octal(b, 148, 7, sum);
  b[155] = 0x20;
  return b;
}

/** Feed `h` the tar stream Go's fsToTar writes for the tree at `root`. */
function hashTree(h: Fnv1a64, root: string, signal: AbortSignal | undefined): void {
  const visit = (rel: string): void => {
    throwIfAborted(signal);
    const abs = rel === '.' ? root : path.join(root, rel);
    const st = lstatSync(abs);
    if (st.isSymbolicLink()) return;
    // Permission bits plus setuid, setgid and sticky, as Go's FileInfoHeader keeps them.
    const mode = st.mode & 0o7777;
    if (st.isDirectory()) {
      h.update(tarHeader(rel, mode, 0, '5'));
      const names = readdirSync(abs).sort(compareUtf8);
      for (const n of names) visit(rel === '.' ? n : `${rel}/${n}`);
      return;
    }
    if (!st.isFile()) throw new JsonCacheError(`tar: ${rel}: not a regular file`);
    const data = readFileSync(abs);
    h.update(tarHeader(rel, mode, data.length, '0'));
    h.update(data);
    const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
    if (pad > 0) h.update(new Uint8Array(pad));
  };
  visit('.');
  h.update(new Uint8Array(2 * BLOCK));
}

/** The json layout's digest of a catalog directory and the layout's `cache/` directory. */
export function jsonBackendDigest(
  catalogDir: string,
  cacheSubdir: string,
  signal?: AbortSignal,
): Promise<string> {
  const h = new Fnv1a64();
  hashTree(h, catalogDir, signal);
  try {
    hashTree(h, cacheSubdir, signal);
  } catch (err) {
    // opm skips a `cache/` that is not there.
    if (errnoCode(err) !== 'ENOENT') throw err;
  }
  return Promise.resolve(h.hex());
}

function strField(o: Record<string, unknown>, k: string): string {
  const v = o[k];
  return typeof v === 'string' ? v : '';
}

function list<T>(o: Record<string, unknown>, k: string, f: (x: Record<string, unknown>) => T): T[] {
  const v = o[k];
  return Array.isArray(v) ? v.filter(isRecord).map(f) : [];
}

const gvk = (x: Record<string, unknown>): ApiGroupVersionKind => ({
  group: strField(x, 'group'),
  version: strField(x, 'version'),
  kind: strField(x, 'kind'),
  plural: strField(x, 'plural'),
});
const typed = (x: Record<string, unknown>): ApiTypedValue => ({
  type: strField(x, 'type'),
  value: strField(x, 'value'),
});

/** An `api.Bundle` from the JSON Go's encoding/json writes for it (field names as in the proto). */
export function apiBundleFromJson(o: Record<string, unknown>): ApiBundle {
  const b = emptyBundle();
  for (const k of [
    'csvName',
    'packageName',
    'channelName',
    'csvJson',
    'bundlePath',
    'version',
    'skipRange',
    'replaces',
  ] as const) {
    b[k] = strField(o, k);
  }
  const strings = (k: string): string[] => {
    const v = o[k];
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  };
  b.object = strings('object');
  b.skips = strings('skips');
  b.providedApis = list(o, 'providedApis', gvk);
  b.requiredApis = list(o, 'requiredApis', gvk);
  b.dependencies = list(o, 'dependencies', typed);
  b.properties = list(o, 'properties', typed);
  const d = o.deprecation;
  if (isRecord(d)) b.deprecation = { message: strField(d, 'message') };
  return b;
}

/** A bundle of a json-layout cache as protobuf `api.Bundle` bytes; undefined when it is not there. */
export function readJsonBundle(
  cacheSubdir: string,
  pkg: string,
  channel: string,
  name: string,
): Uint8Array | undefined {
  let text;
  try {
    text = readFileSync(path.join(cacheSubdir, `${pkg}_${channel}_${name}.json`), 'utf8');
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return undefined;
    throw err;
  }
  const o: unknown = JSON.parse(text);
  if (!isRecord(o)) throw new JsonCacheError(`${pkg}_${channel}_${name}.json: not a JSON object`);
  return encodeBundle(apiBundleFromJson(o));
}

/** The custom-schema blobs of a json-layout cache for (schema, package), as protobuf Structs. */
export function readJsonMetas(cacheSubdir: string, schema: string, pkg: string): Uint8Array[] {
  const dir = path.join(cacheSubdir, 'metas', schema, pkg);
  let names: string[];
  try {
    names = readdirSync(dir).sort(compareUtf8);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return [];
    throw err;
  }
  const out: Uint8Array[] = [];
  for (const n of names) {
    if (path.extname(n) !== '.json' || lstatSync(path.join(dir, n)).isDirectory()) continue;
    const o: unknown = JSON.parse(readFileSync(path.join(dir, n), 'utf8'));
    if (!isRecord(o)) throw new JsonCacheError(`${n}: not a JSON object`);
    out.push(encodeStruct(o as JsonObject));
  }
  return out;
}
