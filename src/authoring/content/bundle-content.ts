/**
 * The content checks of an unpacked bundle's `manifests/` folder, as `opm alpha bundle validate`
 * and `unpack` make them: each file's kind supported for registry+v1, the CSV and CRD validators,
 * the metadata of other objects, the bundle validator (owned CRDs present, version, release), and the
 * optional OperatorHub checks. The findings are data; opm's verdict keeps the errors, in its order.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { OpmError } from '../../errors.js';
import { compareUtf8 } from '../../go/utf8.js';
import { decodeFirstDocument } from '../../bundle/decode.js';
import { detectMediaType } from '../media-type.js';
import { SUPPORTED_KINDS } from './supported-kinds.js';
import { csvConversionError, csvProblems } from './csv-checks.js';
import { crdKeys, crdProblems } from './crd-checks.js';
import { objectMetadataError } from './object-checks.js';
import { operatorHubProblems, type OperatorHubOptions } from './operatorhub-checks.js';
import { problem, type BundleContentProblem } from './problem.js';
import { gvkOf, gvkText, isObj, obj, str, type Obj } from './go-values.js';

export const OPERATORHUB_VALIDATOR = 'operatorhub';
export const BUNDLE_OBJECTS_VALIDATOR = 'bundle-objects';

export interface ContentLogLine {
  level: 'debug' | 'info' | 'warning';
  message: string;
}

export interface BundleContentOptions {
  /** `-o` values, each a comma-separated list (operatorhub, bundle-objects). */
  optionalValidators?: string[];
  /** Folder named in messages instead of `manifestsDir` (where opm unpacked). */
  shownDir?: string;
  operatorHub?: OperatorHubOptions;
}

export interface BundleContent {
  /** Every finding, errors and warnings, in the order opm's validators make them. */
  problems: BundleContentProblem[];
  /** opm's debug and warning lines, in order. */
  log: ContentLogLine[];
}

/** The validators `-o` names: each value split at commas, trimmed. */
export function optionalValidatorSet(values: readonly string[]): Set<string> {
  return new Set(values.flatMap((v) => v.split(',').map((k) => k.trim())));
}

/** Decode a manifest as Kubernetes' YAML-or-JSON decoder into an unstructured object. */
function decodeManifest(text: string): Obj | string {
  let value: unknown;
  try {
    const doc = decodeFirstDocument(text);
    if (!('value' in doc)) return 'EOF';
    value = doc.value;
  } catch (e) {
    return `error converting YAML to JSON: yaml: ${e instanceof Error ? e.message : String(e)}`;
  }
  if (!isObj(value)) return `Object 'Kind' is missing in '${String(JSON.stringify(value))}'`;
  if (str(value, 'kind') === '') return `Object 'Kind' is missing in '${JSON.stringify(value)}'`;
  return value;
}

/** The checks of opm's bundle validator: owned CRDs in the bundle, the CSV's version and release. */
function bundleValidatorProblems(csvName: string, objects: Obj[]): BundleContentProblem[] {
  const csv = objects.find((o) => str(o, 'kind') === 'ClusterServiceVersion');
  // opm's validator crashes here (a nil CSV); a bundle without one (a plain bundle) has nothing to check.
  if (csv === undefined) return [];
  const out: BundleContentProblem[] = [];
  const present = new Set<string>();
  for (const o of objects) {
    if (str(o, 'kind') !== 'CustomResourceDefinition') continue;
    const v = gvkOf(o).version;
    if (v !== 'v1' && v !== 'v1beta1') continue;
    for (const k of crdKeys(o)) present.add(`${k.name}\u0000${k.version}\u0000${k.kind}`);
  }
  const spec = obj(csv, 'spec');
  for (const owned of Array.isArray(obj(spec, 'customresourcedefinitions')?.owned)
    ? (obj(spec, 'customresourcedefinitions')?.owned as unknown[])
    : []) {
    const k = {
      name: str(owned, 'name'),
      version: str(owned, 'version'),
      kind: str(owned, 'kind'),
      group: str(owned, 'group'),
    };
    if (present.has(`${k.name}\u0000${k.version}\u0000${k.kind}`)) continue;
    const key = k.name === '' ? `${k.group}/${k.version} ${k.kind}` : `${k.name}/${k.version}`;
    out.push(
      problem(
        'Error',
        `owned CRD ${key} not found in bundle "${csvName}"`,
        '',
        `{${k.group} ${k.kind} ${k.name} ${k.version}}`,
      ),
    );
  }
  const version = spec?.version;
  if (version !== undefined && version !== null && typeof version !== 'string') {
    const kind =
      typeof version === 'number'
        ? 'number'
        : typeof version === 'boolean'
          ? 'bool'
          : Array.isArray(version)
            ? 'array'
            : 'object';
    out.push(
      problem(
        'Error',
        'error getting bundle CSV version',
        '',
        `json: cannot unmarshal ${kind} into Go value of type string`,
      ),
    );
    return out;
  }
  const release = spec?.release;
  let releaseText = '';
  if (typeof release === 'string') releaseText = release;
  else if (typeof release === 'number')
    releaseText = Number.isInteger(release) ? String(release) : String(release);
  else if (release !== undefined && release !== null) {
    out.push(
      problem(
        'Error',
        'error getting bundle CSV release version',
        '',
        'release field must be a string or number',
      ),
    );
    return out;
  }
  const substitutesFor = obj(obj(csv, 'metadata'), 'annotations')?.['olm.substitutesFor'];
  if (releaseText !== '' && typeof substitutesFor === 'string' && substitutesFor !== '')
    out.push(
      problem(
        'Error',
        `bundle "${csvName}" cannot have both a release version ("${releaseText}") and olm.substitutesFor annotation ("${substitutesFor}")`,
        '',
        '{   }',
      ),
    );
  return out;
}

