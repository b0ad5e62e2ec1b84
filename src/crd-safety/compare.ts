/**
 * Whether upgrading a CustomResourceDefinition from `old` to `new` is safe, by the rules of both
 * OLM generations:
 *
 * - OLM v1 (operator-controller's CRD upgrade safety preflight): the scope stays; no stored
 *   version disappears; no field of a version that is kept disappears; every property of a kept
 *   version passes the property checks (property-checks.ts); and, unless the new CRD converts
 *   between versions with a webhook, no pair of its served versions differs in a way the old CRD's
 *   pairs did not already.
 * - OLM v0 (the documentation's "CRD upgrades"): every version the old CRD serves is still in the
 *   new one (a version is first set `served: false`, and only removed in a later upgrade).
 *
 * A CRD read from a bundle has no status: its storage version stands for the versions objects were
 * stored in on the cluster.
 */
import { compareUtf8 } from '../go/utf8.js';
import { isRecord } from '../go/json-value.js';
import { compareProperty, type PropertyCheck } from './property-checks.js';
import { canonical, flattenSchema, normalizeSchema, withoutChildren, type Schema } from './schema.js';
import { compareKubeVersions } from './kube-version.js';

/** Checks on the CRD as a whole (OLM v1), and OLM v0's rule. */
export type CrdCheck = 'scope' | 'storedVersionRemoval' | 'existingFieldRemoval' | 'servedVersionRemoval';
/**
 * Checks on a bundle's CRDs as a set (bundle-crds.ts): a CRD the new bundle no longer ships, which
 * OLM v1 deletes with its objects. Not a check of the preflight (it sees the new bundle only).
 */
export type CrdSetCheck = 'crdRemoval';
export type Check = CrdCheck | PropertyCheck | CrdSetCheck;

export interface CrdProblem {
  /** The CRD's metadata.name. */
  crd: string;
  check: Check;
  /** Which OLM refuses the upgrade (or, for `crdRemoval`, loses the CRD's objects on it). */
  olm: 'v0' | 'v1';
  /** The version compared (`v1`), or the pair of served versions of the new CRD (`v1beta1 -> v1`). */
  version?: string;
  /** The property's simple path in that version's schema (`^.spec.size`). */
  property?: string;
  /** What changed, in the preflight's words. */
  message: string;
}

interface Version {
  name: string;
  served: boolean;
  storage: boolean;
  schema: Schema | undefined;
}

