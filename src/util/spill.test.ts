import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendSpill, closeSpill, openSpill, readSpill } from './spill.js';

describe('spill files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'opm-ts-spill-unit-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gives back what was appended, at the positions it reported, and leaves no name in the folder', () => {
    const spill = openSpill(dir);
    expect(spill).toBeDefined();
    if (spill === undefined) return;
    try {
      expect(readdirSync(dir)).toEqual([]);
      const a = Buffer.from('first piece\n');
      const b = Buffer.from('second, longer piece\n');
      expect(appendSpill(spill, a)).toBe(0);
      expect(appendSpill(spill, b)).toBe(a.length);
      expect(appendSpill(spill, new Uint8Array(0))).toBe(a.length + b.length);
      const into = Buffer.alloc(64);
      expect(Buffer.from(readSpill(spill, into, b.length, a.length)).toString()).toBe(b.toString());
      expect(Buffer.from(readSpill(spill, into, a.length + b.length, 0)).toString()).toBe(`${a}${b}`);
      expect(() => readSpill(spill, into, 10, a.length + b.length)).toThrow(/shorter/);
    } finally {
      closeSpill(spill);
    }
  });

  it('shares its end between threads through the counter, not a copy', () => {
    const spill = openSpill(dir);
    if (spill === undefined) throw new Error('no spill file');
    try {
      // What a worker gets: the descriptor and a view of the same shared counter.
      const other = structuredClone(spill);
      expect(appendSpill(other, Buffer.from('abc'))).toBe(0);
      expect(appendSpill(spill, Buffer.from('de'))).toBe(3);
      expect(Buffer.from(readSpill(other, Buffer.alloc(5), 5, 0)).toString()).toBe('abcde');
    } finally {
      closeSpill(spill);
    }
  });

  it('is not made where no file can be created', () => {
    expect(openSpill(path.join(dir, 'missing'))).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
  });
});
