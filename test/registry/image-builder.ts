import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { Agent, request } from 'undici';
import { run } from './tools.js';

export interface TarEntrySpec {
  name: string;
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'character-device' | 'fifo';
  content?: string | Buffer;
  linkname?: string;
  /** Permission bits; default 0755 for folders, 0644 for the rest. */
  mode?: number;
}

/** A layer from a folder (optionally placed under `prefix`), or from literal tar entries. */
export type LayerSource = { dir: string; prefix?: string } | { entries: TarEntrySpec[] };

export interface Blob {
  mediaType: string;
  digest: string;
  size: number;
  bytes: Buffer;
}

export interface BuiltImage {
  /** Digest, media type and bytes of what the tag points at (manifest, or index/list). */
  top: Blob;
  /** Per-platform manifests (one for a single-platform image). */
  manifests: Array<{
    manifest: Blob;
    config: Blob;
    layers: Blob[];
    platform: { os: string; architecture: string; variant?: string };
  }>;
  /** Every blob and manifest by digest. */
  blobs: Map<string, Blob>;
}

export const BUNDLE_LABELS = (pkg: string): Record<string, string> => ({
  'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
  'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
  'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
  'operators.operatorframework.io.bundle.package.v1': pkg,
});
export const CATALOG_LABELS = { 'operators.operatorframework.io.index.configs.v1': '/configs' };

function sha256(b: Buffer): string {
  return `sha256:${createHash('sha256').update(b).digest('hex')}`;
}

function blob(mediaType: string, bytes: Buffer): Blob {
  return { mediaType, digest: sha256(bytes), size: bytes.length, bytes };
}

function walk(dir: string, prefix: string, out: TarEntrySpec[]): void {
  for (const name of readdirSync(dir).sort()) {
    const abs = path.join(dir, name);
    const rel = prefix === '' ? name : `${prefix}/${name}`;
    const st = lstatSync(abs);
    if (st.isDirectory()) {
      out.push({ name: rel, type: 'directory' });
      walk(abs, rel, out);
    } else if (st.isSymbolicLink()) {
      out.push({ name: rel, type: 'symlink', linkname: readlinkSync(abs) });
    } else if (st.isFile()) {
      out.push({ name: rel, type: 'file', content: readFileSync(abs) });
    }
  }
}

