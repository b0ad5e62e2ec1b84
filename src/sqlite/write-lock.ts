/**
 * Whether another process holds SQLite's write lock on a database file. SQLite locks with POSIX
 * advisory locks on bytes from 0x40000000 (the pending byte, the reserved byte, then the shared
 * range): a process that is writing, or has begun a write transaction (`BEGIN IMMEDIATE` or
 * `EXCLUSIVE`), holds a WRITE lock there. opm-ts writes a database whole, to a new file renamed
 * over the old one; renaming it under such a process would let that process's commit go to the
 * unlinked old file, and one of the two writes would be lost. So writers refuse while it is held.
 * Node cannot take or test such locks itself; on Linux the kernel lists every one in /proc/locks,
 * which is read here. Elsewhere (or when /proc is not mounted) nothing is found, and the write
 * goes on as before. Readers need no lock: they read what the last commit left in the file, and a
 * write in progress shows as its rollback journal (see file.ts).
 */
import { readFileSync, statSync } from 'node:fs';

/** SQLite's lock bytes: PENDING_BYTE, then RESERVED_BYTE, then the 510-byte shared range. */
const LOCK_FIRST = 0x40000000;
const LOCK_LAST = LOCK_FIRST + 2 + 510 - 1;

/** The major and minor device numbers of a `stat` dev (glibc's encoding of dev_t). */
function deviceNumbers(dev: bigint): { major: bigint; minor: bigint } {
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return { major, minor };
}

/**
 * The process id holding a write lock on SQLite's lock bytes of `file`, from `locks` (the text of
 * /proc/locks; read when not given), or undefined when none does or it cannot be told.
 */
export function sqliteWriteLockHolder(file: string, locks?: string): number | undefined {
  let text = locks;
  let st: { dev: bigint; ino: bigint };
  try {
    st = statSync(file, { bigint: true });
    text ??= readFileSync('/proc/locks', 'utf8');
  } catch {
    return undefined;
  }
  const { major, minor } = deviceNumbers(st.dev);
  for (const line of text.split('\n')) {
    // "1: POSIX  ADVISORY  WRITE 11875 fe:00:9978222 1073741824 1073742335" (a "->" marks a waiter).
    const f = line.trim().split(/\s+/);
    if (f[1] === '->') continue;
    const [, kind, , access, pid, where, start, end] = f;
    if ((kind !== 'POSIX' && kind !== 'OFDLCK') || access !== 'WRITE' || where === undefined) continue;
    const [maj, min, ino] = where.split(':');
    if (maj === undefined || min === undefined || ino === undefined) continue;
    if (BigInt(`0x${maj}`) !== major || BigInt(`0x${min}`) !== minor || BigInt(ino) !== st.ino) continue;
    const from = Number(start);
    const to = end === 'EOF' ? Number.MAX_SAFE_INTEGER : Number(end);
    if (to < LOCK_FIRST || from > LOCK_LAST) continue;
    const holder = Number(pid);
    if (holder !== process.pid) return Number.isFinite(holder) ? holder : -1;
  }
  return undefined;
}
