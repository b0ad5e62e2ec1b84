/**
 * The FileDescriptorProtos the server's reflection service hands out: our registry.proto (package
 * `api`), google/protobuf/struct.proto, which it imports, and grpc/health/v1/health.proto. They are
 * small declarations encoded on first use (a few kilobytes), so no protobuf compiler or runtime
 * library is needed at start-up. registry.proto's is generated from the proto copy
 * (scripts/generate-registry-file.js, run by the build); the other two are Google's and gRPC's
 * published files, written here.
 */
import { ProtoWriter } from '../protobuf/wire.js';
import { REGISTRY_PROTO } from './registry-file.js';

type Scalar = 'string' | 'double' | 'bool' | 'int32' | 'bytes';
const SCALAR_TYPE: Record<Scalar, number> = { double: 1, int32: 5, bool: 8, string: 9, bytes: 12 };
const TYPE_MESSAGE = 11;
const TYPE_ENUM = 14;
const LABEL_OPTIONAL = 1;
const LABEL_REPEATED = 3;

interface FieldDecl {
  name: string;
  /** A scalar, or the full name of a message (`.api.Channel`) or enum (`enum:.pkg.Name`). */
  type: Scalar | string;
  repeated?: boolean;
  oneof?: number;
  /** The field number when it is not the field's position (1-based). */
  number?: number;
}

interface MessageDecl {
  name: string;
  fields: FieldDecl[];
  nested?: MessageDecl[];
  enums?: EnumDecl[];
  oneofs?: string[];
  mapEntry?: boolean;
}

interface EnumDecl {
  name: string;
  values: string[];
}

interface MethodDecl {
  name: string;
  input: string;
  output: string;
  serverStreaming?: boolean;
  clientStreaming?: boolean;
  deprecated?: boolean;
}

interface ServiceDecl {
  name: string;
  methods: MethodDecl[];
}

export interface FileDecl {
  name: string;
  package: string;
  dependencies?: string[];
  messages: MessageDecl[];
  enums?: EnumDecl[];
  services?: ServiceDecl[];
  goPackage?: string;
}

