/**
 * gRPC server reflection (grpc.reflection.v1 and v1alpha, one wire format): answers list_services,
 * file_by_filename and file_containing_symbol from real FileDescriptorProtos (api-contract/descriptors.ts),
 * each file sent with the files it imports, as grpc-go does.
 */
import { ProtoWriter, fieldString, readFields } from '../protobuf/wire.js';
import type { DescriptorSet } from '../api-contract/descriptors.js';
import { compareUtf8 } from '../go/utf8.js';

const NOT_FOUND = 5;
const UNIMPLEMENTED = 12;

/** The files a file needs, itself first, each once. */
function withImports(set: DescriptorSet, name: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  const seen = new Set<string>();
  const visit = (n: string): void => {
    if (seen.has(n)) return;
    seen.add(n);
    const bytes = set.files.get(n);
    if (bytes === undefined) return;
    out.push(bytes);
    for (const dep of set.imports.get(n) ?? []) visit(dep);
  };
  visit(name);
  return out;
}

function errorResponse(code: number, message: string): Uint8Array {
  return new ProtoWriter().uint(1, code).string(2, message).finish();
}

/** The answer to one encoded ServerReflectionRequest. */
export function answerReflection(set: DescriptorSet, request: Uint8Array): Uint8Array {
  let host = '';
  let answer: { field: number; body: Uint8Array } | undefined;
  for (const f of readFields(request)) {
    if (f.field === 1) host = fieldString(f);
    else if (f.field === 7) {
      const list = new ProtoWriter();
      for (const s of [...set.services].sort(compareUtf8))
        list.bytes(1, new ProtoWriter().string(1, s).finish());
      answer = { field: 6, body: list.finish() };
    } else if (f.field === 3 || f.field === 4) {
      const name = fieldString(f);
      const file = f.field === 3 ? (set.files.has(name) ? name : undefined) : set.symbols.get(name);
      if (file === undefined) {
        const what = f.field === 3 ? 'file' : 'symbol';
        answer = { field: 7, body: errorResponse(NOT_FOUND, `${what} not found: ${name}`) };
      } else {
        const files = new ProtoWriter();
        for (const b of withImports(set, file)) files.bytes(1, b);
        answer = { field: 4, body: files.finish() };
      }
    } else if (f.field === 5) {
      answer = { field: 7, body: errorResponse(NOT_FOUND, 'extensions are not supported') };
    } else if (f.field === 6) {
      // No message of these files declares extension ranges: an empty list for the type asked.
      answer = { field: 5, body: new ProtoWriter().string(1, fieldString(f)).finish() };
    }
  }
  answer ??= { field: 7, body: errorResponse(UNIMPLEMENTED, 'request is not supported') };
  return new ProtoWriter().string(1, host).bytes(2, request).bytes(answer.field, answer.body).finish();
}