/** A reproducible tar: fixed owner, mode and mtime, names in the given order. */
export async function makeTar(entries: TarEntrySpec[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    pack.on('data', (c: unknown) => chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c))));
    pack.on('end', () => resolve());
    pack.on('error', reject);
  });
  for (const e of entries) {
    const type = e.type ?? 'file';
    const content = type === 'file' ? Buffer.from(e.content ?? '') : undefined;
    await new Promise<void>((resolve, reject) => {
      const header = {
        name: e.name,
        type,
        mode: e.mode ?? (type === 'directory' ? 0o755 : 0o644),
        mtime: new Date(0),
        uid: 0,
        gid: 0,
        ...(e.linkname !== undefined ? { linkname: e.linkname } : {}),
        ...(content !== undefined ? { size: content.length } : {}),
      };
      const cb = (err?: Error | null): void => (err ? reject(err) : resolve());
      if (content !== undefined) pack.entry(header, content, cb);
      else pack.entry(header, cb);
    });
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

export function layerEntries(src: LayerSource): TarEntrySpec[] {
  if ('entries' in src) return src.entries;
  const out: TarEntrySpec[] = [];
  if (src.prefix !== undefined) {
    const parts = src.prefix.split('/');
    for (let i = 1; i <= parts.length; i++)
      out.push({ name: parts.slice(0, i).join('/'), type: 'directory' });
  }
  walk(src.dir, src.prefix ?? '', out);
  return out;
}

export type Compression = 'gzip' | 'zstd' | 'none';

function compress(tarBytes: Buffer, c: Compression): Buffer {
  if (c === 'gzip') return gzipSync(tarBytes, { level: 6 });
  if (c === 'zstd') return run('zstd', ['-q', '-3', '-c'], tarBytes);
  return tarBytes;
}

const OCI_LAYER: Record<Compression, string> = {
  gzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  zstd: 'application/vnd.oci.image.layer.v1.tar+zstd',
  none: 'application/vnd.oci.image.layer.v1.tar',
};

export interface BuildOptions {
  layers: LayerSource[];
  labels: Record<string, string>;
  compression?: Compression;
  format?: 'oci' | 'docker';
  /** Several platforms make an index (OCI) or manifest list (Docker); one makes a plain manifest. */
  platforms?: Array<{ os: string; architecture: string; variant?: string }>;
  /** Force an index even for one platform. */
  index?: boolean;
  /** More of the config's `config` (`User`, `Entrypoint`, `Env`…), beside the labels. */
  config?: Record<string, unknown>;
}

/** Build an image in memory: layers, config, manifest(s) and, for several platforms, an index. */
export async function buildImage(o: BuildOptions): Promise<BuiltImage> {
  const format = o.format ?? 'oci';
  const compression = o.compression ?? 'gzip';
  const blobs = new Map<string, Blob>();
  const layers: Blob[] = [];
  const diffIds: string[] = [];
  for (const src of o.layers) {
    const t = await makeTar(layerEntries(src));
    diffIds.push(sha256(t));
    const mt =
      format === 'docker' ? 'application/vnd.docker.image.rootfs.diff.tar.gzip' : OCI_LAYER[compression];
    const l = blob(mt, compress(t, format === 'docker' ? 'gzip' : compression));
    layers.push(l);
    blobs.set(l.digest, l);
  }
  const platforms = o.platforms ?? [{ os: 'linux', architecture: 'amd64' }];
  const manifests: BuiltImage['manifests'] = [];
  for (const p of platforms) {
    const cfgDoc = {
      architecture: p.architecture,
      os: p.os,
      ...(p.variant !== undefined ? { variant: p.variant } : {}),
      // Several platforms: each config says which it is, so tests can see which one was chosen.
      config: {
        ...o.config,
        Labels:
          platforms.length > 1
            ? { ...o.labels, 'test.platform': [p.os, p.architecture, p.variant].filter(Boolean).join('/') }
            : o.labels,
      },
      rootfs: { type: 'layers', diff_ids: diffIds },
      history: diffIds.map(() => ({ created_by: 'opm-ts test image builder' })),
    };
    const config = blob(
      format === 'docker'
        ? 'application/vnd.docker.container.image.v1+json'
        : 'application/vnd.oci.image.config.v1+json',
      Buffer.from(JSON.stringify(cfgDoc)),
    );
    blobs.set(config.digest, config);
    const mt =
      format === 'docker'
        ? 'application/vnd.docker.distribution.manifest.v2+json'
        : 'application/vnd.oci.image.manifest.v1+json';
    const manDoc = {
      schemaVersion: 2,
      mediaType: mt,
      config: { mediaType: config.mediaType, digest: config.digest, size: config.size },
      layers: layers.map((l) => ({ mediaType: l.mediaType, digest: l.digest, size: l.size })),
    };
    const manifest = blob(mt, Buffer.from(JSON.stringify(manDoc)));
    blobs.set(manifest.digest, manifest);
    manifests.push({ manifest, config, layers, platform: p });
  }
  let top: Blob;
  const first = manifests[0];
  if (first === undefined) throw new Error('no platforms');
  if (manifests.length === 1 && o.index !== true) {
    top = first.manifest;
  } else {
    const mt =
      format === 'docker'
        ? 'application/vnd.docker.distribution.manifest.list.v2+json'
        : 'application/vnd.oci.image.index.v1+json';
    const idx = {
      schemaVersion: 2,
      mediaType: mt,
      manifests: manifests.map((m) => ({
        mediaType: m.manifest.mediaType,
        digest: m.manifest.digest,
        size: m.manifest.size,
        platform: m.platform,
      })),
    };
    top = blob(mt, Buffer.from(JSON.stringify(idx)));
    blobs.set(top.digest, top);
  }
  return { top, manifests, blobs };
}

/** Write the image as an OCI image layout (for skopeo), tagged `tag`. */
export function writeOciLayout(dir: string, image: BuiltImage, tag: string): void {
  mkdirSync(path.join(dir, 'blobs', 'sha256'), { recursive: true });
  for (const b of image.blobs.values())
    writeFileSync(path.join(dir, 'blobs', 'sha256', b.digest.slice(7)), b.bytes);
  writeFileSync(path.join(dir, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
  writeFileSync(
    path.join(dir, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: image.top.mediaType,
          digest: image.top.digest,
          size: image.top.size,
          annotations: { 'org.opencontainers.image.ref.name': tag },
        },
      ],
    }),
  );
}

