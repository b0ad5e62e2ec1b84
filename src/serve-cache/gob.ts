/**
 * The little of Go's encoding/gob that pogreb v0.10.2 needs: its three metadata files (`db.pmt`,
 * `index.pmt`, `<segment>.psg.pmt`) each hold one gob stream of one struct whose fields are
 * booleans, unsigned or signed integers, or a slice of int64. The writer emits what Go's encoder
 * emits for those structs (type definitions first, then the value, zero fields left out, type ids
 * as a fresh opm process numbers them); the reader understands any stream of such structs, so it
 * also reads files whose type ids differ.
 */

/** Predefined gob type ids. */
const T_BOOL = 1;
const T_INT = 2;
const T_UINT = 3;

export type GobFieldType = 'bool' | 'int' | 'uint' | '[]int64';

export interface GobStructType {
  name: string;
  /** The type id this struct gets in the stream. */
  id: number;
  /** The id of the `[]int64` type when a field has it. */
  sliceId?: number;
  fields: readonly { name: string; type: GobFieldType }[];
}

export type GobValue = Record<string, bigint | boolean | bigint[]>;

class GobWriter {
  readonly bytes: number[] = [];
  uint(x: bigint | number): void {
    let v = BigInt(x);
    if (v < 128n) {
      this.bytes.push(Number(v));
      return;
    }
    const out: number[] = [];
    while (v > 0n) {
      out.unshift(Number(v & 0xffn));
      v >>= 8n;
    }
    this.bytes.push(256 - out.length, ...out);
  }
  int(x: bigint | number): void {
    const v = BigInt(x);
    this.uint(v < 0n ? (~v << 1n) | 1n : v << 1n);
  }
  string(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.uint(b.length);
    for (const x of b) this.bytes.push(x);
  }
}

function typeIdOf(t: GobStructType, f: GobFieldType): number {
  if (f === 'bool') return T_BOOL;
  if (f === 'int') return T_INT;
  if (f === 'uint') return T_UINT;
  if (t.sliceId === undefined) throw new Error(`gob: struct ${t.name} needs a slice type id`);
  return t.sliceId;
}

function message(typeId: number, body: (w: GobWriter) => void): number[] {
  const w = new GobWriter();
  w.int(typeId);
  body(w);
  const len = new GobWriter();
  len.uint(w.bytes.length);
  return [...len.bytes, ...w.bytes];
}

/** One gob stream: the struct's type definition (and its slice type's), then `value`. */
export function encodeGob(t: GobStructType, value: GobValue): Uint8Array {
  // wireType{StructT: &structType{CommonType{Name, Id}, Field: []fieldType{Name, Id}}}: the
  // structType is field 2 of wireType, hence the delta 3 from field -1.
  const def = message(-t.id, (w) => {
    w.uint(3);
    w.uint(1);
    w.uint(1);
    w.string(t.name);
    w.uint(1);
    w.int(t.id);
    w.uint(0);
    w.uint(1);
    w.uint(t.fields.length);
    for (const f of t.fields) {
      w.uint(1);
      w.string(f.name);
      w.uint(1);
      w.int(typeIdOf(t, f.type));
      w.uint(0);
    }
    w.uint(0);
    w.uint(0);
  });
  const out = [...def];
  if (t.sliceId !== undefined) {
    // wireType{SliceT: &sliceType{CommonType{Name: "[]int64", Id}, Elem: int}}.
    const sliceId = t.sliceId;
    out.push(
      ...message(-sliceId, (w) => {
        w.uint(2);
        w.uint(1);
        w.uint(1);
        w.string('[]int64');
        w.uint(1);
        w.int(sliceId);
        w.uint(0);
        w.uint(1);
        w.int(T_INT);
        w.uint(0);
        w.uint(0);
      }),
    );
  }
  out.push(
    ...message(t.id, (w) => {
      let last = -1;
      t.fields.forEach((f, i) => {
        const v = value[f.name];
        if (v === undefined || v === false || v === 0n || (Array.isArray(v) && v.length === 0)) return;
        w.uint(i - last);
        last = i;
        if (f.type === 'bool') w.uint(1);
        else if (f.type === 'uint') w.uint(v as bigint);
        else if (f.type === 'int') w.int(v as bigint);
        else {
          const list = v as bigint[];
          w.uint(list.length);
          for (const x of list) w.int(x);
        }
      });
      w.uint(0);
    }),
  );
  return Uint8Array.from(out);
}

export class GobError extends Error {}

