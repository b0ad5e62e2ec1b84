import type { RegistrySession } from '../auth/session.js';
import type { BlobStore } from '../blob-cache.js';
import type { ImageReference } from '../reference.js';

/** Where one pull fetches from and stores into, and what stops it. */
export interface PullTarget {
  session: RegistrySession;
  ref: ImageReference;
  store: BlobStore;
  signal?: AbortSignal | undefined;
  /** Progress: `got` bytes of the current attempt at downloading `digest` have arrived. */
  onBlobBytes?: ((digest: string, got: number) => void) | undefined;
}
