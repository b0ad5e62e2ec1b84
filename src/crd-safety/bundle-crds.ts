/**
 * The CustomResourceDefinitions a bundle ships, as the upgrade checks take them: from the
 * `olm.bundle.object` properties of a rendered catalog (base64 JSON manifests) or from a bundle
 * directory's manifests, and the comparison of two bundles' sets CRD by CRD.
 */
import { compareUtf8 } from '../go/utf8.js';
import { isRecord } from '../go/json-value.js';
import { RawJson } from '../go/raw-json.js';
import { compareCrds, isCrd, isV1Crd, type CrdProblem } from './compare.js';

/**
 * A CRD by its metadata.name. apiextensions.k8s.io/v1beta1 CRDs are in it too: they are not
 * compared (OLM v1 reads v1 only), but a bundle that still ships one has not dropped it.
 */
export type CrdSet = Map<string, unknown>;

/** The CRDs among manifests (other kinds are left out). */
export function crdSetOf(objects: Iterable<unknown>): CrdSet {
  const out: CrdSet = new Map();
  for (const o of objects) {
    if (!isCrd(o) || !isRecord(o) || !isRecord(o.metadata)) continue;
    const name = o.metadata.name;
    if (typeof name === 'string' && name !== '') out.set(name, o);
  }
  return out;
}

/**
 * The manifest of an `olm.bundle.object` value when it is a CRD (the base64 text's head tells,
 * so other manifests are not decoded whole), else undefined.
 */
export function crdOfBundleObject(given: unknown): unknown {
  // Rendered bundles hold property values as JSON text.
  const value = given instanceof RawJson ? given.parse() : given;
  if (!isRecord(value)) return undefined;
  const data = Object.entries(value).find(([k]) => k.toLowerCase() === 'data')?.[1];
  if (typeof data !== 'string') return undefined;
  const head = Buffer.from(data.slice(0, 400), 'base64').toString('utf8');
  if (!head.includes('CustomResourceDefinition')) return undefined;
  try {
    const obj: unknown = JSON.parse(Buffer.from(data, 'base64').toString('utf8'));
    return isCrd(obj) ? obj : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The problems of upgrading from a bundle with `before`'s CRDs to one with `after`'s: each CRD both
 * ship compared (when both are v1), then each CRD the new bundle drops.
 *
 * A CRD new to the upgrade has nothing on the cluster to break: OLM v1's preflight passes a CRD
 * the cluster does not have, and OLM v0 creates it. A CRD the new bundle drops is not checked by
 * the preflight (it checks the new bundle's objects only), but OLM v1 installs a bundle's objects
 * as one release and deletes on upgrade what the new release no longer has (Helm's upgrade, or
 * the archived revision's teardown): the CRD goes, and the API server deletes every object of it
 * with it. OLM v0 never deletes a CRD, so there the CRD stays without an operator that owns it.
 */
export function compareCrdSets(before: CrdSet, after: CrdSet): CrdProblem[] {
  const out: CrdProblem[] = [];
  for (const name of [...after.keys()].sort(compareUtf8)) {
    const old = before.get(name);
    const crd = after.get(name);
    if (old !== undefined && isV1Crd(old) && isV1Crd(crd)) out.push(...compareCrds(old, crd));
  }
  for (const name of [...before.keys()].sort(compareUtf8)) {
    if (after.has(name)) continue;
    out.push({
      crd: name,
      check: 'crdRemoval',
      olm: 'v1',
      message:
        'CRD removed from the bundle: OLM v1 deletes it on this upgrade, and with it every object of it (OLM v0 leaves it on the cluster, owned by no operator)',
    });
  }
  return out;
}
