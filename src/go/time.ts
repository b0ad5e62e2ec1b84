/** Go's time formatting where opm-ts writes times as Go does. */

/** `time.RFC3339` in local time: seconds, and the offset (`Z` in UTC). */
export function rfc3339Local(d: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  const off = -d.getTimezoneOffset();
  const zone =
    off === 0
      ? 'Z'
      : `${off > 0 ? '+' : '-'}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}${zone}`
  );
}
