/** The median of `xs` (the mean of the two middle values for an even count); `ifEmpty` for none. */
export function median(xs: readonly number[], ifEmpty = 0): number {
  if (xs.length === 0) return ifEmpty;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] ?? ifEmpty) : ((s[m - 1] ?? ifEmpty) + (s[m] ?? ifEmpty)) / 2;
}

/** Per-pair ratios ours[k] / reference[k]: their median (`ifEmpty` for none) and their range. */
export function pairedRatios(
  ours: readonly number[],
  reference: readonly number[],
  ifEmpty = 0,
): { ratio: number; min: number; max: number } {
  const ratios = ours.map((o, k) => o / (reference[k] ?? NaN));
  return { ratio: median(ratios, ifEmpty), min: Math.min(...ratios), max: Math.max(...ratios) };
}