export interface PushTarget {
  /** `http://127.0.0.1:PORT` or `https://…`. */
  url: string;
  repo: string;
  tag: string;
  /** Authorization header value, if the registry needs one. */
  authorization?: string;
  /** CA for an HTTPS registry. */
  ca?: string;
}

/** Push an image over the registry API: monolithic blob uploads, then manifests children first. */
export async function pushImage(image: BuiltImage, t: PushTarget): Promise<void> {
  const dispatcher = new Agent(t.ca !== undefined ? { connect: { ca: readFileSync(t.ca) } } : {});
  const headers = (extra: Record<string, string> = {}): Record<string, string> => ({
    ...extra,
    ...(t.authorization !== undefined ? { authorization: t.authorization } : {}),
  });
  try {
    const manifestDigests = new Set([image.top.digest, ...image.manifests.map((m) => m.manifest.digest)]);
    for (const b of image.blobs.values()) {
      if (manifestDigests.has(b.digest)) continue;
      const start = await request(`${t.url}/v2/${t.repo}/blobs/uploads/`, {
        method: 'POST',
        headers: headers(),
        dispatcher,
      });
      await start.body.dump();
      const loc = start.headers.location;
      if (start.statusCode !== 202 || typeof loc !== 'string')
        throw new Error(`upload start for ${t.repo}: HTTP ${start.statusCode}`);
      const u = new URL(loc, t.url);
      u.searchParams.set('digest', b.digest);
      const put = await request(u, {
        method: 'PUT',
        headers: headers({ 'content-type': 'application/octet-stream' }),
        body: b.bytes,
        dispatcher,
      });
      await put.body.dump();
      if (put.statusCode !== 201) throw new Error(`blob upload ${b.digest}: HTTP ${put.statusCode}`);
    }
    const putManifest = async (m: Blob, ref: string): Promise<void> => {
      const r = await request(`${t.url}/v2/${t.repo}/manifests/${ref}`, {
        method: 'PUT',
        headers: headers({ 'content-type': m.mediaType }),
        body: m.bytes,
        dispatcher,
      });
      const text = await r.body.text();
      if (r.statusCode !== 201) throw new Error(`manifest ${ref}: HTTP ${r.statusCode} ${text}`);
    };
    if (image.top.digest !== image.manifests[0]?.manifest.digest || image.manifests.length > 1) {
      for (const m of image.manifests) await putManifest(m.manifest, m.manifest.digest);
    }
    await putManifest(image.top, t.tag);
  } finally {
    await dispatcher.close();
  }
}

/** A push-capable bearer token from the fixture's token server. */
export async function bearerToken(
  realm: string,
  repo: string,
  user: string,
  password: string,
): Promise<string> {
  const u = new URL(realm);
  u.searchParams.set('service', 'test-registry');
  u.searchParams.set('scope', `repository:${repo}:pull,push`);
  const r = await request(u, {
    headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
  });
  const doc: unknown = await r.body.json();
  const token = typeof doc === 'object' && doc !== null ? Reflect.get(doc, 'token') : undefined;
  if (typeof token !== 'string') throw new Error('no token from token server');
  return `Bearer ${token}`;
}

/**
 * A stand-in for opm's image, for a catalog image to be built on: `/bin/opm` (a shell script),
 * and `/tmp` when asked; one layer, in `format`, on each of `platforms` when given.
 */
export function buildOpmStandIn(
  o: Pick<BuildOptions, 'format' | 'platforms'> & { labels?: Record<string, string>; tmp?: boolean },
): Promise<BuiltImage> {
  const entries: TarEntrySpec[] = [
    { name: 'bin', type: 'directory' },
    { name: 'bin/opm', content: '#!/bin/sh\n' },
  ];
  if (o.tmp === true) entries.push({ name: 'tmp', type: 'directory' });
  return buildImage({
    layers: [{ entries }],
    labels: o.labels ?? {},
    ...(o.format === undefined ? {} : { format: o.format }),
    ...(o.platforms === undefined ? {} : { platforms: o.platforms }),
  });
}
