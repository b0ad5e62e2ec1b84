/**
 * What a push uploads: blobs named by digest and size that can be read from their start as often as
 * an upload needs (a file, bytes in memory, or a blob streamed from another registry).
 */
import { createReadStream } from 'node:fs';
import type { StreamBody } from '../http/types.js';

export interface BlobSource extends StreamBody {
  digest: string;
  /** The blob's size in bytes (`length` of the body). */
  length: number;
  mediaType: string;
  /**
   * The repository of the same registry the blob is known to be in (the base image's), so that it
   * is mounted from there rather than uploaded; a registry that refuses the mount gets an upload.
   */
  mountFrom?: { registry: string; repository: string };
}

/** A blob held in memory (configs, manifests, small layers). */
export function bytesBlob(digest: string, mediaType: string, bytes: Uint8Array): BlobSource {
  return {
    digest,
    mediaType,
    length: bytes.length,
    // eslint-disable-next-line @typescript-eslint/require-await -- an async generator of one chunk
    open: async function* () {
      yield bytes;
    },
  };
}

/** A blob in a file, read in chunks each time it is sent. */
export function fileBlob(digest: string, mediaType: string, file: string, size: number): BlobSource {
  return {
    digest,
    mediaType,
    length: size,
    open: () => createReadStream(file) as AsyncIterable<Uint8Array>,
  };
}