/**
 * Check the manifests in `manifestsDir` (absolute) as opm's content validation does. A Helm bundle
 * is not checked.
 */
export async function checkBundleContent(
  manifestsDir: string,
  o: BundleContentOptions = {},
): Promise<BundleContent> {
  const problems: BundleContentProblem[] = [];
  const log: ContentLogLine[] = [{ level: 'debug', message: 'Validating bundle contents' }];
  const shownDir = o.shownDir ?? manifestsDir;
  let mediaType = '';
  try {
    mediaType = await detectMediaType(manifestsDir, shownDir);
  } catch (err) {
    if (!(err instanceof OpmError)) throw err;
    problems.push({ plain: err.message });
  }
  if (mediaType === 'helm') return { problems, log };

  let entries: string[] = [];
  try {
    entries = (await readdir(manifestsDir)).sort(compareUtf8);
  } catch (err) {
    problems.push({ plain: err instanceof Error ? err.message : String(err) });
  }
  const objects: Obj[] = [];
  let csvName = '';
  let typedCsv: Obj = {};
  for (const name of entries) {
    const shown = path.join(shownDir, name);
    let text: string;
    try {
      text = await readFile(path.join(manifestsDir, name), 'utf8');
    } catch {
      problems.push({ plain: `Unable to read file ${shown} in supported types`, file: name });
      continue;
    }
    const decoded = decodeManifest(text);
    if (typeof decoded === 'string') {
      problems.push({ plain: decoded, file: name });
      continue;
    }
    objects.push(decoded);
    const gvk = gvkOf(decoded);
    log.push({ level: 'debug', message: `Validating "${gvkText(gvk)}" from file "${name}"` });
    if (mediaType === 'registry+v1' && !SUPPORTED_KINDS.has(gvk.kind)) {
      problems.push({
        plain: `${gvk.kind} is not supported type for registryV1 bundle: ${shown}`,
        file: name,
      });
      continue;
    }
    const withFile = <T extends object>(p: T): T & { file: string } => ({ ...p, file: name });
    if (gvk.kind === 'ClusterServiceVersion') {
      const bad = csvConversionError(decoded);
      if (bad !== undefined) {
        problems.push({ plain: bad, file: name });
        continue;
      }
      csvName = str(obj(decoded, 'metadata'), 'name');
      typedCsv = decoded;
      problems.push(...csvProblems(decoded).map(withFile));
    } else if (gvk.kind === 'CustomResourceDefinition') {
      const gv = gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
      if (gv === 'apiextensions.k8s.io/v1') problems.push(...crdProblems(decoded, false).map(withFile));
      else if (gv === 'apiextensions.k8s.io/v1beta1') {
        log.push({
          level: 'warning',
          message:
            'GroupVersionKind apiextensions.k8s.io/v1beta1, Kind=CustomResourceDefinition was deprecated in Kubernetes 1.16+, removed in 1.22. Support' +
            'for apiextensions.k8s.io/v1beta1 CustomResourceDefinitions will be removed in the future in favor of apiextensions.k8s.io/v1 CustomResourceDefinitions.',
        });
        problems.push(...crdProblems(decoded, true).map(withFile));
      } else problems.push({ plain: `Unsupported api version of CRD: ${gv}`, file: name });
    } else {
      const bad = objectMetadataError(decoded);
      if (bad !== undefined) problems.push({ plain: bad, file: name });
    }
  }
  if (objects.length > 0) problems.push(...bundleValidatorProblems(csvName, objects));

  const optional = optionalValidatorSet(o.optionalValidators ?? []);
  if (optional.has(OPERATORHUB_VALIDATOR)) {
    log.push({ level: 'debug', message: 'Performing operatorhub validation' });
    problems.push(...operatorHubProblems(typedCsv, o.operatorHub));
  }
  if (optional.has(BUNDLE_OBJECTS_VALIDATOR)) {
    // opm hands the objects to this validator as one list, which it does not look into: no findings.
    log.push({ level: 'debug', message: 'Performing bundle objects validation' });
  }
  return { problems, log };
}
