import type { Hash } from 'node:crypto';
import { OpmError } from '../errors.js';

// node:crypto is looked up when a digest is computed, not when this module loads: it costs
// milliseconds of start-up that commands without images do not need.
const crypto = () => process.getBuiltinModule('node:crypto');

/** Digest algorithms a descriptor may use, with the length of their hex encoding. */
const ALGORITHMS: Record<string, { node: string; hexLength: number }> = {
  sha256: { node: 'sha256', hexLength: 64 },
  sha512: { node: 'sha512', hexLength: 128 },
};

export interface ParsedDigest {
  algorithm: string;
  hex: string;
}

/** Split and check `alg:hex`; unknown algorithms are refused rather than trusted unverified. */
export function parseDigest(digest: string): ParsedDigest {
  const i = digest.indexOf(':');
  const algorithm = i < 0 ? '' : digest.slice(0, i);
  const hex = i < 0 ? '' : digest.slice(i + 1);
  const alg = ALGORITHMS[algorithm];
  if (alg === undefined) {
    throw new OpmError(`unsupported digest "${digest}"`, {
      code: 'E_DIGEST_MISMATCH',
      hint: 'only sha256 and sha512 digests can be verified',
    });
  }
  if (hex.length !== alg.hexLength || !/^[0-9a-f]+$/.test(hex)) {
    throw new OpmError(`malformed digest "${digest}"`, { code: 'E_DIGEST_MISMATCH' });
  }
  return { algorithm, hex };
}

export function hasherFor(digest: string): Hash {
  const { algorithm } = parseDigest(digest);
  const alg = ALGORITHMS[algorithm];
  if (alg === undefined) throw new Error('unreachable: parseDigest checked the algorithm');
  return crypto().createHash(alg.node);
}

export function digestOf(data: Uint8Array, algorithm = 'sha256'): string {
  const alg = ALGORITHMS[algorithm];
  if (alg === undefined) throw new Error(`unsupported digest algorithm ${algorithm}`);
  return `${algorithm}:${crypto().createHash(alg.node).update(data).digest('hex')}`;
}
