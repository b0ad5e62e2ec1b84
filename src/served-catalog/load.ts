/**
 * Reading a catalog for the catalog server as opm's cache build reads it: every file parsed,
 * custom-schema names checked, each package converted to the model with its checks on its own
 * (the blobs grouped by package as opm groups them), with opm's fatal texts. The in-memory index
 * and the on-disk cache both start from this.
 */
import path from 'node:path';
import { OpmError, positionText } from '../errors.js';
import { CatalogDirError, loadCatalogDir } from '../declcfg/load.js';
import { THREADS_ENV } from '../declcfg/load-pool.js';
import { emptyConfig, type DeclarativeConfig } from '../declcfg/types.js';
import { convertToModel } from '../model/convert.js';
import type { Model } from '../model/model.js';
import { TYPE_CSV_METADATA } from '../property/property.js';
import { compareUtf8 } from '../go/utf8.js';
import { goQuote } from '../go/fmt.js';
import { throwIfAborted } from '../util/abort.js';
import { metaKeyProblem } from '../declcfg/meta.js';
import { memoryQueries } from './memory.js';
import type { CatalogQueries, ServedIndex } from '../catalog-queries/queries.js';

/** The fatal texts of opm's rebuild path. */
export const REBUILD = 'failed to load or rebuild cache: failed to rebuild cache';

/** Split a catalog by package as opm's cache build does (olm.package by name, the rest by `package`). */
function byPackage(cfg: DeclarativeConfig): Map<string, DeclarativeConfig> {
  const out = new Map<string, DeclarativeConfig>();
  const of = (name: string): DeclarativeConfig => {
    let c = out.get(name);
    if (c === undefined) out.set(name, (c = emptyConfig()));
    return c;
  };
  for (const p of cfg.packages) of(p.name).packages.push(p);
  for (const c of cfg.channels) of(c.package).channels.push(c);
  for (const b of cfg.bundles) of(b.package).bundles.push(b);
  for (const d of cfg.deprecations) of(d.package).deprecations.push(d);
  return out;
}

/**
 * Load and check a catalog for serving: every file parsed, custom-schema names checked, each
 * package converted to the model with its checks. Throws OpmError with opm's fatal text.
 */
export async function loadServedCatalog(
  dir: string,
  opts: {
    env?: Record<string, string | undefined>;
    signal?: AbortSignal;
    label?: string;
    /** Threads that parse the files (default: as the loader counts them, load-pool.ts). */
    threads?: number;
  } = {},
): Promise<{ cfg: DeclarativeConfig; model: Model }> {
  let loaded;
  try {
    loaded = await loadCatalogDir(dir, {
      deferPayloads: true,
      ...(opts.threads === undefined ? {} : { threads: opts.threads }),
      ...(opts.env === undefined ? {} : { env: opts.env }),
      ...(opts.signal === undefined ? {} : { signal: opts.signal }),
    });
  } catch (err) {
    if (err instanceof CatalogDirError) {
      // Named as the user gave it.
      const message =
        opts.label === undefined ? err.message : err.message.replace(`"${dir}"`, `"${opts.label}"`);
      throw new OpmError(`${REBUILD}: ${message}`, { cause: err });
    }
    throw err;
  }
  const { cfg, findings } = loaded;
  const error = findings.find((f) => f.severity === 'error');
  if (error !== undefined) {
    // A blob opm could not decode is reported by the package it belongs to, as opm's per-package
    // build reports it; a file that does not parse at all, by its file and line.
    if (error.package !== undefined) {
      throw new OpmError(
        `${REBUILD}: build package index: process package ${goQuote(error.package)}: ${error.message}`,
      );
    }
    const at =
      error.file === undefined
        ? ''
        : `${positionText({ file: path.join(dir, error.file), ...(error.line === undefined ? {} : { line: error.line }) })}: `;
    throw new OpmError(`${REBUILD}: ${at}${error.message}`);
  }
  for (const m of cfg.others) {
    const invalid = metaKeyProblem(m.schema, m.package);
    if (invalid !== undefined) throw new OpmError(`${REBUILD}: invalid custom schema meta: ${invalid}`);
  }
  const model: Model = new Map();
  const packages = byPackage(cfg);
  for (const name of [...packages.keys()].sort(compareUtf8)) {
    throwIfAborted(opts.signal);
    const r = convertToModel(packages.get(name) as DeclarativeConfig);
    const fail = (msg: string): OpmError =>
      new OpmError(`${REBUILD}: build package index: process package ${goQuote(name)}: ${msg}`);
    if (r.opmMessage !== undefined) throw fail(r.opmMessage);
    for (const [pkgName, pkg] of r.model) {
      for (const ch of pkg.channels.values()) {
        for (const b of ch.bundles.values()) {
          const metas = b.properties.filter((p) => p.type === TYPE_CSV_METADATA).length;
          if (metas > 1) {
            throw fail(
              `parse properties: expected at most 1 property of type "${TYPE_CSV_METADATA}", found ${metas}`,
            );
          }
        }
      }
      model.set(pkgName, pkg);
    }
  }
  return { cfg, model };
}

/**
 * The catalog in `dir` served from memory (`serve` without a cache, or with one it can neither
 * trust nor rebuild): loaded as `loadServedCatalog` loads it, payloads left on disk, in this
 * thread unless OPM_THREADS asks for more. A worker thread started in the process lets V8 grow
 * this thread's young generation to its 16 MiB semi-spaces whatever the launcher set
 * (docs/performance.md, "Serving"): a server holds that memory while it idles, where the load's
 * second thread saves a fraction of a start-up that happens once.
 */
export async function loadMemoryIndex(
  dir: string,
  opts: { env?: Record<string, string | undefined>; signal?: AbortSignal; label?: string } = {},
): Promise<ServedIndex & { queries: CatalogQueries }> {
  const threadsAsked = opts.env?.[THREADS_ENV] !== undefined && opts.env[THREADS_ENV] !== '';
  const { cfg, model } = await loadServedCatalog(dir, threadsAsked ? opts : { ...opts, threads: 1 });
  const restore = cfg.payloads === undefined ? undefined : cfg.payloads.restore.bind(cfg.payloads);
  return {
    queries: memoryQueries(model, cfg.others, restore),
    leftGarbage: restore !== undefined,
    close: () => Promise.resolve(),
  };
}
