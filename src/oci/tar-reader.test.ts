import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tarEntries, type StreamedTarHeader } from './tar-reader.js';

interface Seen {
  name: string;
  type: string;
  size: number;
  linkname: string | undefined;
  mode?: number;
  body: string;
}

/** What tar-stream, the streaming reader, makes of an archive. */
async function viaTarStream(archive: Buffer): Promise<Seen[]> {
  const extract = tar.extract();
  extract.end(archive);
  const out: Seen[] = [];
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const c of entry) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
    const h: StreamedTarHeader = entry.header;
    out.push({
      name: h.name,
      type: h.type ?? 'file',
      size: h.size ?? 0,
      linkname: h.linkname ?? undefined,
      mode: (h.mode ?? 0) & 0o7777,
      body: Buffer.concat(chunks).toString('base64'),
    });
  }
  return out;
}

function viaReader(archive: Buffer): Seen[] {
  return [...tarEntries(archive)].map(({ header, body }) => ({ ...header, body: body.toString('base64') }));
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'opm-tar-reader-test-'));
  const src = path.join(dir, 'src');
  const deep = path.join(src, 'manifests', 'a'.repeat(90), 'b'.repeat(90));
  mkdirSync(deep, { recursive: true });
  writeFileSync(path.join(deep, `${'c'.repeat(120)}.yaml`), 'kind: ConfigMap\n');
  writeFileSync(path.join(src, 'manifests', 'größe-ünïcode.yaml'), 'x'.repeat(1500));
  writeFileSync(path.join(src, 'empty'), '');
  symlinkSync(`../${'t'.repeat(150)}`, path.join(src, 'manifests', 'long-link'));
  symlinkSync('empty', path.join(src, 'short-link'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tarEntries', () => {
  for (const format of ['gnu', 'pax', 'ustar', 'oldgnu'] as const) {
    it(`reads a ${format} archive as tar-stream does`, async () => {
      let archive: Buffer;
      try {
        archive = execFileSync('tar', [`--format=${format}`, '-C', path.join(dir, 'src'), '-cf', '-', '.'], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
      } catch {
        // ustar cannot hold the longest names; GNU tar says so and stops. Only short names then.
        archive = execFileSync(
          'tar',
          [`--format=${format}`, '-C', path.join(dir, 'src'), '-cf', '-', 'empty', 'short-link'],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
      }
      const expected = await viaTarStream(archive);
      expect(expected.length).toBeGreaterThan(1);
      expect(viaReader(archive)).toEqual(expected);
    });
  }

  it('reads what tar-stream writes, long names included', async () => {
    const pack = tar.pack();
    const chunks: Buffer[] = [];
    pack.on('data', (c: unknown) => chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c))));
    const ended = new Promise<void>((resolve) => pack.on('end', () => resolve()));
    pack.entry({ name: `${'p'.repeat(120)}/${'q'.repeat(99)}` }, 'long');
    pack.entry({ name: 'd', type: 'directory' });
    pack.entry({ name: 'd/l', type: 'link', linkname: 'd/../x' });
    pack.entry({ name: 'ü'.repeat(60) }, 'pax name');
    pack.finalize();
    await ended;
    const archive = Buffer.concat(chunks);
    expect(viaReader(archive)).toEqual(await viaTarStream(archive));
  });

  it('refuses a damaged header and a cut-off body', () => {
    const archive = execFileSync('tar', ['-C', path.join(dir, 'src'), '-cf', '-', 'manifests'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const damaged = Buffer.from(archive);
    damaged[10] = (damaged[10] ?? 0) ^ 0x01;
    expect(() => [...tarEntries(damaged)]).toThrow(/Invalid tar header/);
    expect(() => [...tarEntries(archive.subarray(0, 512 * 3 + 100))]).toThrow(/Unexpected end of data/);
  });
});
