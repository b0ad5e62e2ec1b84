/**
 * The metadata checks opm makes of a manifest that is neither a CSV nor a CRD ("can it be applied
 * with kubectl"): Kubernetes' object-metadata validation for a cluster-scoped object with any name
 * allowed — a name is required, a namespace is refused, label values must be label values. opm's
 * message ends with the object's type and metadata as Go's `%v` prints them.
 */
import { goQuote } from '../../go/fmt.js';
import { compareUtf8 } from '../../go/utf8.js';
import { labelValueErrors } from './names.js';
import { isObj, obj, str, type Obj } from './go-values.js';

function goMap(m: unknown): string {
  if (!isObj(m)) return 'map[]';
  const keys = Object.keys(m).sort(compareUtf8);
  return `map[${keys.map((k) => `${k}:${typeof m[k] === 'string' ? m[k] : ''}`).join(' ')}]`;
}

/** `&{{Kind APIVersion} {ObjectMeta…}}` as Go prints opm's parsed metadata. */
function metaText(o: Obj): string {
  const m = obj(o, 'metadata');
  const s = (k: string): string => str(m, k);
  const generation = typeof m?.generation === 'number' ? String(m.generation) : '0';
  return (
    `&{{${str(o, 'kind')} ${str(o, 'apiVersion')}} {${s('name')} ${s('generateName')} ${s('namespace')} ${s('selfLink')} ${s('uid')} ` +
    `${s('resourceVersion')} ${generation} 0001-01-01 00:00:00 +0000 UTC <nil> <nil> ${goMap(m?.labels)} ${goMap(m?.annotations)} [] [] []}}`
  );
}

/** opm's error for the object's metadata, or undefined when it passes. */
export function objectMetadataError(o: Obj): string | undefined {
  const m = obj(o, 'metadata');
  const errs: string[] = [];
  if (str(m, 'name') === '' && str(m, 'generateName') === '')
    errs.push('metadata.name: Required value: name or generateName is required');
  if (str(m, 'namespace') !== '') errs.push('metadata.namespace: Forbidden: not allowed on this type');
  const labels = obj(m, 'labels') ?? {};
  for (const k of Object.keys(labels).sort(compareUtf8)) {
    const v = typeof labels[k] === 'string' ? labels[k] : '';
    for (const msg of labelValueErrors(v)) errs.push(`metadata.labels: Invalid value: ${goQuote(v)}: ${msg}`);
  }
  if (errs.length === 0) return undefined;
  const aggregate = errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`;
  return `error validating object metadata: ${aggregate}. ${metaText(o)}`;
}
