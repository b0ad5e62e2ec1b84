/**
 * Seeded pieces of text for the generated catalogs: a word list and picks from it, drawn from a
 * `seededRandom` stream so the same seed gives the same bytes.
 */
export type Rand = () => number;

export const WORDS: string[] = (
  'the operator manages deploys configures upgrades monitors backs up restores scales a cluster ' +
  'of database message queue cache storage service mesh gateway certificate secret policy ' +
  'instance replica node pod volume network route metric alert dashboard tenant namespace ' +
  'custom resource controller reconciles status condition spec field value default enables'
).split(' ');

export const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;

/** An integer from `lo` to `hi`, both included. */
export const int = (rand: Rand, lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));

/** `n` words of WORDS joined by spaces. */
export const words = (rand: Rand, n: number): string =>
  Array.from({ length: n }, () => pick(rand, WORDS)).join(' ');
