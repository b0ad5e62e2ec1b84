/**
 * The two hashes of opm's cache: MurmurHash3 (x86, 32-bit, seeded), which pogreb v0.10.2 uses to
 * place keys in its index, and FNV-1a 64, the digest opm compares to decide whether a cache still
 * matches its catalog. Both work on bytes. FNV-1a runs as a small WebAssembly module (native 64-bit
 * multiplication) and, for short inputs or without WebAssembly, in 16-bit limbs so that no BigInt is
 * made per byte (the digest runs over every byte of a catalog and of its cache).
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

/** Bytes hashed per call: the state (8 bytes) and one chunk fit in the module's memory. */
const WASM_CHUNK = 64 * 1024;
const WASM_PAGES = 2;
/** Below this many bytes the copy into the module's memory costs more than it saves. */
const WASM_MIN = 64;

/** Unsigned LEB128, as WebAssembly writes sizes and counts. */
function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/**
 * A WebAssembly module of one function, `update(ptr, len)`: FNV-1a 64 over `len` bytes of its
 * memory from `ptr`, the state read from and written back to bytes 0-7 (little-endian). Native
 * 64-bit multiplication runs several times faster than the limb arithmetic below, and an enforced
 * integrity check hashes every byte of a cache (tens of MB for a community catalog) before the
 * server may answer (docs/performance.md, serve).
 */
function fnvModuleBytes(): Uint8Array {
  const I32 = 0x7f;
  const I64 = 0x7e;
  // (local $h i64) (local $end i32); params: $ptr (0), $len (1).
  const body = [
    ...[0x02, 0x01, I64, 0x01, I32],
    // h = i64.load(0); end = ptr + len
    ...[0x41, 0x00, 0x29, 0x03, 0x00, 0x21, 0x02],
    ...[0x20, 0x00, 0x20, 0x01, 0x6a, 0x21, 0x03],
    // block loop: if ptr >= end break; h = (h ^ load8_u(ptr)) * prime; ptr++
    ...[0x02, 0x40, 0x03, 0x40],
    ...[0x20, 0x00, 0x20, 0x03, 0x4f, 0x0d, 0x01],
    ...[0x20, 0x02, 0x20, 0x00, 0x31, 0x00, 0x00, 0x85],
    // i64.const 0x100000001b3 (signed LEB128)
    ...[0x42, 0xb3, 0x83, 0x80, 0x80, 0x80, 0x20],
    ...[0x7e, 0x21, 0x02],
    ...[0x20, 0x00, 0x41, 0x01, 0x6a, 0x21, 0x00, 0x0c, 0x00, 0x0b, 0x0b],
    // i64.store(0, h)
    ...[0x41, 0x00, 0x20, 0x02, 0x37, 0x03, 0x00, 0x0b],
  ];
  const section = (id: number, content: number[]): number[] => [id, ...uleb(content.length), ...content];
  const name = (s: string): number[] => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [0x01, 0x60, 0x02, I32, I32, 0x00]),
    ...section(3, [0x01, 0x00]),
    ...section(5, [0x01, 0x00, WASM_PAGES]),
    ...section(7, [0x02, ...name('mem'), 0x02, 0x00, ...name('update'), 0x00, 0x00]),
    ...section(10, [0x01, ...uleb(body.length), ...body]),
  ]);
}

interface FnvWasm {
  bytes: Uint8Array;
  view: DataView;
  update(ptr: number, len: number): void;
}

/** What this module uses of the WebAssembly API (the project's type libraries do not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

let wasm: FnvWasm | null | undefined;

/** The module, compiled once per thread; null where WebAssembly is not available. */
function fnvWasm(): FnvWasm | null {
  if (wasm !== undefined) return wasm;
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (api === undefined) return (wasm = null);
  try {
    const instance = new api.Instance(new api.Module(fnvModuleBytes()), {});
    const mem = instance.exports.mem as { buffer: ArrayBuffer };
    wasm = {
      bytes: new Uint8Array(mem.buffer),
      view: new DataView(mem.buffer),
      update: instance.exports.update as (ptr: number, len: number) => void,
    };
  } catch {
    wasm = null;
  }
  return wasm;
}

/** FNV-1a 64, fed in pieces; `hex()` is Go's `fmt.Sprintf("%x", h.Sum(nil))`: 16 lowercase digits. */
export class Fnv1a64 {
  // The state in two unsigned 32-bit halves (offset basis 0xcbf29ce484222325).
  private lo = 0x84222325;
  private hi = 0xcbf29ce4;

  update(data: Uint8Array): this {
    const w = data.length >= WASM_MIN ? fnvWasm() : null;
    if (w === null) return this.updateLimbs(data);
    w.view.setUint32(0, this.lo, true);
    w.view.setUint32(4, this.hi, true);
    for (let i = 0; i < data.length; i += WASM_CHUNK) {
      const part = data.subarray(i, i + WASM_CHUNK);
      w.bytes.set(part, 8);
      w.update(8, part.length);
    }
    this.lo = w.view.getUint32(0, true);
    this.hi = w.view.getUint32(4, true);
    return this;
  }

  /** The same in JavaScript, in four 16-bit limbs (no BigInt per byte). */
  private updateLimbs(data: Uint8Array): this {
    let h0 = this.lo & 0xffff;
    let h1 = this.lo >>> 16;
    let h2 = this.hi & 0xffff;
    let h3 = this.hi >>> 16;
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
    this.lo = (h0 | (h1 << 16)) >>> 0;
    this.hi = (h2 | (h3 << 16)) >>> 0;
    return this;
  }

  /** A hash in the same state, fed on its own from here. */
  copy(): Fnv1a64 {
    const c = new Fnv1a64();
    c.lo = this.lo;
    c.hi = this.hi;
    return c;
  }

  hex(): string {
    return this.hi.toString(16).padStart(8, '0') + this.lo.toString(16).padStart(8, '0');
  }
}
