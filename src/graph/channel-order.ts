/**
 * The order of channels in the drawn graph: by name, with the numbers in names compared as numbers,
 * so that `stable-3.6` comes before `stable-3.10` and `fast-v4.9` before `fast-v4.10`, as a reader
 * of versions expects. Text between the numbers is compared in byte order (as opm orders names);
 * names equal but for leading zeros (`v01`, `v1`) fall back to byte order, so the order is total and
 * the same catalog always draws the same picture. Mermaid text keeps opm's own order.
 */
import { compareUtf8 } from '../go/utf8.js';

/** Runs of ASCII digits and runs of anything else, in order. */
function parts(name: string): string[] {
  return name.match(/[0-9]+|[^0-9]+/g) ?? [];
}

const isDigits = (s: string): boolean => s.charCodeAt(0) >= 48 && s.charCodeAt(0) <= 57;

/** Two runs of digits by the numbers they write, however long (no overflow). */
function compareNumbers(a: string, b: string): number {
  const x = a.replace(/^0+(?=.)/, '');
  const y = b.replace(/^0+(?=.)/, '');
  if (x.length !== y.length) return x.length - y.length;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Natural order of channel names (see the module's comment). */
export function compareChannelNames(a: string, b: string): number {
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < pa.length && i < pb.length; i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    const c = isDigits(x) && isDigits(y) ? compareNumbers(x, y) : compareUtf8(x, y);
    if (c !== 0) return c;
  }
  return pa.length - pb.length || compareUtf8(a, b);
}
