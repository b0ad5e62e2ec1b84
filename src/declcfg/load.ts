/**
 * Loading a File-Based Catalog directory (opm's LoadFS, opm-behavior.md §2): walk, honour
 * `.indexignore`, parse every other file whatever its name, decode blobs by schema. Unlike opm, the
 * result is deterministic (blobs in walk order) and every problem is reported as a finding with its
 * file and line instead of the first error aborting the load.
 */
import { Limiter } from '../util/limit.js';
import { availableParallelism } from 'node:os';
import { readFile, stat } from 'node:fs/promises';
import { OpmError } from '../errors.js';
import { sortFindings, type Finding } from '../findings.js';
import { decodeBlob, type DecodeIssue, type DecodeOptions } from './decode.js';
import { LARGE_FILE_BYTES, readFileParts } from './load-large.js';
import { walkCatalogDir, type WalkedFile } from './load-walk.js';
import { parseCatalogBytes, parseCatalogText, type ParsedText } from './parse.js';
import {
  emptyConfig,
  mergeConfigs,
  type DeclarativeConfig,
  type JsonObject,
  type Location,
} from './types.js';

export interface LoadOptions extends DecodeOptions {
  /** Called with every raw blob before it is decoded (JSON Schema checks plug in here). */
  inspect?: (blob: JsonObject, loc: Location) => Finding[];
  /** Files read at the same time (default: CPU count, at most 8). */
  concurrency?: number;
}

export interface LoadResult {
  cfg: DeclarativeConfig;
  /** Sorted with sortFindings. */
  findings: Finding[];
}

/** A raw blob and where it came from. */
export interface LocatedObject {
  value: JsonObject;
  loc: Location;
}

function issueFinding(issue: DecodeIssue, loc: Location): Finding {
  return { ...issue, file: loc.file, line: loc.line };
}

/** Decode blobs into `cfg` (in order), collecting findings. */
function addBlobs(
  cfg: DeclarativeConfig,
  objects: Iterable<LocatedObject>,
  opts: LoadOptions,
  findings: Finding[],
): void {
  for (const { value, loc } of objects) {
    if (opts.inspect) findings.push(...opts.inspect(value, loc));
    let decoded;
    try {
      decoded = decodeBlob(value, opts);
    } catch (err) {
      // Decoding is not recursive beyond a fixed depth; this guards against surprises in huge input.
      if (!(err instanceof RangeError)) throw err;
      findings.push({
        rule: 'decode.too-deep',
        severity: 'error',
        message: 'blob is nested too deeply',
        ...loc,
      });
      continue;
    }
    for (const issue of decoded.issues) findings.push(issueFinding(issue, loc));
    const b = decoded.blob;
    if (!b) continue;
    b.value.loc = loc;
    if (b.kind === 'package') cfg.packages.push(b.value);
    else if (b.kind === 'channel') cfg.channels.push(b.value);
    else if (b.kind === 'bundle') cfg.bundles.push(b.value);
    else if (b.kind === 'deprecation') cfg.deprecations.push(b.value);
    else cfg.others.push(b.value);
  }
}

function parsedObjects(parsed: ParsedText, file: string, findings: Finding[]): LocatedObject[] {
  for (const i of parsed.issues) {
    findings.push({ rule: i.rule, severity: i.severity, message: i.message, file, line: i.line });
  }
  return parsed.blobs.map((b) => ({ value: b.value, loc: { file, line: b.line } }));
}

async function loadFile(f: WalkedFile, opts: LoadOptions): Promise<LoadResult> {
  const cfg = emptyConfig();
  const findings: Finding[] = [];
  try {
    if (f.size <= LARGE_FILE_BYTES) {
      const bytes = await readFile(f.abs);
      addBlobs(cfg, parsedObjects(parseCatalogBytes(bytes), f.rel, findings), opts, findings);
    } else {
      // Decode part by part so only one part's text and raw blobs are alive at a time.
      for await (const part of readFileParts(f.abs)) {
        addBlobs(
          cfg,
          parsedObjects(parseCatalogBytes(part.bytes, part.firstLine), f.rel, findings),
          opts,
          findings,
        );
      }
    }
  } catch (err) {
    findings.push({ rule: 'load.unreadable', severity: 'error', message: readProblem(err), file: f.rel });
  }
  return { cfg, findings };
}

