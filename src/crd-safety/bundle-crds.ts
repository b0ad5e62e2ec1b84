/**
 * The CustomResourceDefinitions a bundle ships, as the upgrade checks take them: from the
 * `olm.bundle.object` properties of a rendered catalog (base64 JSON manifests) or from a bundle
 * directory's manifests, and the comparison of two bundles' sets CRD by CRD.
 */
import { compareUtf8 } from '../go/utf8.js';
import { isRecord } from '../go/json-value.js';
import { compareCrds, isV1Crd, type CrdProblem } from './compare.js';

/** A CRD by its metadata.name. */
export type CrdSet = Map<string, unknown>;

/** The v1 CRDs among manifests (other kinds and apiextensions.k8s.io/v1beta1 CRDs are left out). */
export function crdSetOf(objects: Iterable<unknown>): CrdSet {
  const out: CrdSet = new Map();
  for (const o of objects) {
    if (!isV1Crd(o) || !isRecord(o) || !isRecord(o.metadata)) continue;
    const name = o.metadata.name;
    if (typeof name === 'string' && name !== '') out.set(name, o);
  }
  return out;
}

/**
 * The manifest of an `olm.bundle.object` value when it is a CRD (the base64 text's head tells,
 * so other manifests are not decoded whole), else undefined.
 */
export function crdOfBundleObject(value: unknown): unknown {
  if (!isRecord(value)) return undefined;
  const data = Object.entries(value).find(([k]) => k.toLowerCase() === 'data')?.[1];
  if (typeof data !== 'string') return undefined;
  const head = Buffer.from(data.slice(0, 400), 'base64').toString('utf8');
  if (!head.includes('CustomResourceDefinition')) return undefined;
  try {
    const obj: unknown = JSON.parse(Buffer.from(data, 'base64').toString('utf8'));
    return isV1Crd(obj) ? obj : undefined;
  } catch {
    return undefined;
  }
}

/** The problems of upgrading from a bundle with `before`'s CRDs to one with `after`'s. */
export function compareCrdSets(before: CrdSet, after: CrdSet): CrdProblem[] {
  const out: CrdProblem[] = [];
  for (const name of [...after.keys()].sort(compareUtf8)) {
    const old = before.get(name);
    // A CRD new to the upgrade has nothing on the cluster to break; one the new bundle drops
    // stays on the cluster as it is.
    if (old !== undefined) out.push(...compareCrds(old, after.get(name)));
  }
  return out;
}
