/**
 * Metadata OLM and the consoles read later: package icons (their bytes against the declared
 * mediatype), CSV annotation keys (a key OLM reads, misspelt, is silently ignored), and
 * olm.maxOpenShiftVersion (which OpenShift reads as a blang/semver version, tolerantly, and uses
 * as major.minor to block cluster upgrades; OLM's OpenShift constraint provider prohibits
 * installing a bundle whose value does not parse).
 *
 * CSV annotations are found in the olm.csv.metadata property of a bundle, or, for bundles that
 * carry their manifests, in the ClusterServiceVersion inside olm.bundle.object.
 */
import { detectMediaType } from '../util/icon-type.js';
import type { Finding } from '../findings.js';
import { isRecord, type JsonValue } from '../go/json-value.js';
import { goQuote } from '../go/fmt.js';
import { compareUtf8 } from '../go/utf8.js';
import { parseSemver, SemverError } from '../model/semver.js';
import type { ModelBundle } from '../model/model.js';
import { propertyValue } from '../property/property.js';
import { bundlePlace, finding, packages, uniqueBundles, type LintInput } from './context.js';

/**
 * Annotation keys OLM, OperatorHub and the OpenShift console read from a CSV (OLM docs; the
 * operator-framework/api validators; OpenShift's "Operator metadata" documentation).
 */
const KNOWN_ANNOTATION_KEYS: readonly string[] = [
  'alm-examples',
  'capabilities',
  'categories',
  'certified',
  'console.openshift.io/disable-operand-delete',
  'console.openshift.io/plugins',
  'containerImage',
  'createdAt',
  'description',
  'features.operators.openshift.io/cnf',
  'features.operators.openshift.io/cni',
  'features.operators.openshift.io/csi',
  'features.operators.openshift.io/disconnected',
  'features.operators.openshift.io/fips-compliant',
  'features.operators.openshift.io/proxy-aware',
  'features.operators.openshift.io/tls-profiles',
  'features.operators.openshift.io/token-auth-aws',
  'features.operators.openshift.io/token-auth-azure',
  'features.operators.openshift.io/token-auth-gcp',
  'olm.operatorGroup',
  'olm.operatorNamespace',
  'olm.properties',
  'olm.skipRange',
  'olm.substitutesFor',
  'olm.targetNamespaces',
  'operatorframework.io/cluster-monitoring',
  'operatorframework.io/initialization-resource',
  'operatorframework.io/suggested-namespace',
  'operatorframework.io/suggested-namespace-template',
  'operators.openshift.io/infrastructure-features',
  'operators.openshift.io/must-gather-image',
  'operators.openshift.io/valid-subscription',
  'operators.operatorframework.io/builder',
  'operators.operatorframework.io/internal-objects',
  'operators.operatorframework.io/project_layout',
  'operators.operatorframework.io/suggested-namespace',
  'repository',
  'support',
];
const KNOWN = new Set(KNOWN_ANNOTATION_KEYS);

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions), capped. */
export function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, (prev2[j - 2] ?? 0) + 1);
      cur.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin > cap) return cap + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[b.length] ?? cap + 1;
}

/**
 * Answers of intendedKey by key: a catalog repeats the same few dozen keys in thousands of bundles,
 * and the edit distances to every known key are the costly part.
 */
const intended = new Map<string, string | undefined>();

/** The known key `key` was probably meant as, or undefined. Short keys allow one edit, long ones two. */
export function intendedKey(key: string): string | undefined {
  if (KNOWN.has(key)) return undefined;
  if (intended.has(key)) return intended.get(key);
  const meant = closestKnownKey(key);
  intended.set(key, meant);
  return meant;
}