class GobReader {
  pos = 0;
  readonly buf: Uint8Array;
  readonly end: number;
  constructor(buf: Uint8Array, end = buf.length) {
    this.buf = buf;
    this.end = end;
  }
  uint(): bigint {
    if (this.pos >= this.end) throw new GobError('gob: unexpected end of data');
    const b = this.buf[this.pos++] as number;
    if (b < 128) return BigInt(b);
    const n = 256 - b;
    if (n > 8 || this.pos + n > this.end) throw new GobError('gob: bad unsigned integer');
    let v = 0n;
    for (let i = 0; i < n; i++) v = (v << 8n) | BigInt(this.buf[this.pos++] as number);
    return v;
  }
  small(): number {
    const v = this.uint();
    if (v > 0xffffffffn) throw new GobError('gob: count too large');
    return Number(v);
  }
  int(): bigint {
    const u = this.uint();
    return (u & 1n) === 1n ? ~(u >> 1n) : u >> 1n;
  }
  string(): string {
    const n = this.small();
    if (this.pos + n > this.end) throw new GobError('gob: string past end of data');
    const s = Buffer.from(this.buf.buffer, this.buf.byteOffset + this.pos, n).toString('utf8');
    this.pos += n;
    return s;
  }
}

type WireType = { kind: 'struct'; fields: { name: string; id: number }[] } | { kind: 'slice'; elem: number };

/** Skip over a struct encoding whose fields are all strings, ints or nested structs we know. */
function readCommonType(r: GobReader): { name: string; id: number } {
  let field = -1;
  let name = '';
  let id = 0;
  for (;;) {
    const delta = r.small();
    if (delta === 0) return { name, id };
    field += delta;
    if (field === 0) name = r.string();
    else if (field === 1) id = Number(r.int());
    else throw new GobError('gob: unexpected field in type definition');
  }
}

function readWireType(r: GobReader): WireType {
  const delta = r.small();
  const which = delta - 1;
  let out: WireType;
  if (which === 2) {
    const fields: { name: string; id: number }[] = [];
    let field = -1;
    for (;;) {
      const d = r.small();
      if (d === 0) break;
      field += d;
      if (field === 0) readCommonType(r);
      else if (field === 1) {
        const n = r.small();
        for (let i = 0; i < n; i++) fields.push(readCommonType(r));
      } else throw new GobError('gob: unexpected field in struct type');
    }
    out = { kind: 'struct', fields };
  } else if (which === 1) {
    let elem = 0;
    let field = -1;
    for (;;) {
      const d = r.small();
      if (d === 0) break;
      field += d;
      if (field === 0) readCommonType(r);
      else if (field === 1) elem = Number(r.int());
      else throw new GobError('gob: unexpected field in slice type');
    }
    out = { kind: 'slice', elem };
  } else throw new GobError('gob: unsupported type definition');
  if (r.small() !== 0) throw new GobError('gob: malformed type definition');
  return out;
}

function readScalar(r: GobReader, id: number): bigint | boolean {
  if (id === T_BOOL) return r.uint() !== 0n;
  if (id === T_INT) return r.int();
  if (id === T_UINT) return r.uint();
  throw new GobError(`gob: unsupported field type ${id}`);
}

/**
 * Decode the first struct value of a gob stream into its fields by name (bool, integers, slices of
 * integers); fields left out by the encoder (zero values) are absent.
 */
export function decodeGob(buf: Uint8Array): GobValue {
  const types = new Map<number, WireType>();
  let pos = 0;
  while (pos < buf.length) {
    const head = new GobReader(buf);
    head.pos = pos;
    const len = head.small();
    const r = new GobReader(buf, head.pos + len);
    r.pos = head.pos;
    if (r.end > buf.length) throw new GobError('gob: message past end of data');
    const id = Number(r.int());
    if (id < 0) {
      types.set(-id, readWireType(r));
    } else {
      const t = types.get(id);
      if (t === undefined || t.kind !== 'struct') throw new GobError('gob: value of an undefined type');
      const out: GobValue = {};
      let field = -1;
      for (;;) {
        const d = r.small();
        if (d === 0) break;
        field += d;
        const f = t.fields[field];
        if (f === undefined) throw new GobError('gob: field number out of range');
        const ft = types.get(f.id);
        if (ft !== undefined && ft.kind === 'slice') {
          const n = r.small();
          const list: bigint[] = [];
          for (let i = 0; i < n; i++) list.push(readScalar(r, ft.elem) as bigint);
          out[f.name] = list;
        } else out[f.name] = readScalar(r, f.id);
      }
      return out;
    }
    pos = r.end;
  }
  throw new GobError('gob: no value in stream');
}
