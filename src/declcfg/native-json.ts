/**
 * Property values ready for the JSON writer as they are (go/json-native.ts NativeJson): maps and lists
 * read from a YAML document that the block reader found to have its keys in order and no -0 (and no
 * long `olm.bundle.object` data, which the writer copies apart: parse.ts). The writer then hands them
 * to JSON.stringify without walking them first. A mark holds the very value the blob was decoded
 * with, and the writer takes it only while the property still holds that value, so a property put or
 * replaced there later (a migration's) is walked as usual. Kept on the blob under a symbol, not
 * enumerable, so that it stays plain data: a blob cloned to another thread or copied by a spread
 * loses the marks, and comparisons and JSON.stringify do not see them. Not in a WeakMap: its
 * entries kept each marked blob's values alive through young collections, which promoted them
 * (docs/performance.md).
 */
import { vouchNativeJson, type NativeJson } from '../go/json-native.js';
import { RawJson } from '../go/raw-json.js';
import type { Blob } from './types.js';

const READY: unique symbol = Symbol('property values ready for JSON.stringify');
type Marked = { [READY]?: readonly NativeJson[] };

/** Say that the map and list values of `b`'s properties are ready for JSON.stringify. */
export function markNativeJson(b: Blob): void {
  if (b.kind === 'other' || b.kind === 'deprecation') return;
  const values: NativeJson[] = [];
  for (const p of b.value.properties ?? []) {
    if (typeof p.value === 'object' && p.value !== null && !(p.value instanceof RawJson))
      values.push(vouchNativeJson(p.value));
  }
  // Not enumerable: a copy of the blob (a spread) and comparisons of blobs leave it out.
  if (values.length > 0) Object.defineProperty(b.value, READY, { value: values });
}

/** The property values of `b` marked ready for JSON.stringify (see markNativeJson). */
export function nativeJsonValues(b: Blob): readonly NativeJson[] | undefined {
  return (b.value as Marked)[READY];
}