function closestKnownKey(key: string): string | undefined {
  const lower = key.toLowerCase();
  for (const k of KNOWN_ANNOTATION_KEYS) if (k.toLowerCase() === lower) return k;
  const cap = key.length <= 12 ? 1 : 2;
  let best: string | undefined;
  let bestD = cap + 1;
  for (const k of KNOWN_ANNOTATION_KEYS) {
    const d = editDistance(lower, k.toLowerCase(), cap);
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  return best;
}

/** The CSV annotations of a bundle: from olm.csv.metadata, else from its CSV object. */
function annotationsOf(b: ModelBundle, input: LintInput): Record<string, unknown> | undefined {
  for (const p of b.properties) {
    if (p.type !== 'olm.csv.metadata') continue;
    const v = propertyValue(p);
    if (!isRecord(v)) continue;
    const a = Object.entries(v).find(([k]) => k.toLowerCase() === 'annotations')?.[1];
    if (isRecord(a)) return a;
  }
  return b.blob === undefined ? undefined : input.csvAnnotations?.get(b.blob);
}

/**
 * blang/semver ParseTolerant: spaces and a leading `v` trimmed, `.0` appended while the text has
 * fewer than three dot-separated parts, leading zeros of those parts dropped, then a strict parse.
 * Returns the parse problem, or undefined.
 */
export function tolerantVersionError(text: string): string | undefined {
  let s = text.trim();
  if (s.startsWith('v')) s = s.slice(1);
  if (s === '') return 'the version is empty';
  const parts = s.split('.');
  while (parts.length < 3) parts.push('0');
  for (let i = 0; i < 3; i++) {
    const p = parts[i] ?? '';
    if (/^0+[0-9]/.test(p)) parts[i] = p.replace(/^0+/, '');
  }
  try {
    parseSemver(parts.join('.'));
    return undefined;
  } catch (e) {
    if (e instanceof SemverError) return `${goQuote(text)} is not a version: ${e.message}`;
    throw e;
  }
}

/** The maxOpenShiftVersion values of a bundle: its property, and any inside CSV olm.properties. */
function maxOcpValues(
  b: ModelBundle,
  annotations: Record<string, unknown> | undefined,
): { value: JsonValue | undefined; where: string }[] {
  const out: { value: JsonValue | undefined; where: string }[] = [];
  b.properties.forEach((p, i) => {
    if (p.type === 'olm.maxOpenShiftVersion')
      out.push({ value: propertyValue(p), where: `properties[${i}]` });
  });
  const raw = annotations?.['olm.properties'];
  if (typeof raw === 'string') {
    let list: unknown;
    try {
      list = JSON.parse(raw);
    } catch {
      list = undefined;
    }
    if (Array.isArray(list)) {
      for (const item of list) {
        if (isRecord(item) && item.type === 'olm.maxOpenShiftVersion') {
          out.push({ value: (item.value ?? null) as JsonValue, where: 'CSV annotation olm.properties' });
        }
      }
    }
  }
  return out;
}

function maxOcpProblem(v: JsonValue | undefined): string | undefined {
  if (typeof v === 'number') return tolerantVersionError(String(v));
  if (typeof v !== 'string')
    return `the value is ${v === null || v === undefined ? 'missing' : Array.isArray(v) ? 'a list' : typeof v}, not a version string`;
  // OLM strips quotes the value may carry (a JSON string written inside a string).
  const text = v.replace(/^"+|"+$/g, '');
  if (text === '') return undefined;
  return tolerantVersionError(text);
}

const MEDIA_ALIASES: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/svg': 'image/svg+xml' };

export function metadataFindings(input: LintInput): Finding[] {
  const out: Finding[] = [];
  for (const p of packages(input.model)) {
    const icon = p.icon;
    if (icon === undefined || icon.base64data === '') continue;
    const declared = icon.mediatype.split(';', 1)[0]?.trim().toLowerCase() ?? '';
    const detected = detectMediaType(Buffer.from(icon.base64data, 'base64'));
    const want = MEDIA_ALIASES[declared] ?? declared;
    if (detected === want) continue;
    const what = detected === '' ? 'bytes of no known image type' : `${detected} bytes`;
    out.push(
      finding(
        'metadata.icon-mediatype',
        `package ${goQuote(p.name)}: the icon is declared ${goQuote(icon.mediatype)} but holds ${what}${detected === '' ? '' : `; set mediatype to ${goQuote(detected)}`}`,
        { loc: p.loc, package: p.name },
      ),
    );
  }
  for (const b of uniqueBundles(input.model)) {
    const place = bundlePlace(b);
    const annotations = annotationsOf(b, input);
    for (const key of Object.keys(annotations ?? {}).sort(compareUtf8)) {
      const meant = intendedKey(key);
      if (meant === undefined) continue;
      const how =
        key.toLowerCase() === meant.toLowerCase()
          ? 'differs only by case from'
          : 'looks like a misspelling of';
      out.push(
        finding(
          'metadata.annotation-key',
          `CSV annotation ${goQuote(key)} ${how} ${goQuote(meant)}, which OLM reads; as written it is ignored`,
          place,
        ),
      );
    }
    const set: { value: JsonValue | undefined }[] = [];
    for (const v of maxOcpValues(b, annotations)) {
      const problem = maxOcpProblem(v.value);
      if (problem === undefined) {
        if (v.value !== '') set.push(v);
        continue;
      }
      out.push(
        finding('metadata.max-openshift-version', `olm.maxOpenShiftVersion (${v.where}): ${problem}`, place),
      );
    }
    if (set.length > 1 && new Set(set.map((v) => JSON.stringify(v.value))).size > 1) {
      out.push(
        finding(
          'metadata.max-openshift-version',
          `olm.maxOpenShiftVersion is set ${set.length} times with different values; OpenShift allows one`,
          place,
        ),
      );
    }
  }
  return out;
}
