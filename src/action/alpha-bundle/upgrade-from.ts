/**
 * CRD upgrade safety between two bundles given directly (`alpha bundle validate --upgrade-from`):
 * the CRDs of the bundle upgraded from (a bundle directory, or a bundle image pulled with our
 * registry client) against those of the bundle upgraded to, by the rules `validate
 * --crd-upgrade-safety` applies to every upgrade edge of a catalog (src/crd-safety), as findings
 * on the new bundle's CRD manifests.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseBundleDir, type RegistryBundle } from '../../bundle/parse.js';
import { compareCrdSets, crdSetOf, problemLine, type CrdSet } from '../../crd-safety/index.js';
import { OpmError, wrapError } from '../../errors.js';
import type { Finding } from '../../findings.js';
import { crdRuleId } from '../../lint/crd-upgrade.js';
import type { ImageSource } from '../../oci/image-source.js';
import { expectObject, expectOptions, expectString } from '../../util/args.js';

export interface BundleRefOptions {
  /** Where an image reference is pulled from; a directory needs none. */
  imageSource?: ImageSource;
  /** Directory a relative bundle directory is resolved against. */
  cwd?: string;
  signal?: AbortSignal;
}

/** Whether `ref` names a directory (else it is taken for an image reference, as render takes it). */
export async function isDirectoryRef(ref: string, cwd?: string): Promise<boolean> {
  return stat(path.resolve(cwd ?? '', ref)).then(
    (st) => st.isDirectory(),
    () => false,
  );
}

/** A bundle read from a directory, or from an image pulled and unpacked for the time of reading. */
export async function readBundleRef(ref: string, o: BundleRefOptions = {}): Promise<RegistryBundle> {
  expectString(ref, 'readBundleRef(ref)', 'a bundle directory or image reference');
  expectOptions(o, 'readBundleRef(ref, options)');
  const signal = o.signal === undefined ? {} : { signal: o.signal };
  if (await isDirectoryRef(ref, o.cwd)) return parseBundleDir(path.resolve(o.cwd ?? '', ref), signal);
  if (o.imageSource === undefined)
    throw new OpmError(`${ref} is no directory, and no registry client was given to pull it as an image`);
  const img = await o.imageSource.pull(ref, signal);
  try {
    return await parseBundleDir(img.root, signal);
  } finally {
    await img.release();
  }
}

/** The CRDs of a bundle read by readBundleRef, with the manifest file each came from. */
export function bundleCrds(b: RegistryBundle): { crds: CrdSet; files: Map<string, string> } {
  const crds = crdSetOf(b.objects.map((o) => o.object));
  const files = new Map<string, string>();
  for (const o of b.objects) {
    const name = (o.object.metadata as { name?: unknown } | undefined)?.name;
    if (typeof name === 'string' && crds.get(name) === o.object) files.set(name, o.file);
  }
  return { crds, files };
}

/**
 * The findings of upgrading from bundle `from` to bundle `to` (errors: each is a change OLM
 * refuses, or a CRD OLM v1 deletes), each on the new bundle's manifest of that CRD when it has one.
 * `names` are how the two bundles are shown in messages.
 */
export function bundleUpgradeFindings(
  from: RegistryBundle,
  to: RegistryBundle,
  names: { from: string; to: string } = { from: from.name, to: to.name },
): Finding[] {
  expectObject(from, 'bundleUpgradeFindings(from)', 'a bundle as readBundleRef returns it');
  expectObject(to, 'bundleUpgradeFindings(from, to)', 'a bundle as readBundleRef returns it');
  const before = bundleCrds(from);
  const after = bundleCrds(to);
  return compareCrdSets(before.crds, after.crds).map((p) => {
    const f: Finding = {
      rule: crdRuleId(p.check),
      severity: 'error',
      message: `upgrade ${names.from} -> ${names.to}: CRD ${JSON.stringify(p.crd)}: ${problemLine(p)}`,
    };
    const file = after.files.get(p.crd);
    if (file !== undefined) f.file = file;
    return f;
  });
}

/**
 * The CRD upgrade from the bundle `from` names (directory or image) to the bundle directory `toDir`
 * (an unpacked image's root, say): bundleUpgradeFindings of the two. Errors reading `from` name it.
 */
export async function checkBundleUpgrade(
  from: string,
  toDir: string,
  o: BundleRefOptions & { toName?: string } = {},
): Promise<Finding[]> {
  expectString(from, 'checkBundleUpgrade(from)', 'a bundle directory or image reference');
  expectString(toDir, 'checkBundleUpgrade(from, toDir)', 'a bundle directory');
  expectOptions(o, 'checkBundleUpgrade(from, toDir, options)');
  const old = await readBundleRef(from, o).catch((err: unknown) => {
    throw wrapError(`--upgrade-from ${from}`, err);
  });
  const next = await parseBundleDir(toDir, o.signal === undefined ? {} : { signal: o.signal });
  return bundleUpgradeFindings(old, next, { from, to: o.toName ?? next.name });
}
