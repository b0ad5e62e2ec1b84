import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteWriteLockHolder } from './write-lock.js';

const dir = mkdtempSync(path.join(tmpdir(), 'opm-write-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, 'index.db');
writeFileSync(file, 'x');
const st = statSync(file, { bigint: true });
const major = ((st.dev >> 8n) & 0xfffn) | ((st.dev >> 32n) & ~0xfffn);
const minor = (st.dev & 0xffn) | ((st.dev >> 12n) & ~0xffn);
const at = `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}:${st.ino}`;
const line = (access: string, where: string, from: string, to: string, pid = '4242'): string =>
  `1: POSIX  ADVISORY  ${access} ${pid} ${where} ${from} ${to}`;

describe('sqliteWriteLockHolder (from the text of /proc/locks)', () => {
  it.each([
    [
      'EXCLUSIVE: the pending byte through the shared range',
      line('WRITE', at, '1073741824', '1073742335'),
      4242,
    ],
    ['RESERVED: the reserved byte', line('WRITE', at, '1073741825', '1073741825'), 4242],
    ['a lock to the end of the file', line('WRITE', at, '1073741000', 'EOF'), 4242],
    ['an open file description lock', `1: OFDLCK ADVISORY  WRITE -1 ${at} 1073741824 1073741824`, -1],
  ])('%s: the holder', (_n, text, want) => {
    expect(sqliteWriteLockHolder(file, text)).toBe(want);
  });

  it.each([
    ['SHARED (a reader)', line('READ', at, '1073741826', '1073742335')],
    ['another file', line('WRITE', `${at}9`, '1073741824', '1073742335')],
    ['bytes below the lock bytes', line('WRITE', at, '0', '100')],
    ['a waiter', `1: -> POSIX  ADVISORY  WRITE 4242 ${at} 1073741824 1073742335`],
    ['this process', line('WRITE', at, '1073741824', '1073742335', String(process.pid))],
  ])('%s: none', (_n, text) => {
    expect(sqliteWriteLockHolder(file, text)).toBeUndefined();
  });

  it('a missing file: none', () => {
    expect(
      sqliteWriteLockHolder(path.join(dir, 'nope.db'), line('WRITE', at, '1073741824', 'EOF')),
    ).toBeUndefined();
  });
});