function readProblem(err: unknown): string {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  if (code === 'ERR_STRING_TOO_LONG') return 'a single blob is too large to parse (over 512 MiB)';
  if (code === 'EACCES') return 'cannot read file: permission denied';
  if (code === 'EISDIR') return 'cannot read file: is a directory';
  if (err instanceof RangeError) return 'file is nested too deeply to parse';
  return `cannot read file: ${err instanceof Error ? err.message : String(err)}`;
}

async function requireDir(dir: string): Promise<void> {
  let st;
  try {
    st = await stat(dir);
  } catch {
    throw new OpmError(`catalog directory "${dir}" does not exist or cannot be read`, {
      code: 'E_CATALOG_DIR',
    });
  }
  if (!st.isDirectory()) {
    throw new OpmError(`"${dir}" is not a directory; a catalog is a directory of FBC files`, {
      code: 'E_CATALOG_DIR',
    });
  }
}

/**
 * Load a catalog directory. Never throws for bad content: parse, decode and file problems are
 * findings (sorted); only a missing root or a root that is not a directory throws an OpmError.
 */
export async function loadCatalogDir(dir: string, opts: LoadOptions = {}): Promise<LoadResult> {
  await requireDir(dir);
  const walked = await walkCatalogDir(dir);
  const findings: Finding[] = walked.problems.map((p) => ({ ...p, severity: 'error' }));
  const limit = opts.concurrency ?? Math.min(8, availableParallelism());
  const limiter = new Limiter(limit);
  // Read concurrently, merged in walk order: the result does not depend on timing.
  const perFile = await Promise.all(walked.files.map((f) => limiter.run(() => loadFile(f, opts))));
  const cfg = mergeConfigs(perFile.map((r) => r.cfg));
  for (const r of perFile) findings.push(...r.findings);
  return { cfg, findings: sortFindings(findings) };
}

function toError(f: Finding, context?: string): OpmError {
  const message = context === undefined ? f.message : `${context}: ${f.message}`;
  return new OpmError(message, {
    code: 'E_CATALOG_PARSE',
    ...(f.file === undefined
      ? {}
      : { at: { file: f.file, ...(f.line === undefined ? {} : { line: f.line }) } }),
  });
}

/**
 * Load a catalog directory for commands that need a clean catalog (render, migrate): the first error
 * finding (in sorted order) is thrown as an OpmError positioned at its file and line; warnings go to
 * `onWarning`.
 */
export async function loadCatalogDirOrThrow(
  dir: string,
  opts: LoadOptions & { onWarning?(f: Finding): void } = {},
): Promise<DeclarativeConfig> {
  const { cfg, findings } = await loadCatalogDir(dir, opts);
  const error = findings.find((f) => f.severity === 'error');
  if (error) throw toError(error);
  for (const f of findings) opts.onWarning?.(f);
  return cfg;
}

/**
 * Split a template or FBC text (a file, or stdin) into raw blobs with their lines. `fileLabel` names
 * the input in locations and errors. Throws an OpmError for the first parse problem.
 */
export function loadBlobsFromText(text: string, fileLabel: string): LocatedObject[] {
  const findings: Finding[] = [];
  const objects = parsedObjects(parseCatalogText(text), fileLabel, findings);
  const first = sortFindings(findings).find((f) => f.severity === 'error');
  if (first) throw toError(first);
  return objects;
}

/**
 * Build a DeclarativeConfig from raw blobs (opm's LoadSlice), in the given order. Throws an OpmError
 * for the first error; warnings go to `onWarning`.
 */
export function configFromObjects(
  objects: readonly LocatedObject[],
  opts: DecodeOptions & { onWarning?(f: Finding): void } = {},
): DeclarativeConfig {
  const cfg = emptyConfig();
  const findings: Finding[] = [];
  addBlobs(cfg, objects, opts, findings);
  const error = findings.find((f) => f.severity === 'error');
  if (error) throw toError(error);
  for (const f of findings) opts.onWarning?.(f);
  return cfg;
}
