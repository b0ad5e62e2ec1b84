/** Byte order of keys (Go's string comparison, `sort.Strings`). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}
