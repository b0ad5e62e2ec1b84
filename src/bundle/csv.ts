/**
 * Accessors on a decoded ClusterServiceVersion, with the zero-value and type rules of the Go
 * types opm decodes it into.
 */
import {
  asArray,
  asObject,
  asString,
  field,
  GoTypeError,
  unmarshalValueError,
  type Obj,
} from '../go/json-decode.js';

export interface Gvk {
  group: string;
  version: string;
  kind: string;
}

export interface CrdRef extends Gvk {
  /** `<plural>.<group>` */
  name: string;
}

function spec(csv: Obj): Obj {
  return asObject(field(csv, 'spec'), 'ClusterServiceVersion.spec', 'ClusterServiceVersionSpec');
}

function metadata(csv: Obj): Obj {
  return asObject(field(csv, 'metadata'), 'ClusterServiceVersion.metadata', 'ObjectMeta');
}

export function csvName(csv: Obj): string {
  return asString(field(metadata(csv), 'name'), 'ClusterServiceVersion.metadata.name');
}

export function csvAnnotations(csv: Obj): Obj {
  return asObject(
    field(metadata(csv), 'annotations'),
    'ClusterServiceVersion.metadata.annotations',
    'map[string]string',
  );
}

/** `spec.version`, verbatim; it must be a string when present. */
export function csvVersion(csv: Obj): string {
  const v = field(spec(csv), 'version');
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  throw new GoTypeError(`spec.version: ${unmarshalValueError(v, 'string')}`);
}

/** `spec.release`: a string, or a number printed as an integer when integral, else as Go's %g. */
export function csvRelease(csv: Obj): string {
  const v = field(spec(csv), 'release');
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v).toString() : formatGoG(v);
  throw new GoTypeError('release field must be a string or number');
}

/** Go's %g for a non-integral float64: shortest digits, exponent form below 1e-4. */
function formatGoG(n: number): string {
  const exp = Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4) {
    const [mant, e] = n.toExponential().split('e');
    const ev = Number(e);
    const sign = ev < 0 ? '-' : '+';
    return `${mant}e${sign}${String(Math.abs(ev)).padStart(2, '0')}`;
  }
  return String(n);
}

function crdDefs(csv: Obj): Obj {
  return asObject(
    field(spec(csv), 'customresourcedefinitions'),
    'spec.customresourcedefinitions',
    'CustomResourceDefinitions',
  );
}

function apiDefs(csv: Obj): Obj {
  return asObject(
    field(spec(csv), 'apiservicedefinitions'),
    'spec.apiservicedefinitions',
    'APIServiceDefinitions',
  );
}

function crdList(defs: Obj, which: 'owned' | 'required'): CrdRef[] {
  const where = `spec.customresourcedefinitions.${which}`;
  return asArray(field(defs, which), where, '[]CRDDescription').map((e) => {
    const o = asObject(e, where, 'CRDDescription');
    return {
      name: asString(field(o, 'name'), `${where}.name`),
      version: asString(field(o, 'version'), `${where}.version`),
      kind: asString(field(o, 'kind'), `${where}.kind`),
      group: '',
    };
  });
}

/** An API service of the CSV; `name` is its plural, as opm stores it in the `api` table. */
export interface ApiServiceRef extends Gvk {
  name: string;
}

function apiList(defs: Obj, which: 'owned' | 'required'): ApiServiceRef[] {
  const where = `spec.apiservicedefinitions.${which}`;
  return asArray(field(defs, which), where, '[]APIServiceDescription').map((e) => {
    const o = asObject(e, where, 'APIServiceDescription');
    return {
      name: asString(field(o, 'name'), `${where}.name`),
      group: asString(field(o, 'group'), `${where}.group`),
      version: asString(field(o, 'version'), `${where}.version`),
      kind: asString(field(o, 'kind'), `${where}.kind`),
    };
  });
}

/** Split a CRD name `<plural>.<group>`; undefined when it has no dot. */
export function splitCrdName(name: string): { plural: string; group: string } | undefined {
  const i = name.indexOf('.');
  if (i < 0) return undefined;
  return { plural: name.slice(0, i), group: name.slice(i + 1) };
}

export function ownedCrds(csv: Obj): CrdRef[] {
  return crdList(crdDefs(csv), 'owned');
}

export function requiredCrds(csv: Obj): CrdRef[] {
  return crdList(crdDefs(csv), 'required');
}

export function ownedApiServices(csv: Obj): ApiServiceRef[] {
  return apiList(apiDefs(csv), 'owned');
}

export function requiredApiServices(csv: Obj): ApiServiceRef[] {
  return apiList(apiDefs(csv), 'required');
}

export interface CsvRelatedImage {
  name: string;
  image: string;
}

export function csvRelatedImages(csv: Obj): CsvRelatedImage[] {
  const where = 'spec.relatedImages';
  return asArray(field(spec(csv), 'relatedImages'), where, '[]RelatedImage').map((e) => {
    const o = asObject(e, where, 'RelatedImage');
    return {
      name: asString(field(o, 'name'), `${where}.name`),
      image: asString(field(o, 'image'), `${where}.image`),
    };
  });
}

/**
 * Images of the containers and init containers of the install deployments, in order (with
 * repeats), when the install strategy is `deployment`.
 */
export function operatorImages(csv: Obj): string[] {
  const install = asObject(field(spec(csv), 'install'), 'spec.install', 'NamedInstallStrategy');
  if (asString(field(install, 'strategy'), 'spec.install.strategy') !== 'deployment') return [];
  const strategySpec = asObject(field(install, 'spec'), 'spec.install.spec', 'StrategyDetailsDeployment');
  const where = 'spec.install.spec.deployments';
  const out: string[] = [];
  for (const d of asArray(field(strategySpec, 'deployments'), where, '[]StrategyDeploymentSpec')) {
    const dep = asObject(d, where, 'StrategyDeploymentSpec');
    const depSpec = asObject(field(dep, 'spec'), `${where}.spec`, 'DeploymentSpec');
    const template = asObject(field(depSpec, 'template'), `${where}.spec.template`, 'PodTemplateSpec');
    const podSpec = asObject(field(template, 'spec'), `${where}.spec.template.spec`, 'PodSpec');
    for (const list of ['initContainers', 'containers'] as const) {
      const lw = `${where}.spec.template.spec.${list}`;
      for (const c of asArray(field(podSpec, list), lw, '[]Container')) {
        out.push(asString(field(asObject(c, lw, 'Container'), 'image'), `${lw}.image`));
      }
    }
  }
  return out;
}
