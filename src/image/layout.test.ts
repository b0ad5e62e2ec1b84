/**
 * Where `--oci-layout` writes (image build, compose and `alpha bundle build -b none` share it): a
 * new folder, an empty one, or one a symbolic link names, which is written through and keeps the
 * link; never over files, never half.
 */
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpmError } from '../errors.js';
import { digestOf } from '../oci/digest.js';
import { bytesBlob } from '../oci/push/blob-source.js';
import { manifestBytes } from '../oci/push/manifest-put.js';
import type { Assembled } from './assemble.js';
import { writeOciLayout } from './layout.js';

const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';

/** A one-layer image, small enough to check byte by byte. */
function tinyImage(): Assembled {
  const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
  const config = enc('{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}');
  const layer = enc('not really a tarball');
  const configBlob = bytesBlob(digestOf(config), 'application/vnd.oci.image.config.v1+json', config);
  const layerBlob = bytesBlob(digestOf(layer), 'application/vnd.oci.image.layer.v1.tar', layer);
  const manifest = manifestBytes(
    OCI_MANIFEST,
    enc(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: OCI_MANIFEST,
        config: { mediaType: configBlob.mediaType, digest: configBlob.digest, size: config.length },
        layers: [{ mediaType: layerBlob.mediaType, digest: layerBlob.digest, size: layer.length }],
      }),
    ),
  );
  const image = {
    platform: { os: 'linux', architecture: 'amd64' },
    config,
    manifest,
    blobs: [configBlob, layerBlob],
  };
  return { images: [image], top: manifest, plan: { images: [] } } as unknown as Assembled;
}

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-layout-test-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

/** The layout's files, and the tag its index names. */
function layoutAt(dir: string): { names: string[]; tag: unknown; blobs: number } {
  const index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8')) as {
    manifests: Array<{ annotations?: Record<string, string> }>;
  };
  return {
    names: readdirSync(dir).sort(),
    tag: index.manifests[0]?.annotations?.['org.opencontainers.image.ref.name'],
    blobs: readdirSync(path.join(dir, 'blobs', 'sha256')).length,
  };
}

const EXPECTED = { names: ['blobs', 'index.json', 'oci-layout'], tag: 'v1', blobs: 3 };

describe('writeOciLayout', () => {
  it('writes a new folder, and an empty one', async () => {
    await writeOciLayout(path.join(tmp, 'new', 'layout'), tinyImage(), 'v1');
    expect(layoutAt(path.join(tmp, 'new', 'layout'))).toEqual(EXPECTED);
    mkdirSync(path.join(tmp, 'empty'));
    await writeOciLayout(path.join(tmp, 'empty'), tinyImage(), 'v1');
    expect(layoutAt(path.join(tmp, 'empty'))).toEqual(EXPECTED);
  });

  it('writes through a symbolic link to an empty folder, keeping the link', async () => {
    mkdirSync(path.join(tmp, 'real'));
    symlinkSync('real', path.join(tmp, 'link'));
    await writeOciLayout(path.join(tmp, 'link'), tinyImage(), 'v1');
    expect(lstatSync(path.join(tmp, 'link')).isSymbolicLink()).toBe(true);
    expect(layoutAt(path.join(tmp, 'real'))).toEqual(EXPECTED);
    expect(readdirSync(tmp).sort()).toEqual(['link', 'real']);
  });

  it('writes through a chain of links, the last one dangling, creating the folder it names', async () => {
    symlinkSync(path.join(tmp, 'made', 'here'), path.join(tmp, 'second'));
    symlinkSync('second', path.join(tmp, 'first'));
    await writeOciLayout(path.join(tmp, 'first'), tinyImage(), 'v1');
    expect(lstatSync(path.join(tmp, 'first')).isSymbolicLink()).toBe(true);
    expect(lstatSync(path.join(tmp, 'second')).isSymbolicLink()).toBe(true);
    expect(layoutAt(path.join(tmp, 'made', 'here'))).toEqual(EXPECTED);
  });

  it('refuses a link to a folder with files, or to a file, in one line and writes nothing', async () => {
    mkdirSync(path.join(tmp, 'full'));
    writeFileSync(path.join(tmp, 'full', 'keep'), 'x');
    symlinkSync('full', path.join(tmp, 'to-full'));
    writeFileSync(path.join(tmp, 'file'), 'x');
    symlinkSync('file', path.join(tmp, 'to-file'));
    symlinkSync('loop', path.join(tmp, 'loop'));
    const refused = async (dir: string): Promise<OpmError> => {
      const err: unknown = await writeOciLayout(path.join(tmp, dir), tinyImage(), 'v1').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(OpmError);
      return err as OpmError;
    };
    expect((await refused('to-full')).message).toBe(
      `--oci-layout ${path.join(tmp, 'to-full')}: the folder exists and is not empty`,
    );
    expect((await refused('to-file')).message).toBe(
      `--oci-layout ${path.join(tmp, 'to-file')}: not a folder that can be written`,
    );
    expect((await refused('loop')).message).toBe(
      `--oci-layout ${path.join(tmp, 'loop')}: not a folder that can be written`,
    );
    expect(readdirSync(tmp).sort()).toEqual(['file', 'full', 'loop', 'to-file', 'to-full']);
    expect(readdirSync(path.join(tmp, 'full'))).toEqual(['keep']);
  });
});
