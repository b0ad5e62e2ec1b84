import { describe, expect, it } from 'vitest';
import { goQuote } from '../go/fmt.js';
import { LineBuffer, logrusLine } from './logrus.js';

const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));

describe('logrusLine', () => {
  it('writes time, level, msg, then the fields in byte order of their keys', () => {
    const line = logrusLine('info', 'serving registry', { port: '50051', configs: '/configs' }, at);
    expect(line).toMatch(/^time="[^"]+" level=info msg="serving registry" configs=\/configs port=50051\n$/);
  });

  it('sorts keys by bytes, whatever order they come in, every time', () => {
    const a = logrusLine('info', 'm', { b: 1, 'B.x': 2, a: 3 }, at);
    const b = logrusLine('info', 'm', { a: 3, b: 1, 'B.x': 2 }, at);
    const fields = (l: string): string => l.slice(l.indexOf('msg=m ') + 6);
    expect(fields(a)).toBe('B.x=2 a=3 b=1\n');
    expect(fields(b)).toBe(fields(a));
    // Keys given in byte order already are written as they come.
    expect(fields(logrusLine('info', 'm', { 'B.x': 2, a: 3, b: 1 }, at))).toBe(fields(a));
  });

  it('quotes values as %q does, printable ASCII or not', () => {
    for (const v of ['a b', 'x="y"', 'back\\slash', 'tab\there', 'é', '\u0001', '[application/grpc]', '']) {
      const line = logrusLine('info', 'm', { k: v }, at);
      const expected = /^[A-Za-z0-9\-._/@^+]*$/.test(v) ? v : goQuote(v);
      expect(line.endsWith(` k=${expected}\n`)).toBe(true);
    }
  });

  it('quotes values that do not repeat as it quotes those that do, however many', () => {
    for (let i = 0; i < 1200; i++) {
      const v = `peer "${i % 600}" at ${i}`;
      expect(
        logrusLine('info', 'm', { [`k${i % 700}`]: v }, at).endsWith(` k${i % 700}=${goQuote(v)}\n`),
      ).toBe(true);
    }
  });

  it('writes the time of each second it is given', () => {
    const first = logrusLine('info', 'm', {}, at);
    const later = logrusLine('info', 'm', {}, new Date(at.getTime() + 1000));
    expect(first).not.toBe(later);
    expect(logrusLine('info', 'm', {}, new Date(at.getTime() + 999))).toBe(first);
  });
});

describe('LineBuffer', () => {
  it('writes the lines of one turn together, in order, on the next', async () => {
    const writes: string[] = [];
    const buf = new LineBuffer({ write: (t: string) => writes.push(t) });
    buf.write('one\n');
    buf.write('two\n');
    expect(writes).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(writes).toEqual(['one\ntwo\n']);
    buf.write('three\n');
    await new Promise((r) => setImmediate(r));
    expect(writes).toEqual(['one\ntwo\n', 'three\n']);
  });

  it('writes what it holds on flush(), and nothing twice', async () => {
    const writes: string[] = [];
    const buf = new LineBuffer({ write: (t: string) => writes.push(t) });
    buf.write('a\n');
    buf.flush();
    expect(writes).toEqual(['a\n']);
    await new Promise((r) => setImmediate(r));
    buf.flush();
    expect(writes).toEqual(['a\n']);
  });

  it('does not hold more than 64 KiB for the next turn', () => {
    const writes: string[] = [];
    const buf = new LineBuffer({ write: (t: string) => writes.push(t) });
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 64; i++) buf.write(line);
    expect(writes.join('')).toBe(line.repeat(64));
  });
});
