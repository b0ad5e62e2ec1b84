/**
 * The checks operator-framework/api's CRD validator makes of a CustomResourceDefinition: Kubernetes'
 * own CRD validation, less what concerns the OpenAPI schema or the status (which the validator leaves
 * out). The structural checks opm's bundles trip over are made here (name, group, scope, versions,
 * names), each in Kubernetes' words inside the validator's.
 */
import { goQuote } from '../../go/fmt.js';
import { problem, type ContentProblem } from './problem.js';
import { dns1035LabelErrors, dns1123SubdomainErrors } from './names.js';
import { isObj, list, obj, str, type Obj } from './go-values.js';

/** One Kubernetes field error: where, what kind, the bad value (as Go prints it, twice), detail. */
interface FieldError {
  field: string;
  type: 'Required value' | 'Invalid value' | 'Unsupported value' | 'Duplicate value' | 'Forbidden';
  /** The value's `%v` text (the validator's) and its text inside Kubernetes' message. */
  value: { plain: string; inner: string };
  detail: string;
}

const strValue = (s: string): FieldError['value'] => ({ plain: s, inner: goQuote(s) });

function fieldErrorText(e: FieldError): string {
  let s = e.type === 'Required value' || e.type === 'Forbidden' ? e.type : `${e.type}: ${e.value.inner}`;
  if (e.detail !== '') s += `: ${e.detail}`;
  return `${e.field}: ${s}`;
}

/** A CRD version as Kubernetes' internal type holds it after conversion. */
interface InternalVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning: boolean;
  /** Whether the version keeps its own schema, subresources, columns (they differ between versions). */
  ownSchema: boolean;
  ownSubresources: boolean;
  ownColumns: boolean;
  selectableFields: boolean;
}

/** Stand-in for a pointer Go would print as an address. */
const POINTER = '0xc000000000';

function versionsValue(versions: InternalVersion[]): FieldError['value'] {
  if (versions.length === 0) return { plain: '[]', inner: 'null' };
  const plain = versions
    .map(
      (v) =>
        `{${v.name} ${v.served} ${v.storage} ${v.deprecated} ${v.deprecationWarning ? POINTER : '<nil>'} ${
          v.ownSchema ? POINTER : '<nil>'
        } ${v.ownSubresources ? POINTER : '<nil>'} [${v.ownColumns ? '…' : ''}] [${v.selectableFields ? '…' : ''}]}`,
    )
    .join(' ');
  const inner = versions
    .map(
      (v) =>
        `{"Name":${JSON.stringify(v.name)},"Served":${v.served},"Storage":${v.storage},"Deprecated":${v.deprecated},` +
        `"DeprecationWarning":${v.deprecationWarning ? '"…"' : 'null'},"Schema":${v.ownSchema ? '{…}' : 'null'},` +
        `"Subresources":${v.ownSubresources ? '{…}' : 'null'},"AdditionalPrinterColumns":${v.ownColumns ? '[…]' : 'null'},` +
        `"SelectableFields":${v.selectableFields ? '[…]' : 'null'}}`,
    )
    .join(',');
  return { plain: `[${plain}]`, inner: `[${inner}]` };
}

/** Whether every version holds the same value under `key` (then it moves to the spec). */
function allSame(versions: unknown[], key: string): boolean {
  const texts = versions.map((v) => String(JSON.stringify(isObj(v) ? v[key] : undefined)));
  return texts.every((t) => t === texts[0]);
}

function internalVersions(crd: Obj, beta: boolean): InternalVersion[] {
  const spec = obj(crd, 'spec');
  let raw = list(spec, 'versions');
  if (beta && raw.length === 0 && str(spec, 'version') !== '')
    raw = [{ name: str(spec, 'version'), served: true, storage: true }];
  const sameSchema = allSame(raw, beta ? 'schema' : 'schema');
  const sameSub = allSame(raw, 'subresources');
  const sameCols = allSame(raw, 'additionalPrinterColumns');
  return raw.map((v) => ({
    name: str(v, 'name'),
    served: isObj(v) && v.served === true,
    storage: isObj(v) && v.storage === true,
    deprecated: isObj(v) && v.deprecated === true,
    deprecationWarning: isObj(v) && typeof v.deprecationWarning === 'string',
    ownSchema: !sameSchema && isObj(v) && v.schema != null,
    ownSubresources: !sameSub && isObj(v) && v.subresources != null,
    ownColumns: !sameCols && list(v, 'additionalPrinterColumns').length > 0,
    selectableFields: list(v, 'selectableFields').length > 0,
  }));
}

function nameErrors(names: Obj | undefined): FieldError[] {
  const out: FieldError[] = [];
  const plural = str(names, 'plural');
  const singular = str(names, 'singular');
  const kind = str(names, 'kind');
  const listKind = str(names, 'listKind') || (kind === '' ? '' : `${kind}List`);
  const at = (k: string): string => `spec.names.${k}`;
  const label = (k: string, v: string, prefix = ''): void => {
    const errs = dns1035LabelErrors(prefix === '' ? v : v.toLowerCase());
    if (v !== '' && errs.length > 0)
      out.push({ field: at(k), type: 'Invalid value', value: strValue(v), detail: prefix + errs.join(',') });
  };
  label('plural', plural);
  label('singular', singular || kind.toLowerCase());
  label('kind', kind, 'may have mixed case, but should otherwise match: ');
  label('listKind', listKind, 'may have mixed case, but should otherwise match: ');
  list(names, 'shortNames').forEach((s, i) => {
    const v = typeof s === 'string' ? s : '';
    const errs = dns1035LabelErrors(v);
    if (errs.length > 0)
      out.push({
        field: `${at('shortNames')}[${i}]`,
        type: 'Invalid value',
        value: strValue(v),
        detail: errs.join(','),
      });
  });
  if (kind !== '' && kind === listKind)
    out.push({
      field: at('listKind'),
      type: 'Invalid value',
      value: strValue(listKind),
      detail: 'kind and listKind may not be the same',
    });
  list(names, 'categories').forEach((c, i) => {
    const v = typeof c === 'string' ? c : '';
    const errs = dns1035LabelErrors(v);
    if (errs.length > 0)
      out.push({
        field: `${at('categories')}[${i}]`,
        type: 'Invalid value',
        value: strValue(v),
        detail: errs.join(','),
      });
  });
  return out;
}

