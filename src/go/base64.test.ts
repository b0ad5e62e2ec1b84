import { describe, expect, it } from 'vitest';
import { base64ErrorAt } from './base64.js';

describe('base64ErrorAt: where Go base64.StdEncoding stops', () => {
  it.each([
    ['', undefined],
    ['aGVsbG8=', undefined],
    ['aGVsbA==', undefined],
    ['aGVs\r\nbG8=', undefined],
    ['QQ==\n', undefined],
    // A short last quantum is refused where it starts.
    ['aGVsbG8', 4],
    ['QQ', 0],
    ['aGV*bG8=', 3],
    // A `=` in the third place must be followed by another.
    ['aG=sbG8=', 2],
    ['QQ=A', 2],
    ['a===', 1],
    // Anything after the padding is refused where it starts.
    ['aGVsbG8==', 8],
    ['QQ==QQ==', 4],
    ['aGV-bG8=', 3],
    ['aGV_bG8=', 3],
    ['aGVs bG8=', 4],
    // Offsets count bytes, not characters.
    ['aGVsbG8é=', 7],
    ['éaGVsbG8=', 0],
  ])('%j', (s, at) => {
    expect(base64ErrorAt(s)).toBe(at);
  });

  it('finds a bad byte deep in a long payload', () => {
    expect(base64ErrorAt('YWJj'.repeat(50_000) + 'YW*j')).toBe(200_002);
  });
});
