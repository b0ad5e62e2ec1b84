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
import { addBlobs, loadFile, loadFileBlobs, parsedObjects } from './load-file.js';
import { walkCatalogDir, type WalkedFile } from './load-walk.js';
import { parseCatalogBytes, type RawBlob } from './parse.js';
import { nativeJsonValues } from './native-json.js';
import { blobsOf } from './write.js';
import { emptyConfig, type Blob, type DeclarativeConfig } from './types.js';

const root = projectRoot();

async function fixtureFiles(): Promise<WalkedFile[]> {
  const files: WalkedFile[] = [];
  for (const group of ['testdata/load', 'testdata/validate', 'testdata/render']) {
    for (const name of readdirSync(path.join(root, group)).sort()) {
      const dir = path.join(root, group, name, 'catalog');
      if (existsSync(dir)) files.push(...(await walkCatalogDir(dir)).files);
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

/** The file parsed whole, then decoded: what loadFile did before it read blob by blob. */
function wholeLoad(f: WalkedFile, bytes: Buffer): { cfg: DeclarativeConfig; findings: Finding[] } {
  const cfg = emptyConfig();
  const findings: Finding[] = [];
  addBlobs(cfg, parsedObjects(parseCatalogBytes(bytes), f.rel, findings), {}, findings);
  return { cfg, findings };
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
  expect(byKind(blobs)).toStrictEqual(byKind(blobsOf(wholeLoad(f, bytes).cfg)));
  expect(findings).toStrictEqual(wholeLoad(f, bytes).findings);
  const loaded = await loadFile(f, {});
  expect(byKind(blobsOf(loaded.cfg))).toStrictEqual(byKind(blobs));
  expect(loaded.findings).toStrictEqual(findings);
}

describe('reading a catalog file blob by blob', () => {
  it('gives what a whole-file parse and load give, for every catalog fixture', async () => {
    const files = await fixtureFiles();
    expect(files.length).toBeGreaterThan(100);
    for (const f of files) await compareFile(f);
  });

  it.runIf(haveCorpus())('gives what a whole-file load gives, for the corpus catalog', async () => {
    const { files } = await walkCatalogDir(corpusPath('community-catalog-v4.21'));
    for (const f of files) await compareFile(f);
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