/** Kubernetes' CRD validation (the part made here), for a v1 or v1beta1 CRD, with its defaults. */
function crdFieldErrors(crd: Obj, beta: boolean): FieldError[] {
  const out: FieldError[] = [];
  const meta = obj(crd, 'metadata');
  const spec = obj(crd, 'spec');
  const names = obj(spec, 'names');
  const group = str(spec, 'group');
  const plural = str(names, 'plural');
  const name = str(meta, 'name');
  if (name === '' && str(meta, 'generateName') === '')
    out.push({
      field: 'metadata.name',
      type: 'Required value',
      value: strValue(''),
      detail: 'name or generateName is required',
    });
  else if (name !== '') {
    const msgs = [...dns1123SubdomainErrors(name)];
    if (name !== `${plural}.${group}`) msgs.push('must be spec.names.plural+"."+spec.group');
    for (const m of msgs)
      out.push({ field: 'metadata.name', type: 'Invalid value', value: strValue(name), detail: m });
  }

  if (group === '')
    out.push({ field: 'spec.group', type: 'Required value', value: strValue(''), detail: '' });
  else {
    const errs = dns1123SubdomainErrors(group);
    if (errs.length > 0)
      out.push({
        field: 'spec.group',
        type: 'Invalid value',
        value: strValue(group),
        detail: errs.join(','),
      });
    else if (!group.includes('.'))
      out.push({
        field: 'spec.group',
        type: 'Invalid value',
        value: strValue(group),
        detail: 'should be a domain with at least one dot',
      });
  }

  const scope = str(spec, 'scope') || (beta ? 'Namespaced' : '');
  if (scope === '')
    out.push({ field: 'spec.scope', type: 'Required value', value: strValue(''), detail: '' });
  else if (scope !== 'Cluster' && scope !== 'Namespaced')
    out.push({
      field: 'spec.scope',
      type: 'Unsupported value',
      value: strValue(scope),
      detail: 'supported values: "Cluster", "Namespaced"',
    });

  const versions = internalVersions(crd, beta);
  const seen = new Set<string>();
  let unique = true;
  for (const [i, v] of versions.entries()) {
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const errs = dns1035LabelErrors(v.name);
    if (errs.length > 0)
      out.push({
        field: `spec.versions[${i}].name`,
        type: 'Invalid value',
        value: strValue(v.name),
        detail: errs.join(','),
      });
  }
  if (!unique)
    out.push({
      field: 'spec.versions',
      type: 'Invalid value',
      value: versionsValue(versions),
      detail: 'must contain unique version names',
    });
  if (versions.filter((v) => v.storage).length !== 1)
    out.push({
      field: 'spec.versions',
      type: 'Invalid value',
      value: versionsValue(versions),
      detail: 'must have exactly one version marked as storage version',
    });
  const specVersion = beta ? str(spec, 'version') || (versions[0]?.name ?? '') : (versions[0]?.name ?? '');
  if (specVersion !== '') {
    const errs = dns1035LabelErrors(specVersion);
    if (errs.length > 0)
      out.push({
        field: 'spec.version',
        type: 'Invalid value',
        value: strValue(specVersion),
        detail: errs.join(','),
      });
    if (versions.length >= 1 && versions[0]?.name !== specVersion)
      out.push({
        field: 'spec.version',
        type: 'Invalid value',
        value: strValue(specVersion),
        detail: 'must match the first version in spec.versions',
      });
  }
  for (const k of ['plural', 'singular', 'kind', 'listKind'] as const) {
    const v =
      str(names, k) ||
      (k === 'singular'
        ? str(names, 'kind').toLowerCase()
        : k === 'listKind' && str(names, 'kind') !== ''
          ? `${str(names, 'kind')}List`
          : '');
    if (v === '')
      out.push({ field: `spec.names.${k}`, type: 'Required value', value: strValue(''), detail: '' });
  }
  out.push(...nameErrors(names));
  return out;
}

/** The problems of a CRD of apiVersion apiextensions.k8s.io/v1 (`beta` false) or v1beta1. */
export function crdProblems(crd: Obj, beta: boolean): ContentProblem[] {
  return crdFieldErrors(crd, beta)
    .filter((e) => !e.field.includes('openAPIV3Schema') && !e.field.includes('status'))
    .map((e) => problem('Error', fieldErrorText(e), e.field, e.value.plain));
}

/** The keys (name/version, kind) a CRD provides, as opm's bundle validator lists them. */
export function crdKeys(crd: Obj): Array<{ name: string; version: string; kind: string }> {
  const name = str(obj(crd, 'metadata'), 'name');
  const spec = obj(crd, 'spec');
  const kind = str(obj(spec, 'names'), 'kind');
  const version = str(spec, 'version');
  const apiVersion = str(crd, 'apiVersion');
  if (apiVersion.endsWith('/v1beta1') && version !== '') return [{ name, version, kind }];
  return list(spec, 'versions').map((v) => ({ name, version: str(v, 'name'), kind }));
}
