/** The order encoding/json writes a map's keys in: UTF-8 byte order. */
import { compareUtf8 } from './utf8.js';

/** Whether `keys` are in UTF-8 byte order (encoding/json's order of map keys) already. */
export function inUtf8Order(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++)
    if (compareUtf8(keys[i - 1] as string, keys[i] as string) > 0) return false;
  return true;
}

/** Keys of a Go map, sorted as encoding/json sorts them. */
export function sortedMapKeys(obj: Readonly<Record<string, unknown>>): string[] {
  const keys: string[] = [];
  for (const k of Object.keys(obj)) if (obj[k] !== undefined) keys.push(k);
  // Insertion order is often sorted already (values normalised by the loader); check first.
  if (!inUtf8Order(keys)) keys.sort(compareUtf8);
  return keys;
}