interface Crd {
  name: string;
  scope: string;
  versions: Version[];
  storedVersions: string[];
  webhookConversion: boolean;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The parts of a CRD object the checks read. */
function readCrd(obj: unknown): Crd {
  const o = isRecord(obj) ? obj : {};
  const meta = isRecord(o.metadata) ? o.metadata : {};
  const spec = isRecord(o.spec) ? o.spec : {};
  const status = isRecord(o.status) ? o.status : {};
  const versions = (Array.isArray(spec.versions) ? spec.versions : []).filter(isRecord).map((v): Version => ({
    name: str(v.name),
    served: v.served === true,
    storage: v.storage === true,
    schema:
      isRecord(v.schema) && isRecord(v.schema.openAPIV3Schema)
        ? normalizeSchema(v.schema.openAPIV3Schema)
        : undefined,
  }));
  let stored = (Array.isArray(status.storedVersions) ? status.storedVersions : []).map(str);
  if (stored.length === 0) stored = versions.filter((v) => v.storage).map((v) => v.name);
  const conversion = isRecord(spec.conversion) ? spec.conversion : {};
  return {
    name: str(meta.name),
    scope: str(spec.scope),
    versions,
    storedVersions: stored,
    webhookConversion: conversion.strategy === 'Webhook',
  };
}

interface Issue {
  version: string;
  property: string;
  check: PropertyCheck;
  message: string;
}

/** The property problems between two schemas of versions, path by path (old paths only). */
function compareSchemas(a: Schema | undefined, b: Schema | undefined, version: string): Issue[] {
  const before = flattenSchema(a);
  const after = flattenSchema(b);
  const out: Issue[] = [];
  for (const [property, oldS] of [...before].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
    const x = withoutChildren(oldS);
    const newS = after.get(property);
    const y = newS === undefined ? {} : withoutChildren(newS);
    if (newS !== undefined && canonical(x) === canonical(y)) continue;
    for (const p of compareProperty(x, y)) out.push({ version, property, ...p });
  }
  return out;
}

/** Every pair of served versions, lower first (`v1alpha1 -> v1`), compared. */
function servedPairs(crd: Crd): Issue[] {
  const served = crd.versions.filter((v) => v.served).sort((a, b) => compareKubeVersions(a.name, b.name));
  const out: Issue[] = [];
  for (let i = 0; i < served.length; i++) {
    for (let j = i + 1; j < served.length; j++) {
      const [a, b] = [served[i] as Version, served[j] as Version];
      out.push(...compareSchemas(a.schema, b.schema, `${a.name} -> ${b.name}`));
    }
  }
  return out;
}

const issueKey = (i: Issue): string => `${i.version}\u0000${i.property}\u0000${i.check}\u0000${i.message}`;

/** The problems of upgrading `oldCrd` to `newCrd` (objects as read from manifests), in check order. */
export function compareCrds(oldCrd: unknown, newCrd: unknown): CrdProblem[] {
  const a = readCrd(oldCrd);
  const b = readCrd(newCrd);
  const crd = b.name || a.name;
  const out: CrdProblem[] = [];
  const v1 = (check: Check, message: string, version?: string, property?: string): void => {
    const p: CrdProblem = { crd, check, olm: 'v1', message };
    if (version !== undefined) p.version = version;
    if (property !== undefined) p.property = property;
    out.push(p);
  };
  if (a.scope !== b.scope)
    v1('scope', `scope changed : ${JSON.stringify(a.scope)} -> ${JSON.stringify(b.scope)}`);
  const newNames = new Set(b.versions.map((v) => v.name));
  const removedStored = a.storedVersions.filter((v) => !newNames.has(v));
  if (removedStored.length > 0)
    v1('storedVersionRemoval', `stored versions removed : [${removedStored.join(' ')}]`);
  const oldByName = new Map(a.versions.map((v) => [v.name, v]));
  for (const nv of b.versions) {
    const ov = oldByName.get(nv.name);
    if (ov === undefined) continue;
    const kept = new Set(flattenSchema(nv.schema).keys());
    for (const f of [...flattenSchema(ov.schema).keys()].sort(compareUtf8))
      if (!kept.has(f)) v1('existingFieldRemoval', `removed field : ${nv.name}.${f}`, nv.name, f);
  }
  const newByName = new Map(b.versions.map((v) => [v.name, v]));
  for (const ov of a.versions) {
    const nv = newByName.get(ov.name);
    if (nv === undefined) continue;
    for (const i of compareSchemas(ov.schema, nv.schema, ov.name))
      v1(i.check, i.message, i.version, i.property);
  }
  if (!b.webhookConversion) {
    const known = new Set(servedPairs(a).map(issueKey));
    for (const i of servedPairs(b))
      if (!known.has(issueKey(i))) v1(i.check, i.message, i.version, i.property);
  }
  for (const ov of a.versions) {
    if (!ov.served || newNames.has(ov.name)) continue;
    out.push({
      crd,
      check: 'servedVersionRemoval',
      olm: 'v0',
      version: ov.name,
      message: `served version ${ov.name} removed: set it served: false in one upgrade and remove it in a later one`,
    });
  }
  return out;
}

/**
 * A problem as one line of operator-controller's refusal (`v1: ^.spec.size: type: type changed
 * : "integer" -> "string"`); OLM v0's problems in the same shape.
 */
export function problemLine(p: CrdProblem): string {
  if (p.property === undefined || p.check === 'existingFieldRemoval') return `${p.check}: ${p.message}`;
  return `${p.version ?? ''}: ${p.property}: ${p.check}: ${p.message}`;
}

/** Whether an object is a CustomResourceDefinition of any apiextensions.k8s.io version. */
export function isCrd(obj: unknown): boolean {
  return (
    isRecord(obj) &&
    typeof obj.apiVersion === 'string' &&
    obj.apiVersion.startsWith('apiextensions.k8s.io/') &&
    obj.kind === 'CustomResourceDefinition'
  );
}

/** Whether a CRD object is an apiextensions.k8s.io/v1 CustomResourceDefinition. */
export function isV1Crd(obj: unknown): boolean {
  return (
    isRecord(obj) && obj.apiVersion === 'apiextensions.k8s.io/v1' && obj.kind === 'CustomResourceDefinition'
  );
}
