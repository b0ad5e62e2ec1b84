/**
 * A bundle's media type from the files directly in its manifests folder, as opm decides it: a Helm
 * chart (`Chart.yaml` with a name) is `helm`; any file whose first object is a
 * ClusterServiceVersion makes `registry+v1`; anything else is `plain`.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { OpmError } from '../errors.js';
import { decodeFirstDocument } from '../bundle/decode.js';
import { compareUtf8 } from '../go/utf8.js';
import type { BundleMediaType } from './annotations.js';

export const CSV_KIND = 'ClusterServiceVersion';

/** The first object of a YAML or JSON file; undefined when it does not parse or is no mapping. */
export function firstObject(text: string): Record<string, unknown> | undefined {
  try {
    const v = decodeFirstDocument(text).value;
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The names of the entries of `dir` that are not folders, in byte order (as Go's os.ReadDir). */
export async function filesOf(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((e) => !e.isDirectory())
    .map((e) => e.name)
    .sort(compareUtf8);
}

/** Whether `dir` holds a Helm chart: a `Chart.yaml` that parses and names the chart. */
async function isChartDir(dir: string): Promise<boolean> {
  let text: string;
  try {
    text = await readFile(path.join(dir, 'Chart.yaml'), 'utf8');
  } catch {
    return false;
  }
  const chart = firstObject(text);
  return chart !== undefined && typeof chart.name === 'string' && chart.name !== '';
}

/**
 * The media type of the bundle whose manifests are in `dir` (absolute). `shown` names the folder in
 * errors. A folder without files is an error in opm's words.
 */
export async function detectMediaType(dir: string, shown: string = dir): Promise<BundleMediaType> {
  let names: string[];
  try {
    names = await filesOf(dir);
  } catch {
    names = [];
  }
  if (names.length === 0) throw new OpmError(`The directory ${shown} contains no yaml files`);
  let csv = false;
  for (const name of names) {
    let text: string;
    try {
      text = await readFile(path.join(dir, name), 'utf8');
    } catch {
      throw new OpmError(`Unable to read file ${path.join(shown, name)} in bundle`);
    }
    if (firstObject(text)?.kind === CSV_KIND) csv = true;
  }
  if (await isChartDir(dir)) return 'helm';
  return csv ? 'registry+v1' : 'plain';
}
