/**
 * The checks operator-framework/api's CSV validator makes of a ClusterServiceVersion, as
 * `opm alpha bundle validate` runs them: the name and `replaces` as DNS subdomains and label values,
 * the example custom resources against the owned APIs, the install modes, minKubeVersion, required
 * fields, the case of well-known annotations, and apiVersion/kind. In the validator's order and words.
 */
import { goQuote } from '../../go/fmt.js';
import { scanJson, scanJsonValue, type JsonNode } from '../../go/json-scan.js';
import { SemverError } from '../../model/semver.js';
import { csvProblem, problem, type ContentProblem } from './problem.js';
import { dns1123SubdomainErrors, labelValueErrors, parseTolerant, strictVersionError } from './names.js';
import { gvkText, isObj, isZero, list, obj, str, type Obj } from './go-values.js';

const MIN_KUBE_VERSION_WARNING =
  'csv.Spec.minKubeVersion is not informed. It is recommended you provide this information. ' +
  'Otherwise, it would mean that your operator project can be distributed and installed in any cluster version ' +
  'available, which is not necessarily the case for all projects.';

/** Annotations whose keys are case-sensitive, by their lower-case form. */
const CASE_SENSITIVE_KEYS = new Map(
  [
    'olm.operatorGroup',
    'olm.operatorNamespace',
    'olm.targetNamespaces',
    'olm.providedAPIs',
    'olm.skipRange',
  ].map((k) => [k.toLowerCase(), k]),
);

/**
 * What stops the CSV from being read as the typed struct opm converts it to (a `spec.version` that
 * is no version); undefined when it converts. opm reports this text alone and skips the CSV checks.
 */
export function csvConversionError(csv: Obj): string | undefined {
  const v = obj(csv, 'spec')?.version;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') {
    const kind =
      typeof v === 'number'
        ? 'number'
        : typeof v === 'boolean'
          ? 'bool'
          : Array.isArray(v)
            ? 'array'
            : 'object';
    return `json: cannot unmarshal ${kind} into Go value of type string`;
  }
  try {
    parseTolerant(v);
    return undefined;
  } catch (e) {
    if (e instanceof SemverError) return e.message;
    throw e;
  }
}

function nameFormatError(name: string): string | undefined {
  const errs = [...dns1123SubdomainErrors(name), ...labelValueErrors(name)];
  return errs.length === 0 ? undefined : `${goQuote(name)} is invalid: ${errs.join(',')}`;
}

/** Go's json.Valid failure as the validator words it: the text up to the bad byte, marked. */
function jsonProblem(text: string): string | undefined {
  if (text === '') return undefined;
  const r = scanJsonValue(text, 0, 10000);
  let at: number | undefined;
  if (!r.ok) at = r.at;
  else {
    const rest = text.slice(r.end);
    const trailing = /\S/.exec(rest);
    if (trailing !== null) at = r.end + trailing.index;
  }
  if (at === undefined) return undefined;
  const bytes = Buffer.from(text, 'utf8');
  const offset = at >= text.length ? bytes.length : Buffer.byteLength(text.slice(0, at + 1), 'utf8');
  return `invalid character at ${offset}\n ${bytes.subarray(0, offset).toString('utf8')}<--(see the invalid character)`;
}

interface Gvk {
  group: string;
  version: string;
  kind: string;
}
const gvkKey = (g: Gvk): string => `${g.group}\u0000${g.version}\u0000${g.kind}`;

/** The GVKs of the example resources, or the problem decoding them. */
function exampleGvks(text: string): Gvk[] | ContentProblem {
  const root: JsonNode = scanJson(text);
  if (root.kind !== 'array') {
    const what =
      root.kind === 'object'
        ? 'object'
        : typeof (root as { value: unknown }).value === 'string'
          ? 'string'
          : 'number';
    return problem(
      'Error',
      'error decoding example CustomResource',
      '',
      `json: cannot unmarshal ${what} into Go value of type []unstructured.Unstructured`,
    );
  }
  const out: Gvk[] = [];
  for (const item of root.items) {
    const raw = text.slice(item.start, item.end);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
    if (!isObj(value) || str(value, 'kind') === '')
      return problem(
        'Error',
        'error decoding example CustomResource',
        '',
        `Object 'Kind' is missing in '${raw}'`,
      );
    const apiVersion = str(value, 'apiVersion');
    const slash = apiVersion.indexOf('/');
    out.push({
      group: slash === -1 ? '' : apiVersion.slice(0, slash),
      version: slash === -1 ? apiVersion : apiVersion.slice(slash + 1),
      kind: str(value, 'kind'),
    });
  }
  return out;
}

