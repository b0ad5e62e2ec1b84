import { describe, expect, it } from 'vitest';
import { compareChannelNames } from './channel-order.js';
import { plural } from './svg-text.js';

describe('compareChannelNames', () => {
  it('reads the numbers in names as numbers', () => {
    const names = [
      'stable-3.10',
      'stable-3.6',
      'stable',
      'fast-v4.10',
      'fast-v4.9',
      'candidate-3.15',
      'stable-3.14',
    ];
    expect([...names].sort(compareChannelNames)).toEqual([
      'candidate-3.15',
      'fast-v4.9',
      'fast-v4.10',
      'stable',
      'stable-3.6',
      'stable-3.10',
      'stable-3.14',
    ]);
  });

  it('is a total order: leading zeros, long numbers, text in byte order', () => {
    expect(['v1', 'v01', 'v001'].sort(compareChannelNames)).toEqual(['v001', 'v01', 'v1']);
    expect(compareChannelNames('a-99999999999999999999', 'a-100000000000000000000')).toBeLessThan(0);
    // Upper case before lower case and ASCII before other letters, as opm's byte order has them.
    expect(['beta', 'Beta', 'édition', 'zeta'].sort(compareChannelNames)).toEqual([
      'Beta',
      'beta',
      'zeta',
      'édition',
    ]);
    expect(compareChannelNames('stable', 'stable')).toBe(0);
  });
});

describe('plural', () => {
  it('says one in the singular, any other count in the plural', () => {
    expect([0, 1, 2, 150].map((n) => plural(n, 'bundle'))).toEqual([
      '0 bundles',
      '1 bundle',
      '2 bundles',
      '150 bundles',
    ]);
  });
});
