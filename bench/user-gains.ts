// The gain from one core to all of them, opm-ts's against the reference's (issue #31, item 5), with
// what it would take to match it: a command's time at one core is a fixed part (starting Node.js,
// loading the command line, writing the output: what a catalog of one small package costs) and the
// work on the catalog, and only the work can be shared between cores. For opm-ts to gain what the
// reference gains, its work must be done that many times faster on all cores; two copies of opm-ts
// started at once (one thread each) show how much faster this machine does that same work when
// nothing at all is shared between the copies, which no threading within one process exceeds.

/** What one command on one catalog measured, in milliseconds (medians). */
export interface GainInputs {
  /** opm-ts at one core and at all cores. */
  oursOne: number;
  oursAll: number;
  /** The reference at one core and at all cores. */
  refOne: number;
  refAll: number;
  /** opm-ts's fixed part at one core: the same command on a catalog of one small package. */
  fixedMs: number;
  /**
   * Copies of opm-ts's command at once, one per core, against one alone, times their number (two on
   * a machine of two cores; 1 to 2 there).
   */
  twoCopies: number;
}

export type GainVerdict = 'met' | 'missed' | 'needs more than two copies get';

export interface Gain {
  ours: number;
  reference: number;
  /**
   * How many times faster opm-ts's work (its time at one core less the fixed part) must run at all
   * cores for its gain to equal the reference's; Infinity when the fixed part alone is longer than
   * that would allow.
   */
  workSpeedupNeeded: number;
  twoCopies: number;
  verdict: GainVerdict;
}

export function gainOf(m: GainInputs): Gain {
  const ours = m.oursOne / m.oursAll;
  const reference = m.refOne / m.refAll;
  const allowed = m.oursOne / reference - m.fixedMs;
  const workSpeedupNeeded = allowed > 0 ? (m.oursOne - m.fixedMs) / allowed : Number.POSITIVE_INFINITY;
  const verdict: GainVerdict =
    ours >= reference ? 'met' : workSpeedupNeeded > m.twoCopies ? 'needs more than two copies get' : 'missed';
  return { ours, reference, workSpeedupNeeded, twoCopies: m.twoCopies, verdict };
}
