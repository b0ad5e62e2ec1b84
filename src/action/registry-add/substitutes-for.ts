/**
 * `--enable-alpha`'s one effect on an add (opm v1.73): a bundle with `olm.substitutesFor` is taken
 * instead of refused, and once its row is in, the upgrade edges are rewritten around the
 * substitution — bundles replacing the substituted one now replace the substitute, the newest of
 * several substitutes of one bundle is kept as the substitute and the others skip to it, skips and
 * replaces follow substitution chains. opm's quirks are kept: several substitutes of the same
 * bundle found at a later step end the rewrite there without an error, and the skips rebuilt from
 * a set come out in Go's map order (here: the order first met).
 */
import { AddError, findBy } from './add-error.js';
import type { BundleRecord } from './bundle-record.js';
import { BuildIdCompare } from './build-id-compare.js';
import type { SqlValue } from '../../sqlite/file.js';
import type { RowStore } from '../../sqlite/write/row-store.js';
import { parseSemver } from '../../model/semver.js';

const str = (v: SqlValue | undefined): string => (typeof v === 'string' ? v : '');

class Bundles {
  private readonly t: RowStore;
  private readonly get: (row: SqlValue[], column: string) => SqlValue;
  constructor(t: RowStore) {
    this.t = t;
    this.get = t.getter('operatorbundle');
  }
  /** Names of the bundles whose `substitutesfor` is `name`, in table order. */
  substitutesOf(name: string): string[] {
    return this.t
      .rows('operatorbundle')
      .filter((r) => this.get(r, 'substitutesfor') === name)
      .map((r) => str(this.get(r, 'name')))
      .filter((n) => n !== '');
  }
  substitutionOf(name: string): string {
    const r = findBy(this.t, 'operatorbundle', 'name', name);
    return r === undefined ? '' : str(this.get(r, 'substitutesfor'));
  }
  fields(name: string): { skips: string[]; version: string } {
    const r = findBy(this.t, 'operatorbundle', 'name', name);
    if (r === undefined) throw new AddError(`no bundle found for bundlename ${name}`);
    const skips = str(this.get(r, 'skips'));
    return { skips: skips === '' ? [] : skips.split(','), version: str(this.get(r, 'version')) };
  }
  set(name: string, values: Record<string, SqlValue>): void {
    const cols = Object.entries(values).map(([c, v]) => [this.t.col('operatorbundle', c), v] as const);
    this.t.update(
      'operatorbundle',
      (r) => this.get(r, 'name') === name,
      (r) => {
        for (const [c, v] of cols) r[c] = v;
      },
    );
  }
  setWhere(column: string, equals: string, values: Record<string, SqlValue>): void {
    const cols = Object.entries(values).map(([c, v]) => [this.t.col('operatorbundle', c), v] as const);
    this.t.update(
      'operatorbundle',
      (r) => this.get(r, column) === equals,
      (r) => {
        for (const [c, v] of cols) r[c] = v;
      },
    );
  }
  /** `skips` added to the bundle's own, each once, after them. */
  appendSkips(skips: readonly string[], name: string): void {
    const current = this.fields(name).skips;
    const had = new Set(current);
    for (const s of skips) if (!had.has(s)) current.push(s);
    this.set(name, { skips: current.join(',') });
  }
}

function semver(raw: string): ReturnType<typeof parseSemver> {
  try {
    return parseSemver(raw);
  } catch (err) {
    throw new AddError(err instanceof Error ? err.message : String(err));
  }
}

/** Walk guard: a name met twice is a cycle (opm's words). */
function markSeen(seen: Set<string>, name: string): void {
  if (seen.has(name)) throw new AddError(`cyclic substitutesFor chain detected involving "${name}"`);
  seen.add(name);
}

/** The rewrite opm makes after adding `b` with --enable-alpha. */
export function addSubstitutesFor(t: RowStore, b: BundleRecord): void {
  const db = new Bundles(t);
  const name = b.name;
  let replaces = b.replaces;
  let skips = [...b.skips];
  if (b.substitutesFor !== '') {
    db.setWhere('replaces', b.substitutesFor, { replaces: name });
    const others = db.substitutesOf(b.substitutesFor);
    const otherSeen = new Set([name]);
    while (others.length > 0) {
      const other = others.shift() as string;
      if (other === name) continue;
      markSeen(otherSeen, other);
      const c = BuildIdCompare(semver(db.fields(other).version), semver(b.version));
      if (c < 0) {
        db.set(name, { substitutesfor: other });
        others.push(...db.substitutesOf(other));
      } else if (c > 0) {
        db.set(other, { substitutesfor: name });
        db.appendSkips([...skips, name], other);
        if (db.substitutesOf(name).length > 1)
          throw new AddError(`programmer error: more than one substitution pointing to ${name}`);
      } else {
        throw new AddError('cannot determine latest substitution because of duplicate versions');
      }
    }
  }
  // The bundles this one substitutes for, transitively, are skipped too.
  let sub = db.substitutionOf(name);
  const seen = new Set([name]);
  while (sub !== '') {
    markSeen(seen, sub);
    skips.push(sub);
    sub = db.substitutionOf(sub);
  }
  // Substitutes of this bundle added before it take over its skips.
  let subs = db.substitutesOf(name);
  if (subs.length > 1) return;
  const seen2 = new Set([name]);
  while (subs.length > 0) {
    const first = subs[0] as string;
    markSeen(seen2, first);
    db.appendSkips([...skips, name], first);
    subs = db.substitutesOf(first);
    if (subs.length > 1) return;
  }
  // Skipping a substituted bundle skips its substitutes too.
  if (skips.length > 0) {
    const all = new Set<string>();
    for (const skip of skips) {
      all.add(skip);
      let chain = db.substitutesOf(skip);
      if (chain.length > 1) return;
      const seen3 = new Set([skip]);
      while (chain.length > 0) {
        const s = chain.shift() as string;
        if (s === name) continue;
        markSeen(seen3, s);
        all.add(s);
        chain = db.substitutesOf(s);
        if (chain.length > 1) return;
      }
    }
    skips = [...all];
  }
  // Replacing a substituted bundle replaces its newest substitute.
  if (replaces !== '') {
    let next = db.substitutesOf(replaces);
    const seen4 = new Set([replaces]);
    while (next.length > 0) {
      replaces = next[0] as string;
      markSeen(seen4, replaces);
      next = db.substitutesOf(replaces);
      if (next.length > 1) return;
    }
  }
  db.set(name, { replaces, skips: skips.join(',') });
}
