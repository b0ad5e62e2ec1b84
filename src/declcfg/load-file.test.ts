/**
 * Blob by blob (parse.ts's OnBlob, loadFileBlobs, and loadFile on it) reads what a whole-file parse
 * and load read: the same raw blobs in the same order, the same decoded blobs, the same findings in
 * the same order. Over every catalog fixture (good and bad) and the corpus catalog when present.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusPath, haveCorpus, projectRoot } from '../../test/corpus.js';
import type { Finding } from '../findings.js';
import { decodeBlob } from './decode.js';
import { loadFile, loadFileBlobs } from './load-file.js';
import { walkCatalogDirSync, type WalkedFile } from './load-walk.js';
import { parseCatalogBytes, type RawBlob } from './parse.js';
import { markNativeJson, nativeJsonValues } from './native-json.js';
import { blobsOf } from './write.js';
import type { Blob } from './types.js';

const root = projectRoot();

function fixtureFiles(): WalkedFile[] {
  const files: WalkedFile[] = [];
  for (const group of ['testdata/load', 'testdata/validate', 'testdata/render']) {
    for (const name of readdirSync(path.join(root, group)).sort()) {
      const dir = path.join(root, group, name, 'catalog');
      if (existsSync(dir)) files.push(...walkCatalogDirSync(dir).files);
    }
  }
  return files;
}

/** Each kind's blobs in order (loadFile groups them by kind; loadFileBlobs gives file order). */
function byKind(blobs: Iterable<Blob>): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const b of blobs) (out[b.kind] ??= []).push([b.value, nativeJsonValues(b) ?? null]);
  return out;
}

/**
 * The file parsed whole, then each blob decoded: what loadFile did before it read blob by blob, with
 * the findings in that order (the parse's problems, then the blobs').
 */
function wholeLoad(f: WalkedFile, bytes: Buffer): { blobs: Blob[]; findings: Finding[] } {
  const parsed = parseCatalogBytes(bytes);
  const findings: Finding[] = parsed.issues.map((i) => ({
    rule: i.rule,
    severity: i.severity,
    message: i.message,
    file: f.rel,
    line: i.line,
  }));
  const blobs: Blob[] = [];
  for (const raw of parsed.blobs) {
    const loc = { file: f.rel, line: raw.line };
    const decoded = decodeBlob(raw.value, {});
    for (const issue of decoded.issues) findings.push({ ...issue, ...loc });
    const b = decoded.blob;
    if (b === undefined) continue;
    if (raw.nativeJson === true) markNativeJson(b);
    b.value.loc = loc;
    blobs.push(b);
  }
  return { blobs, findings };
}

async function compareFile(f: WalkedFile): Promise<void> {
  const bytes = readFileSync(f.abs);
  const whole = parseCatalogBytes(bytes);
  const emitted: RawBlob[] = [];
  const streamed = parseCatalogBytes(bytes, 1, (b) => emitted.push(b));
  expect(streamed.blobs).toEqual([]);
  expect(emitted).toStrictEqual(whole.blobs);
  expect(streamed.issues).toStrictEqual(whole.issues);

  const blobs: Blob[] = [];
  const findings: Finding[] = [];
  await loadFileBlobs(f, {}, findings, (b) => blobs.push(b));
  const expected = wholeLoad(f, bytes);
  // File order, whatever the kinds.
  expect(blobs.map((b) => [b.kind, b.value, nativeJsonValues(b) ?? null])).toStrictEqual(
    expected.blobs.map((b) => [b.kind, b.value, nativeJsonValues(b) ?? null]),
  );
  expect(findings).toStrictEqual(expected.findings);
  const loaded = await loadFile(f, {});
  expect(byKind(blobsOf(loaded.cfg))).toStrictEqual(byKind(blobs));
  expect(loaded.findings).toStrictEqual(findings);
}

describe('reading a catalog file blob by blob', () => {
  it('gives what a whole-file parse and load give, for every catalog fixture', async () => {
    const files = fixtureFiles();
    expect(files.length).toBeGreaterThan(100);
    for (const f of files) await compareFile(f);
  });

  it.runIf(haveCorpus())('gives what a whole-file load gives, for the corpus catalog', async () => {
    const { files } = walkCatalogDirSync(corpusPath('community-catalog-v4.21'));
    for (const f of files) await compareFile(f);
  });

  it('throws what the receiver throws, not a finding of the file', async () => {
    const file = path.join(root, 'testdata', 'load', 'duplicate-keys', 'catalog', 'catalog.yaml');
    const f = { abs: file, rel: 'catalog.yaml', size: readFileSync(file).length };
    const findings: Finding[] = [];
    const thrown = new TypeError('a bug in the receiver');
    await expect(
      loadFileBlobs(f, {}, findings, () => {
        throw thrown;
      }),
    ).rejects.toBe(thrown);
    expect(findings).toEqual([]);
  });

  it('makes an unreadable file a finding', async () => {
    const findings: Finding[] = [];
    const missing = {
      abs: path.join(root, 'testdata', 'no-such-file.yaml'),
      rel: 'no-such-file.yaml',
      size: 1,
    };
    await loadFileBlobs(missing, {}, findings, () => {
      throw new Error('no blob expected');
    });
    expect(findings.map((x) => [x.rule, x.file])).toStrictEqual([['load.unreadable', 'no-such-file.yaml']]);
  });
});