function examplesProblems(csv: Obj, name: string): ContentProblem[] {
  const annotations = obj(obj(csv, 'metadata'), 'annotations') ?? {};
  if (Object.keys(annotations).length === 0) return [csvProblem('Warning', 'annotations not found', name)];
  const alm = annotations['alm-examples'];
  const olm = annotations['olm.examples'];
  const out: ContentProblem[] = [];
  if (alm === undefined && olm === undefined)
    return [csvProblem('Warning', 'example annotations not found', name)];
  if (alm !== undefined && olm !== undefined)
    out.push(
      csvProblem(
        'Warning',
        'both `alm-examples` and `olm.examples` are present. Checking only `alm-examples`',
        name,
      ),
    );
  const text = String(alm ?? olm ?? '');
  const bad = jsonProblem(text);
  if (bad !== undefined) return [...out, problem('Error', 'invalid example', '', bad)];
  const examples = text.trim() === '' ? [] : exampleGvks(text);
  if (!Array.isArray(examples)) return [...out, examples];

  const provided = new Map<string, Gvk>();
  const spec = obj(csv, 'spec');
  for (const owned of list(obj(spec, 'customresourcedefinitions'), 'owned')) {
    const crdName = str(owned, 'name');
    const dot = crdName.indexOf('.');
    if (dot === -1) {
      out.push(problem('Error', `couldn't parse plural.group from crd name: ${crdName}`, '', undefined));
      continue;
    }
    const g = { group: crdName.slice(dot + 1), version: str(owned, 'version'), kind: str(owned, 'kind') };
    provided.set(gvkKey(g), g);
  }
  for (const api of list(obj(spec, 'apiservicedefinitions'), 'owned')) {
    const g = { group: str(api, 'group'), version: str(api, 'version'), kind: str(api, 'kind') };
    provided.set(gvkKey(g), g);
  }
  const seen = new Map(examples.map((g) => [gvkKey(g), g]));
  for (const [k, g] of seen)
    if (!provided.has(k)) out.push(problem('Error', 'example must have a provided API', '', gvkText(g)));
  for (const [k, g] of provided)
    if (!seen.has(k))
      out.push(problem('Warning', 'provided API should have an example annotation', '', gvkText(g)));
  return out;
}

function installModeProblems(csv: Obj, name: string): ContentProblem[] {
  const spec = obj(csv, 'spec');
  const modes = list(spec, 'installModes');
  if (modes.length === 0) return [csvProblem('Error', 'install modes not found', name)];
  const out: ContentProblem[] = [];
  const supported = (m: unknown): boolean => isObj(m) && m.supported === true;
  const anySupported = modes.some(supported);
  for (const hook of list(spec, 'webhookdefinitions')) {
    if (list(hook, 'conversionCRDs').length === 0) continue;
    const onlyAll = modes.every((m) => (str(m, 'type') === 'AllNamespaces' ? supported(m) : !supported(m)));
    if (!onlyAll)
      out.push(
        csvProblem(
          'Error',
          'only AllNamespaces InstallModeType is supported when conversionCRDs is present',
          name,
        ),
      );
  }
  if (!anySupported) out.push(csvProblem('Error', 'none of InstallModeTypes are supported', name));
  return out;
}

function minKubeVersionProblems(csv: Obj, name: string): ContentProblem[] {
  const v = str(obj(csv, 'spec'), 'minKubeVersion');
  if (v.trim() === '') return [csvProblem('Warning', MIN_KUBE_VERSION_WARNING, name)];
  if (strictVersionError(v) !== undefined)
    return [csvProblem('Error', `csv.Spec.MinKubeVersion has an invalid value: ${v}`, name)];
  return [];
}

/** The CSV struct's fields that have no `omitempty`, which the validator requires. */
function requiredFieldProblems(csv: Obj): ContentProblem[] {
  const out: ContentProblem[] = [];
  const missing = (field: string, what: 'struct' | 'field'): void => {
    out.push(problem('Error', 'required field missing', field, what));
  };
  if (isZero(csv.apiVersion) && isZero(csv.kind)) missing('TypeMeta', 'struct');
  if (isZero(csv.metadata)) missing('ObjectMeta', 'struct');
  const spec = csv.spec;
  if (isZero(spec)) {
    missing('Spec', 'struct');
    return out;
  }
  const install = obj(spec, 'install');
  if (isZero(install)) missing('Spec.InstallStrategy', 'struct');
  else {
    if (isZero(install?.strategy)) missing('Spec.InstallStrategy.StrategyName', 'field');
    const strategySpec = install?.spec;
    if (!isZero(strategySpec) && isZero(obj(install, 'spec')?.deployments))
      missing('Spec.InstallStrategy.StrategySpec.DeploymentSpecs', 'field');
  }
  if (isZero(obj(csv, 'spec')?.displayName)) missing('Spec.DisplayName', 'field');
  return out;
}

function annotationNameProblems(csv: Obj, name: string): ContentProblem[] {
  const out: ContentProblem[] = [];
  for (const key of Object.keys(obj(obj(csv, 'metadata'), 'annotations') ?? {})) {
    const known = CASE_SENSITIVE_KEYS.get(key.toLowerCase());
    if (known !== undefined && known !== key)
      out.push(
        problem(
          'Error',
          `provided annotation ${key} uses wrong case and should be ${known} instead`,
          '',
          name,
        ),
      );
    if (key === 'olm.properties')
      out.push(
        problem(
          'Warning',
          `found ${key} annotation, please define these properties in metadata/properties.yaml instead`,
          '',
          '',
        ),
      );
  }
  return out;
}

/** Every problem the CSV validator finds in `csv` (which converts: see csvConversionError). */
export function csvProblems(csv: Obj): ContentProblem[] {
  const name = str(obj(csv, 'metadata'), 'name');
  const out: ContentProblem[] = [];
  const badName = nameFormatError(name);
  if (badName !== undefined) out.push(csvProblem('Error', `metadata.name ${badName}`, name));
  const replaces = str(obj(csv, 'spec'), 'replaces');
  if (replaces !== '') {
    const bad = nameFormatError(replaces);
    if (bad !== undefined) out.push(csvProblem('Error', `spec.replaces ${bad}`, name));
  }
  out.push(...examplesProblems(csv, name));
  out.push(...installModeProblems(csv, name));
  out.push(...minKubeVersionProblems(csv, name));
  out.push(...requiredFieldProblems(csv));
  out.push(...annotationNameProblems(csv, name));
  if (str(csv, 'apiVersion').split('/').pop() === '' || str(csv, 'apiVersion') === '')
    out.push(csvProblem('Error', "'apiVersion' is missing", name));
  if (str(csv, 'kind') === '') out.push(csvProblem('Error', "'kind' is missing", name));
  return out;
}
