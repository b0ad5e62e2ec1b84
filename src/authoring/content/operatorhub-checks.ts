/**
 * The checks of `-o operatorhub` (operator-framework/api's deprecated OperatorHub validator) on the
 * bundle's CSV: provider, maintainers, links, capabilities and categories annotations, version,
 * icon, minKubeVersion. In the validator's order and words. The custom categories file of
 * OPERATOR_BUNDLE_CATEGORIES is read when `categories` gives its text.
 */
import { goQuote } from '../../go/fmt.js';
import { csvProblem, type ContentProblem } from './problem.js';
import { parseTolerant, strictVersionError } from './names.js';
import { isObj, list, obj, str, type Obj } from './go-values.js';

const CAPABILITIES = new Set([
  'Basic Install',
  'Seamless Upgrades',
  'Full Lifecycle',
  'Deep Insights',
  'Auto Pilot',
]);
const CATEGORIES = new Set([
  'AI/Machine Learning',
  'Application Runtime',
  'Big Data',
  'Cloud Provider',
  'Developer Tools',
  'Database',
  'Integration & Delivery',
  'Logging & Tracing',
  'Monitoring',
  'Modernization & Migration',
  'Networking',
  'OpenShift Optional',
  'Security',
  'Storage',
  'Streaming & Messaging',
  'Observability',
]);
const ICON_TYPES = new Set(['image/gif', 'image/jpeg', 'image/png', 'image/svg+xml']);
const MIN_KUBE_VERSION_WARNING =
  'csv.Spec.minKubeVersion is not informed. It is recommended you provide this information. ' +
  'Otherwise, it would mean that your operator project can be distributed and installed in any cluster version ' +
  'available, which is not necessarily the case for all projects.';

/** Go net/mail's ParseAddress failure for the usual mistakes, or undefined. */
function mailError(address: string): string | undefined {
  const a = address.trim();
  if (a === '') return 'mail: no address';
  if (a.includes('<')) return a.includes('>') && a.includes('@') ? undefined : 'mail: missing @ in addr-spec';
  if (!a.includes('@')) return "mail: missing '@' or angle-addr";
  if (/\s/.test(a)) return 'mail: no angle-addr';
  return undefined;
}

/** Go url.ParseRequestURI's failure, for the usual mistakes, or undefined. */
function requestUriError(u: string): string | undefined {
  if (u.startsWith('/')) return undefined;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(u)) return undefined;
  return `parse ${goQuote(u)}: invalid URI for request`;
}

export interface OperatorHubOptions {
  /** The custom categories (OPERATOR_BUNDLE_CATEGORIES' file, read), or the problem reading it. */
  customCategories?: { categories: Set<string> } | { error: string };
}

/** The problems the OperatorHub validator finds in `csv` (an empty object when the bundle has none). */
export function operatorHubProblems(csv: Obj, o: OperatorHubOptions = {}): ContentProblem[] {
  const name = str(obj(csv, 'metadata'), 'name');
  const spec = obj(csv, 'spec');
  const annotations = obj(obj(csv, 'metadata'), 'annotations') ?? {};
  const errs: string[] = [];
  const warns: string[] = [];
  if (str(obj(spec, 'provider'), 'name').trim() === '') errs.push('csv.Spec.Provider.Name not specified');
  for (const m of list(spec, 'maintainers')) {
    if (str(m, 'name') === '' || str(m, 'email') === '')
      errs.push('csv.Spec.Maintainers elements should contain both name and email');
    const email = str(m, 'email');
    const bad = email === '' ? undefined : mailError(email);
    if (bad !== undefined) errs.push(`csv.Spec.Maintainers email ${email} is invalid: ${bad}`);
  }
  for (const l of list(spec, 'links')) {
    if (str(l, 'name') === '' || str(l, 'url') === '')
      errs.push('csv.Spec.Links elements should contain both name and url');
    const url = str(l, 'url');
    const bad = url === '' ? undefined : requestUriError(url);
    if (bad !== undefined) errs.push(`csv.Spec.Links url ${url} is invalid: ${bad}`);
  }
  const capability = annotations.capabilities;
  if (typeof capability === 'string' && !CAPABILITIES.has(capability))
    errs.push(
      `csv.Metadata.Annotations.Capabilities ${goQuote(capability)} is not a valid capabilities level`,
    );
  const categories = annotations.categories;
  if (typeof categories === 'string') {
    const custom = o.customCategories;
    if (custom !== undefined && 'error' in custom)
      errs.push(
        `could not extract custom categories from categories map[string]struct {}(nil): ${custom.error}`,
      );
    else
      for (const c of categories.split(',')) {
        const set = custom?.categories ?? CATEGORIES;
        if (!set.has(c.trim()))
          errs.push(
            `csv.Metadata.Annotations["categories"] value ${goQuote(c)} is not in the set of ${custom === undefined ? 'standard' : 'custom'} categories`,
          );
      }
  }
  const version = spec?.version;
  let zero = typeof version !== 'string';
  if (typeof version === 'string') {
    try {
      const v = parseTolerant(version);
      zero = v.major === 0n && v.minor === 0n && v.patch === 0n && v.pre.length === 0 && v.build.length === 0;
    } catch {
      zero = true;
    }
  }
  if (zero) errs.push('csv.Spec.Version must be set');
  const icons = spec?.icon;
  if (Array.isArray(icons)) {
    if (icons.length !== 1) errs.push('csv.Spec.Icon should only have one element');
    const icon: unknown = icons[0];
    if (str(icon, 'mediatype') === '' || str(icon, 'base64data') === '')
      errs.push('csv.Spec.Icon elements should contain both data and mediatype');
    const mt = str(icon, 'mediatype');
    if (mt !== '' && !ICON_TYPES.has(mt)) errs.push(`csv.Spec.Icon ${mt} does not have a valid mediatype`);
  } else warns.push('csv.Spec.Icon not specified');
  const minKube = str(spec, 'minKubeVersion');
  if (minKube.trim() === '') warns.push(MIN_KUBE_VERSION_WARNING);
  else if (strictVersionError(minKube) !== undefined)
    errs.push(`csv.Spec.MinKubeVersion has an invalid value: ${minKube}`);
  return [
    ...errs.map((e) => csvProblem('Error', e, name)),
    ...warns.map((w) => csvProblem('Warning', w, name)),
  ];
}

/** Read a custom categories file's text (`{"categories": [...]}`). */
export function parseCustomCategories(text: string): { categories: Set<string> } | { error: string } {
  try {
    const doc: unknown = JSON.parse(text);
    const list = isObj(doc) && Array.isArray(doc.categories) ? doc.categories : [];
    return { categories: new Set(list.filter((c): c is string => typeof c === 'string')) };
  } catch (e) {
    return { error: `unmarshaling category file: ${e instanceof Error ? e.message : String(e)}` };
  }
}
