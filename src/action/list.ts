/**
 * `opm alpha list packages|channels|bundles` (`alpha/action/list.go`): tables over a valid catalog,
 * aligned as Go's text/tabwriter aligns them (each column as wide as its widest cell plus two
 * spaces; the last column unpadded).
 */
import { OpmError } from '../errors.js';
import type { DeclarativeConfig } from '../declcfg/types.js';
import { compareUtf8 as compareGoStrings } from '../go/utf8.js';
import { convertToModelOrThrow } from '../model/convert.js';
import type { Model, ModelChannel, ModelPackage } from '../model/model.js';
import { ChannelGraph } from '../model/channel-graph.js';
import { bundleCsv } from '../migrations/migrations.js';
import { NotAllowedError, REF_CATALOGS, render, type RenderOptions } from './render/render.js';

export type ListKind = 'packages' | 'channels' | 'bundles';

/** Lay out rows as tabwriter does with minwidth 0, tabwidth 4, padding 2, space padding. */
function formatTable(rows: string[][]): string {
  const width = (cell: string): number => [...cell].length;
  const widths: number[] = [];
  for (const row of rows) {
    row.slice(0, -1).forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, width(cell));
    });
  }
  const line = (row: string[]): string =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) + 2 - width(cell))))
      .join('');
  return rows.map((row) => line(row) + '\n').join('');
}

/** The channel head's name, or opm's error text for a channel without exactly one head. */
function channelHead(ch: ModelChannel): { name: string } | { error: string } {
  const heads = ChannelGraph.fromModel(ch).heads();
  const only = heads[0];
  if (heads.length === 1 && only !== undefined) return { name: only };
  if (heads.length === 0) return { error: 'no channel head found in graph' };
  return { error: `multiple channel heads found in graph: ${heads.join(', ')}` };
}

function sortedPackages(model: Model, name: string): ModelPackage[] {
  if (name !== '') {
    const p = model.get(name);
    if (p === undefined) throw new OpmError(`package "${name}" not found`);
    return [p];
  }
  return [...model.values()].sort((a, b) => compareGoStrings(a.name, b.name));
}

function sortedChannels(p: ModelPackage): ModelChannel[] {
  return [...p.channels.values()].sort((a, b) => compareGoStrings(a.name, b.name));
}

/** `spec.displayName` of the CSV of the default channel's head bundle ('' when unknown). */
function displayName(p: ModelPackage): string {
  const ch = p.defaultChannel;
  if (ch === undefined) return '';
  const head = channelHead(ch);
  if (!('name' in head)) return '';
  const blob = ch.bundles.get(head.name)?.blob;
  if (blob === undefined) return '';
  try {
    const spec = bundleCsv(blob)?.['spec'];
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return '';
    const name: unknown = 'displayName' in spec ? spec.displayName : undefined;
    return typeof name === 'string' ? name : '';
  } catch (e) {
    if (e instanceof OpmError) return '';
    throw e;
  }
}

function listPackagesTable(model: Model): string {
  const rows = [['NAME', 'DISPLAY NAME', 'DEFAULT CHANNEL']];
  for (const p of sortedPackages(model, ''))
    rows.push([p.name, displayName(p), p.defaultChannel?.name ?? '']);
  return formatTable(rows);
}

function listChannelsTable(model: Model, packageName = ''): string {
  const rows = [['PACKAGE', 'CHANNEL', 'HEAD']];
  for (const p of sortedPackages(model, packageName)) {
    for (const ch of sortedChannels(p)) {
      const head = channelHead(ch);
      rows.push([p.name, ch.name, 'name' in head ? head.name : `ERROR: ${head.error}`]);
    }
  }
  return formatTable(rows);
}

function listBundlesTable(model: Model, packageName = ''): string {
  const rows = [['PACKAGE', 'CHANNEL', 'BUNDLE', 'REPLACES', 'SKIPS', 'SKIP RANGE', 'IMAGE']];
  for (const p of sortedPackages(model, packageName)) {
    for (const ch of sortedChannels(p)) {
      const bundles = [...ch.bundles.values()].sort((a, b) => compareGoStrings(a.name, b.name));
      for (const b of bundles)
        rows.push([p.name, ch.name, b.name, b.replaces, b.skips.join(','), b.skipRange, b.image]);
    }
  }
  return formatTable(rows);
}

/** Render `ref` (an FBC directory or catalog image only) and convert it to a model. */
async function loadIndexModel(
  ref: string,
  opts: Omit<RenderOptions, 'refs' | 'allow' | 'migrateLevel'>,
): Promise<Model> {
  let cfg: DeclarativeConfig;
  try {
    cfg = await render({ ...opts, refs: [ref], allow: REF_CATALOGS });
  } catch (e) {
    if (e instanceof OpmError && isNotAllowed(e)) {
      throw new OpmError(`cannot list non-index "${ref}"`, { cause: e });
    }
    throw e;
  }
  return convertToModelOrThrow(cfg);
}

function isNotAllowed(e: unknown): boolean {
  for (let c: unknown = e; c instanceof Error; c = c.cause) if (c instanceof NotAllowedError) return true;
  return false;
}

/** The table of one `alpha list` command. */
export async function listIndex(
  kind: ListKind,
  ref: string,
  packageName: string,
  opts: Omit<RenderOptions, 'refs' | 'allow' | 'migrateLevel'>,
): Promise<string> {
  const model = await loadIndexModel(ref, opts);
  if (kind === 'packages') return listPackagesTable(model);
  if (kind === 'channels') return listChannelsTable(model, packageName);
  return listBundlesTable(model, packageName);
}
