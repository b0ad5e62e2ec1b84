/**
 * The two hashes of opm's cache: MurmurHash3 (x86, 32-bit, seeded), which pogreb v0.10.2 uses to
 * place keys in its index, and FNV-1a 64, the digest opm compares to decide whether a cache still
 * matches its catalog. Both work on bytes; 64-bit arithmetic is done in 16-bit limbs so that no
 * BigInt is made per byte (the digest runs over every byte of a catalog and of its cache).
 */

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function rotl32(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

/** MurmurHash3_x86_32 of `data` with `seed`, as an unsigned 32-bit number. */
export function murmur3(data: Uint8Array, seed: number): number {
  let h = seed >>> 0;
  const n = data.length;
  const blocks = n - (n % 4);
  for (let i = 0; i < blocks; i += 4) {
    let k =
      (data[i] as number) |
      ((data[i + 1] as number) << 8) |
      ((data[i + 2] as number) << 16) |
      ((data[i + 3] as number) << 24);
    k = Math.imul(k, C1);
    k = rotl32(k, 15);
    k = Math.imul(k, C2);
    h ^= k;
    h = rotl32(h, 13);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const tail = n - blocks;
  if (tail > 0) {
    let k = 0;
    if (tail === 3) k ^= (data[blocks + 2] as number) << 16;
    if (tail >= 2) k ^= (data[blocks + 1] as number) << 8;
    k ^= data[blocks] as number;
    k = Math.imul(k, C1);
    k = rotl32(k, 15);
    k = Math.imul(k, C2);
    h ^= k;
  }
  h ^= n;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a 64, fed in pieces; `hex()` is Go's `fmt.Sprintf("%x", h.Sum(nil))`: 16 lowercase digits. */
export class Fnv1a64 {
  // The state in four 16-bit limbs, lowest first (offset basis 0xcbf29ce484222325).
  private h0 = 0x2325;
  private h1 = 0x8422;
  private h2 = 0x9ce4;
  private h3 = 0xcbf2;

  update(data: Uint8Array): this {
    let h0 = this.h0;
    let h1 = this.h1;
    let h2 = this.h2;
    let h3 = this.h3;
    for (let i = 0; i < data.length; i++) {
      h0 ^= data[i] as number;
      // h * 0x100000001b3 = h * 0x1b3 + (h << 40), modulo 2^64.
      const t0 = h0 * 0x1b3;
      const t1 = h1 * 0x1b3 + (t0 >>> 16);
      const t2 = h2 * 0x1b3 + (t1 >>> 16) + ((h0 & 0xff) << 8);
      const t3 = h3 * 0x1b3 + (t2 >>> 16) + (h0 >>> 8) + ((h1 & 0xff) << 8);
      h0 = t0 & 0xffff;
      h1 = t1 & 0xffff;
      h2 = t2 & 0xffff;
      h3 = t3 & 0xffff;
    }
    this.h0 = h0;
    this.h1 = h1;
    this.h2 = h2;
    this.h3 = h3;
    return this;
  }

  hex(): string {
    return [this.h3, this.h2, this.h1, this.h0].map((x) => x.toString(16).padStart(4, '0')).join('');
  }
}
