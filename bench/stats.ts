/** The median of `xs` (the mean of the two middle values for an even count); `ifEmpty` for none. */
export function median(xs: readonly number[], ifEmpty = 0): number {
  if (xs.length === 0) return ifEmpty;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] ?? ifEmpty) : ((s[m - 1] ?? ifEmpty) + (s[m] ?? ifEmpty)) / 2;
}
