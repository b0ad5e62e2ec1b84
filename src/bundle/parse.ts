/**
 * Reading a registry+v1 bundle directory (`manifests/` + `metadata/`), as opm does, with clearer
 * failures: every problem names the file at fault.
 */
import { readdirSync, readFileSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { OpmError } from '../errors.js';
import { decodeFirstDocument, DecodeError, type FirstDocument } from './decode.js';
import { marshal } from '../go/json-encode.js';
import { nodeText, type JsonNode } from '../go/json-scan.js';
import { csvName } from './csv.js';
import type { Obj } from '../go/json-decode.js';
import type { NativeJson } from '../go/json-native.js';
import { isRecord } from '../go/json-value.js';
import { compareUtf8 } from '../go/utf8.js';
import { errnoText } from '../go/errno.js';
import { duplicateKeyMessage } from '../yaml/yaml11.js';
import { throwIfAborted } from '../util/abort.js';

import { CHANNELS_LABEL, DEFAULT_CHANNEL_LABEL, PACKAGE_LABEL } from './labels.js';

/** A `{type, value}` entry of a dependencies or properties file, with the value's JSON text as opm keeps it. */
export interface RawProperty {
  type: string;
  value: unknown;
  /** YAML files: Go's JSON of the value (sorted keys, HTML-escaped); JSON files: the text as written. */
  text: string;
}

export interface ManifestObject {
  /** Path relative to the bundle root, e.g. `manifests/foo.csv.yaml`. */
  file: string;
  object: Obj;
  /** `object` marked ready for JSON.stringify by the YAML reader (FirstDocument.native). */
  native?: NativeJson;
}

export interface RegistryBundle {
  /** The bundle root as given. */
  dir: string;
  /** Kept manifests in file order (the CSV among them, once). */
  objects: ManifestObject[];
  csv: ManifestObject;
  /** Bundle name: the CSV's `metadata.name`. */
  name: string;
  /** From the annotations file; '' when that file names none. */
  packageName: string;
  annotations: Record<string, string>;
  dependencies: RawProperty[];
  properties: RawProperty[];
}

export interface ParseOptions {
  /** Problems opm tolerates silently (extra documents, objects without kind). */
  onWarning?: (message: string) => void;
  /** Stops the reading: the promise rejects with the signal's reason (util/abort.ts). */
  signal?: AbortSignal;
}

function fail(file: string, message: string, cause?: unknown): never {
  throw new OpmError(`${file}: ${message}`, { ...(cause === undefined ? {} : { cause }) });
}

// The file system is asked synchronously, as the catalog loader does (row P5 of
// docs/compatibility.md): a bundle directory is a few small files, and each call of the promise API
// is a trip through the thread pool (a readFile four of them) that costs more than the call; the
// first one also starts the pool's threads. Rendering a bundle directory is a short command, where
// that was about a tenth of the CPU time (docs/performance.md).

/** Entries of a directory that are (or link to) regular files and do not start with `.`, by name bytes. */
function listFiles(dir: string): string[] {
  const names = readdirSync(dir).filter((n) => !n.startsWith('.'));
  names.sort(compareUtf8);
  const out: string[] = [];
  for (const n of names) {
    let st: Stats | undefined;
    try {
      st = statSync(path.join(dir, n));
    } catch {
      // A dangling link or an entry that went away: not a file to read.
    }
    if (st !== undefined && !st.isDirectory()) out.push(n);
  }
  return out;
}

/** Whether `dir` has real sub-directories `manifests` and `metadata` (symlinks do not count). */
export function isBundleDir(dir: string): Promise<boolean> {
  try {
    return Promise.resolve(isBundleDirSync(dir));
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}

/** isBundleDir, synchronously: throws what reading `dir` throws (ENOTDIR for a file). */
export function isBundleDirSync(dir: string): boolean {
  const entries = readdirSync(dir, { withFileTypes: true });
  const dirs = new Set(entries.filter((e) => e.isDirectory()).map((e) => e.name));
  return dirs.has('manifests') && dirs.has('metadata');
}

export function parseBundleDir(dir: string, opts: ParseOptions = {}): Promise<RegistryBundle> {
  try {
    return Promise.resolve(parseBundleDirSync(dir, opts));
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}

/** parseBundleDir, synchronously: the bundle, or the error thrown (the signal is checked between files). */
export function parseBundleDirSync(dir: string, opts: ParseOptions = {}): RegistryBundle {
  const warn = opts.onWarning ?? (() => undefined);
  const { objects, csv } = readManifests(dir, warn, opts.signal);
  const meta = readMetadata(dir, warn, opts.signal);
  let name: string;
  try {
    name = csvName(csv.object);
  } catch (err) {
    return fail(csv.file, err instanceof Error ? err.message : String(err), err);
  }
  return { dir, objects, csv, name, ...meta };
}

function readManifests(
  dir: string,
  warn: (m: string) => void,
  signal: AbortSignal | undefined,
): { objects: ManifestObject[]; csv: ManifestObject } {
  const mdir = path.join(dir, 'manifests');
  const objects: ManifestObject[] = [];
  let csv: ManifestObject | undefined;
  for (const n of listFiles(mdir)) {
    const file = `manifests/${n}`;
    const doc = decodeFile(path.join(mdir, n), file, warn, signal);
    if (doc.blankFirstDocument === true) {
      warn(`${file}: its first YAML document is empty, so the file contributes nothing (as in opm)`);
    } else if (doc.moreDocuments) {
      warn(`${file}: holds more than one YAML document; only the first is part of the bundle (as in opm)`);
    }
    if (doc.value === undefined || doc.value === null) continue;
    if (!isRecord(doc.value)) fail(file, 'is not a Kubernetes object (a YAML or JSON mapping)');
    const kind = doc.value.kind;
    if (typeof kind !== 'string' || kind === '') {
      warn(`${file}: has no "kind"; ignored (as in opm)`);
      continue;
    }
    const obj: ManifestObject =
      doc.native === undefined
        ? { file, object: doc.value }
        : { file, object: doc.value, native: doc.native };
    if (kind === 'ClusterServiceVersion') {
      if (csv !== undefined) {
        fail(file, `a second ClusterServiceVersion (the first is in ${csv.file}); a bundle has exactly one`);
      }
      csv = obj;
    }
    objects.push(obj);
  }
  if (objects.length === 0) fail('manifests/', 'no bundle objects found');
  if (csv === undefined) fail('manifests/', 'no ClusterServiceVersion in bundle');
  return { objects, csv };
}

function decodeFile(
  abs: string,
  file: string,
  warn: (m: string) => void,
  signal: AbortSignal | undefined,
): FirstDocument {
  throwIfAborted(signal);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    return fail(file, `cannot read: ${errnoText(err)}`, err);
  }
  try {
    return decodeFirstDocument(text, { onDuplicateKey: duplicateKeyWarning(file, warn) });
  } catch (err) {
    if (err instanceof DecodeError) return fail(file, `is not valid YAML or JSON: ${err.message}`, err);
    throw err;
  }
}

/** opm keeps the last of a key written twice; say so, since the first value is silently lost. */
function duplicateKeyWarning(
  file: string,
  warn: (m: string) => void,
): (line: number, key: string | undefined) => void {
  return (line, key) => warn(duplicateKeyMessage({ file, line }, key));
}

interface MetadataFiles {
  packageName: string;
  annotations: Record<string, string>;
  dependencies: RawProperty[];
  properties: RawProperty[];
}

/**
 * Every file of `metadata/` is tried as the annotations file (the first naming a package,
 * channels or default channel), the dependencies file (the first with entries) and the
 * properties file (the first with entries). Files that do not decode are not candidates.
 */
function readMetadata(
  dir: string,
  warn: (m: string) => void,
  signal: AbortSignal | undefined,
): MetadataFiles {
  const mdir = path.join(dir, 'metadata');
  let annotations: Record<string, string> | undefined;
  let dependencies: RawProperty[] | undefined;
  let properties: RawProperty[] | undefined;
  for (const n of listFiles(mdir)) {
    const file = `metadata/${n}`;
    throwIfAborted(signal);
    let text: string;
    try {
      text = readFileSync(path.join(mdir, n), 'utf8');
    } catch {
      continue;
    }
    let doc: FirstDocument;
    try {
      doc = decodeFirstDocument(text, {
        onDuplicateKey: duplicateKeyWarning(file, warn),
      });
    } catch {
      continue;
    }
    if (!isRecord(doc.value)) continue;
    if (annotations === undefined) annotations = annotationsOf(doc.value);
    if (dependencies === undefined) dependencies = propertyList(doc, 'dependencies', file);
    if (properties === undefined) properties = propertyList(doc, 'properties', file);
  }
  if (annotations === undefined) {
    fail('metadata/', `could not find annotations file (a file with "annotations:" naming ${PACKAGE_LABEL})`);
  }
  return {
    packageName: annotations[PACKAGE_LABEL] ?? '',
    annotations,
    dependencies: dependencies ?? [],
    properties: properties ?? [],
  };
}

function annotationsOf(doc: Obj): Record<string, string> | undefined {
  const a = doc.annotations;
  if (!isRecord(a)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(a)) {
    if (typeof v === 'string') out[k] = v;
    else if (v !== null) return undefined;
  }
  const named = [PACKAGE_LABEL, CHANNELS_LABEL, DEFAULT_CHANNEL_LABEL].some((k) => (out[k] ?? '') !== '');
  return named ? out : undefined;
}

/** The `{type, value}` entries under `key`, or undefined when there are none or they do not decode. */
function propertyList(
  doc: FirstDocument,
  key: 'dependencies' | 'properties',
  file: string,
): RawProperty[] | undefined {
  if (!isRecord(doc.value)) return undefined;
  const list = doc.value[key];
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const jsonItems = doc.json ? rawItems(doc.json.node, key) : undefined;
  const out: RawProperty[] = [];
  for (let i = 0; i < list.length; i++) {
    const e: unknown = list[i];
    if (!isRecord(e) || (e.type !== undefined && e.type !== null && typeof e.type !== 'string')) {
      fail(file, `${key}[${i}] is not a {type, value} entry`);
    }
    const type = typeof e.type === 'string' ? e.type : '';
    const rawNode = jsonItems?.[i];
    let text: string;
    if (doc.json && rawNode !== undefined) text = nodeText(doc.json.text, rawNode);
    else if (e.value === undefined) text = '';
    else text = marshal(e.value, true);
    out.push({ type, value: e.value, text });
  }
  return out;
}

/** The `value` nodes of the entries of `key` in a JSON document (last duplicate key wins, as in Go). */
function rawItems(root: JsonNode, key: string): (JsonNode | undefined)[] | undefined {
  if (root.kind !== 'object') return undefined;
  const list = root.entries.filter(([k]) => k === key).at(-1)?.[1];
  if (list === undefined || list.kind !== 'array') return undefined;
  return list.items.map((item) =>
    item.kind === 'object' ? item.entries.filter(([k]) => k === 'value').at(-1)?.[1] : undefined,
  );
}
