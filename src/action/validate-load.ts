/**
 * The bridge from validate to the FBC loader: read the directory with payloads elided (validation
 * needs the graph, not the manifests) and with file problems collected as findings.
 */
import type { DeclarativeConfig } from '../declcfg/types.js';
import { InternalError } from '../errors.js';
import type { Finding } from '../findings.js';

function isConfig(u: unknown): u is DeclarativeConfig {
  if (typeof u !== 'object' || u === null) return false;
  return ['packages', 'channels', 'bundles', 'deprecations', 'others'].every(
    (k) => k in u && Array.isArray((u as Record<string, unknown>)[k]),
  );
}

function isFinding(u: unknown): u is Finding {
  if (typeof u !== 'object' || u === null) return false;
  const r = u as Record<string, unknown>;
  return (
    typeof r.rule === 'string' &&
    typeof r.message === 'string' &&
    (r.severity === 'error' || r.severity === 'warning')
  );
}

const LOADER_MODULE = '../declcfg/load.js';

export async function loadCatalogDirForValidation(
  dir: string,
): Promise<{ cfg: DeclarativeConfig; findings: Finding[] }> {
  const mod: unknown = await import(LOADER_MODULE);
  const load =
    typeof mod === 'object' && mod !== null && 'loadCatalogDir' in mod ? mod.loadCatalogDir : undefined;
  if (typeof load !== 'function') throw new InternalError('the FBC loader has no loadCatalogDir');
  const collected: Finding[] = [];
  const inspect = (f: unknown): void => {
    if (isFinding(f)) collected.push(f);
  };
  const result: unknown = await load(dir, { elidePayloads: true, inspect });
  if (isConfig(result)) return { cfg: result, findings: collected };
  if (typeof result === 'object' && result !== null && 'cfg' in result && isConfig(result.cfg)) {
    const extra =
      'findings' in result && Array.isArray(result.findings) ? result.findings.filter(isFinding) : [];
    return { cfg: result.cfg, findings: [...collected, ...extra] };
  }
  throw new InternalError('the FBC loader returned an unexpected value');
}
