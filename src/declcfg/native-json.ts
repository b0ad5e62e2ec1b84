/**
 * Property values ready for the JSON writer as they are (GoStruct.readyField): maps and lists read
 * from a YAML document that the block reader found to have its keys in order and no -0 (and no long
 * `olm.bundle.object` data, which the writer copies apart: parse.ts). The writer then hands them to
 * JSON.stringify without walking them first. Only the very objects the blob was decoded with are
 * trusted, so a property put there later (a migration's) is walked as usual; the values themselves
 * are never changed in place. Kept aside rather than on the blob, which stays plain data: a blob
 * cloned to another thread simply loses the mark.
 */
import type { Blob } from './types.js';

const READY = new WeakMap<object, readonly object[]>();

/** Say that the map and list values of `b`'s properties are ready for JSON.stringify. */
export function markNativeJson(b: Blob): void {
  if (b.kind === 'other' || b.kind === 'deprecation') return;
  const values: object[] = [];
  for (const p of b.value.properties ?? []) {
    if (typeof p.value === 'object' && p.value !== null) values.push(p.value);
  }
  if (values.length > 0) READY.set(b.value, values);
}

/** The property values of `b` that are ready for JSON.stringify as they are (see markNativeJson). */
export function nativeJsonValues(b: Blob): readonly object[] | undefined {
  return READY.get(b.value);
}
