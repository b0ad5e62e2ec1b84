/**
 * The operator-framework API types that opm encodes from CSV fields (CRD and API service
 * descriptions, descriptors, links), decoded as Go's encoding/json fills them and laid out as Go
 * encodes them: fields in struct order, empty ones left out where the type says omitempty.
 * Shared by the `olm.csv.metadata` migration and the CSV the catalog server synthesises.
 */
import { RawJson } from '../go/raw-json.js';
import type { JsonValue } from '../go/json-value.js';
import { asArray, asInt32, asObject, asString, asStringArray, field, type Obj } from '../go/json-decode.js';
import { goStruct } from '../go/go-struct.js';
import { marshal } from '../go/json-encode.js';

export type Out = { [key: string]: JsonValue | RawJson | Out | Out[] | undefined };

/** Plain objects built here are Go structs: their fields keep the order they were written in. */
export function asStructs(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(asStructs);
  if (v instanceof RawJson || v === null || typeof v !== 'object') return v;
  const fields: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) fields[k] = asStructs(x);
  return goStruct(fields);
}

/** Drop keys whose value is undefined (Go omitempty), keeping the order of the rest. */
export function compact(o: Out): Out {
  const r: Out = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) r[k] = v;
  return r;
}

export function nonEmpty(s: string): string | undefined {
  return s === '' ? undefined : s;
}

export function nonEmptyList<T>(l: T[]): T[] | undefined {
  return l.length === 0 ? undefined : l;
}

/** A Go map[string]string: keys sorted by bytes (pre-encoded, since JS objects put integer-like keys first). */
export function sortedMap(m: Record<string, string>): RawJson | undefined {
  if (Object.keys(m).length === 0) return undefined;
  return new RawJson(marshal(m, false));
}

export function objects(v: unknown, where: string, goType: string): Obj[] {
  return asArray(v, where, `[]${goType}`).map((e) => asObject(e, where, goType));
}

export function descriptors(v: unknown, where: string, goType: string): Out[] | undefined {
  return nonEmptyList(
    objects(v, where, goType).map((d) => {
      const value: unknown = field(d, 'value');
      return compact({
        path: asString(field(d, 'path'), `${where}.path`),
        displayName: nonEmpty(asString(field(d, 'displayName'), `${where}.displayName`)),
        description: nonEmpty(asString(field(d, 'description'), `${where}.description`)),
        'x-descriptors': nonEmptyList(asStringArray(field(d, 'x-descriptors'), `${where}.x-descriptors`)),
        // A raw message: kept as the CSV's JSON text has it.
        value: value === undefined ? undefined : new RawJson(marshal(value, true)),
      });
    }),
  );
}

export function resources(v: unknown, where: string): Out[] | undefined {
  return nonEmptyList(
    objects(v, where, 'APIResourceReference').map((r) => ({
      name: asString(field(r, 'name'), `${where}.name`),
      kind: asString(field(r, 'kind'), `${where}.kind`),
      version: asString(field(r, 'version'), `${where}.version`),
    })),
  );
}

export function descriptorFields(o: Obj, where: string): Out {
  return {
    displayName: nonEmpty(asString(field(o, 'displayName'), `${where}.displayName`)),
    description: nonEmpty(asString(field(o, 'description'), `${where}.description`)),
    resources: resources(field(o, 'resources'), `${where}.resources`),
    statusDescriptors: descriptors(
      field(o, 'statusDescriptors'),
      `${where}.statusDescriptors`,
      'StatusDescriptor',
    ),
    specDescriptors: descriptors(field(o, 'specDescriptors'), `${where}.specDescriptors`, 'SpecDescriptor'),
    actionDescriptors: descriptors(
      field(o, 'actionDescriptors'),
      `${where}.actionDescriptors`,
      'ActionDescriptor',
    ),
  };
}

export function crdDescriptions(v: unknown, where: string): Out[] | undefined {
  return nonEmptyList(
    objects(v, where, 'CRDDescription').map((c) =>
      compact({
        name: asString(field(c, 'name'), `${where}.name`),
        version: asString(field(c, 'version'), `${where}.version`),
        kind: asString(field(c, 'kind'), `${where}.kind`),
        ...descriptorFields(c, where),
      }),
    ),
  );
}

export function apiServiceDescriptions(v: unknown, where: string): Out[] | undefined {
  return nonEmptyList(
    objects(v, where, 'APIServiceDescription').map((a) => {
      const port = asInt32(field(a, 'containerPort'), `${where}.containerPort`);
      return compact({
        name: asString(field(a, 'name'), `${where}.name`),
        group: asString(field(a, 'group'), `${where}.group`),
        version: asString(field(a, 'version'), `${where}.version`),
        kind: asString(field(a, 'kind'), `${where}.kind`),
        deploymentName: nonEmpty(asString(field(a, 'deploymentName'), `${where}.deploymentName`)),
        containerPort: port === 0 ? undefined : port,
        ...descriptorFields(a, where),
      });
    }),
  );
}

export function appLink(o: Obj, where: string): Out {
  return compact({
    name: nonEmpty(asString(field(o, 'name'), `${where}.name`)),
    url: nonEmpty(asString(field(o, 'url'), `${where}.url`)),
  });
}
