import { describe, expect, it } from 'vitest';
import { gainOf } from '../../bench/user-gains.js';

describe('gainOf', () => {
  it('is met when opm-ts gains at least what the reference gains', () => {
    const g = gainOf({ oursOne: 300, oursAll: 200, refOne: 900, refAll: 600, fixedMs: 50, twoCopies: 1.6 });
    expect(g.ours).toBeCloseTo(1.5);
    expect(g.reference).toBeCloseTo(1.5);
    expect(g.verdict).toBe('met');
  });

  it('works out the speed-up of the work that the reference gain takes, past the fixed part', () => {
    // 1.6 at the reference: opm-ts must take 250 ms at all cores, of which 50 are fixed, so its
    // 350 ms of work must take 200: 1.75 times faster.
    const g = gainOf({ oursOne: 400, oursAll: 320, refOne: 800, refAll: 500, fixedMs: 50, twoCopies: 1.9 });
    expect(g.ours).toBeCloseTo(1.25);
    expect(g.workSpeedupNeeded).toBeCloseTo(1.75);
    expect(g.verdict).toBe('missed');
  });

  it('says when that speed-up is beyond what two copies at once get', () => {
    const g = gainOf({ oursOne: 400, oursAll: 320, refOne: 800, refAll: 500, fixedMs: 50, twoCopies: 1.6 });
    expect(g.verdict).toBe('needs more than two copies get');
  });

  it('needs more than any speed-up when the fixed part alone is longer than the time allowed', () => {
    const g = gainOf({ oursOne: 100, oursAll: 90, refOne: 1000, refAll: 400, fixedMs: 60, twoCopies: 2 });
    expect(g.workSpeedupNeeded).toBe(Number.POSITIVE_INFINITY);
    expect(g.verdict).toBe('needs more than two copies get');
  });
});