/** protoc's json_name: lowerCamelCase of the field name. */
function jsonName(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function encodeField(f: FieldDecl, number: number): Uint8Array {
  const w = new ProtoWriter().string(1, f.name).uint(3, number);
  w.uint(4, f.repeated ? LABEL_REPEATED : LABEL_OPTIONAL);
  if (f.type in SCALAR_TYPE) w.uint(5, SCALAR_TYPE[f.type as Scalar]);
  else if (f.type.startsWith('enum:')) w.uint(5, TYPE_ENUM).string(6, f.type.slice('enum:'.length));
  else w.uint(5, TYPE_MESSAGE).string(6, f.type);
  if (f.oneof !== undefined) w.uintAlways(9, f.oneof);
  return w.string(10, jsonName(f.name)).finish();
}

function encodeEnum(e: EnumDecl): Uint8Array {
  const w = new ProtoWriter().string(1, e.name);
  e.values.forEach((v, i) => w.message(2, new ProtoWriter().string(1, v).uintAlways(2, i).finish()));
  return w.finish();
}

function encodeMessage(m: MessageDecl): Uint8Array {
  const w = new ProtoWriter().string(1, m.name);
  m.fields.forEach((f, i) => w.message(2, encodeField(f, f.number ?? i + 1)));
  for (const n of m.nested ?? []) w.message(3, encodeMessage(n));
  for (const e of m.enums ?? []) w.message(4, encodeEnum(e));
  if (m.mapEntry) w.message(7, new ProtoWriter().uint(7, true).finish());
  for (const o of m.oneofs ?? []) w.message(8, new ProtoWriter().string(1, o).finish());
  return w.finish();
}

function encodeService(s: ServiceDecl): Uint8Array {
  const w = new ProtoWriter().string(1, s.name);
  for (const m of s.methods) {
    const mw = new ProtoWriter().string(1, m.name).string(2, m.input).string(3, m.output);
    if (m.deprecated) mw.message(4, new ProtoWriter().uint(33, true).finish());
    mw.uint(5, m.clientStreaming === true).uint(6, m.serverStreaming === true);
    w.message(2, mw.finish());
  }
  return w.finish();
}

/** A file's FileDescriptorProto, encoded. */
export function encodeFile(f: FileDecl): Uint8Array {
  const w = new ProtoWriter().string(1, f.name).string(2, f.package);
  for (const d of f.dependencies ?? []) w.stringAlways(3, d);
  for (const m of f.messages) w.message(4, encodeMessage(m));
  for (const e of f.enums ?? []) w.message(5, encodeEnum(e));
  for (const s of f.services ?? []) w.message(6, encodeService(s));
  if (f.goPackage !== undefined) w.message(8, new ProtoWriter().string(11, f.goPackage).finish());
  return w.string(12, 'proto3').finish();
}

const str = (name: string): FieldDecl => ({ name, type: 'string' });
/** Our registry.proto (package `api`), declared from the proto itself at build time (registry-file.ts). */
export const REGISTRY_FILE: FileDecl = REGISTRY_PROTO;

const value = (name: string, type: string, oneof: number): FieldDecl => ({ name, type, oneof });

/** google/protobuf/struct.proto. */
export const STRUCT_FILE: FileDecl = {
  name: 'google/protobuf/struct.proto',
  package: 'google.protobuf',
  goPackage: 'google.golang.org/protobuf/types/known/structpb',
  messages: [
    {
      name: 'Struct',
      fields: [{ name: 'fields', type: '.google.protobuf.Struct.FieldsEntry', repeated: true }],
      nested: [
        {
          name: 'FieldsEntry',
          fields: [str('key'), { name: 'value', type: '.google.protobuf.Value' }],
          mapEntry: true,
        },
      ],
    },
    {
      name: 'Value',
      oneofs: ['kind'],
      fields: [
        value('null_value', 'enum:.google.protobuf.NullValue', 0),
        value('number_value', 'double', 0),
        value('string_value', 'string', 0),
        value('bool_value', 'bool', 0),
        value('struct_value', '.google.protobuf.Struct', 0),
        value('list_value', '.google.protobuf.ListValue', 0),
      ],
    },
    { name: 'ListValue', fields: [{ name: 'values', type: '.google.protobuf.Value', repeated: true }] },
  ],
  enums: [{ name: 'NullValue', values: ['NULL_VALUE'] }],
};

/** grpc/health/v1/health.proto. */
export const HEALTH_FILE: FileDecl = {
  name: 'grpc/health/v1/health.proto',
  package: 'grpc.health.v1',
  goPackage: 'google.golang.org/grpc/health/grpc_health_v1',
  messages: [
    { name: 'HealthCheckRequest', fields: [str('service')] },
    {
      name: 'HealthCheckResponse',
      fields: [{ name: 'status', type: 'enum:.grpc.health.v1.HealthCheckResponse.ServingStatus' }],
      enums: [{ name: 'ServingStatus', values: ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'] }],
    },
    { name: 'HealthListRequest', fields: [] },
    {
      name: 'HealthListResponse',
      fields: [
        { name: 'statuses', type: '.grpc.health.v1.HealthListResponse.StatusesEntry', repeated: true },
      ],
      nested: [
        {
          name: 'StatusesEntry',
          fields: [str('key'), { name: 'value', type: '.grpc.health.v1.HealthCheckResponse' }],
          mapEntry: true,
        },
      ],
    },
  ],
  services: [
    {
      name: 'Health',
      methods: [
        {
          name: 'Check',
          input: '.grpc.health.v1.HealthCheckRequest',
          output: '.grpc.health.v1.HealthCheckResponse',
        },
        {
          name: 'List',
          input: '.grpc.health.v1.HealthListRequest',
          output: '.grpc.health.v1.HealthListResponse',
        },
        {
          name: 'Watch',
          input: '.grpc.health.v1.HealthCheckRequest',
          output: '.grpc.health.v1.HealthCheckResponse',
          serverStreaming: true,
        },
      ],
    },
  ],
};

/** grpc/reflection/v1/reflection.proto, or its v1alpha twin (same messages, another package). */
function reflectionFile(name: string, pkg: string, goPackage: string): FileDecl {
  const t = (m: string): string => `.${pkg}.${m}`;
  return {
    name,
    package: pkg,
    goPackage,
    messages: [
      {
        name: 'ServerReflectionRequest',
        oneofs: ['message_request'],
        fields: [
          str('host'),
          { name: 'file_by_filename', type: 'string', oneof: 0, number: 3 },
          { name: 'file_containing_symbol', type: 'string', oneof: 0, number: 4 },
          { name: 'file_containing_extension', type: t('ExtensionRequest'), oneof: 0, number: 5 },
          { name: 'all_extension_numbers_of_type', type: 'string', oneof: 0, number: 6 },
          { name: 'list_services', type: 'string', oneof: 0, number: 7 },
        ],
      },
      {
        name: 'ExtensionRequest',
        fields: [str('containing_type'), { name: 'extension_number', type: 'int32' }],
      },
      {
        name: 'ServerReflectionResponse',
        oneofs: ['message_response'],
        fields: [
          str('valid_host'),
          { name: 'original_request', type: t('ServerReflectionRequest') },
          { name: 'file_descriptor_response', type: t('FileDescriptorResponse'), oneof: 0, number: 4 },
          { name: 'all_extension_numbers_response', type: t('ExtensionNumberResponse'), oneof: 0, number: 5 },
          { name: 'list_services_response', type: t('ListServiceResponse'), oneof: 0, number: 6 },
          { name: 'error_response', type: t('ErrorResponse'), oneof: 0, number: 7 },
        ],
      },
      {
        name: 'FileDescriptorResponse',
        fields: [{ name: 'file_descriptor_proto', type: 'bytes', repeated: true }],
      },
      {
        name: 'ExtensionNumberResponse',
        fields: [str('base_type_name'), { name: 'extension_number', type: 'int32', repeated: true }],
      },
      {
        name: 'ListServiceResponse',
        fields: [{ name: 'service', type: t('ServiceResponse'), repeated: true }],
      },
      { name: 'ServiceResponse', fields: [str('name')] },
      { name: 'ErrorResponse', fields: [{ name: 'error_code', type: 'int32' }, str('error_message')] },
    ],
    services: [
      {
        name: 'ServerReflection',
        methods: [
          {
            name: 'ServerReflectionInfo',
            input: t('ServerReflectionRequest'),
            output: t('ServerReflectionResponse'),
            clientStreaming: true,
            serverStreaming: true,
          },
        ],
      },
    ],
  };
}

export const REFLECTION_V1_FILE = reflectionFile(
  'grpc/reflection/v1/reflection.proto',
  'grpc.reflection.v1',
  'google.golang.org/grpc/reflection/grpc_reflection_v1',
);
export const REFLECTION_V1ALPHA_FILE = reflectionFile(
  'grpc_reflection_v1alpha/reflection.proto',
  'grpc.reflection.v1alpha',
  'google.golang.org/grpc/reflection/grpc_reflection_v1alpha',
);

/** Every file the reflection service knows, with the symbols each defines. */
export interface DescriptorSet {
  files: Map<string, Uint8Array>;
  /** Fully qualified symbol (service, method, message, enum) → file name. */
  symbols: Map<string, string>;
  /** File name → the names of the files it imports. */
  imports: Map<string, string[]>;
  services: string[];
}

function symbolsOf(f: FileDecl, add: (symbol: string) => void): void {
  const prefix = f.package === '' ? '' : `${f.package}.`;
  const message = (m: MessageDecl, scope: string): void => {
    add(scope + m.name);
    for (const fd of m.fields) add(`${scope}${m.name}.${fd.name}`);
    for (const n of m.nested ?? []) message(n, `${scope}${m.name}.`);
    for (const e of m.enums ?? []) add(`${scope}${m.name}.${e.name}`);
  };
  for (const m of f.messages) message(m, prefix);
  for (const e of f.enums ?? []) add(prefix + e.name);
  for (const s of f.services ?? []) {
    add(prefix + s.name);
    for (const m of s.methods) add(`${prefix}${s.name}.${m.name}`);
  }
}

/** The descriptors of the given files (and the services they declare), encoded. */
export function descriptorSet(files: readonly FileDecl[]): DescriptorSet {
  const set: DescriptorSet = { files: new Map(), symbols: new Map(), imports: new Map(), services: [] };
  for (const f of files) {
    set.files.set(f.name, encodeFile(f));
    set.imports.set(f.name, f.dependencies ?? []);
    symbolsOf(f, (s) => set.symbols.set(s, f.name));
    for (const s of f.services ?? []) set.services.push(f.package === '' ? s.name : `${f.package}.${s.name}`);
  }
  return set;
}
