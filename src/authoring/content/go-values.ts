/** Small helpers to read decoded manifests as opm's typed Go structs see them. */

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A string field; '' when absent or not a string (Go's zero value). */
export function str(o: unknown, key: string): string {
  if (!isObj(o)) return '';
  const v = o[key];
  return typeof v === 'string' ? v : '';
}

export function obj(o: unknown, key: string): Obj | undefined {
  if (!isObj(o)) return undefined;
  const v = o[key];
  return isObj(v) ? v : undefined;
}

export function list(o: unknown, key: string): unknown[] {
  if (!isObj(o)) return [];
  const v = o[key];
  return Array.isArray(v) ? v : [];
}

/** Whether a value is Go's zero value once decoded into a typed field (absent, empty, false, 0). */
export function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === false || v === 0) return true;
  if (Array.isArray(v)) return false;
  if (isObj(v)) return Object.values(v).every(isZero);
  return false;
}

/** Kubernetes' GroupVersionKind.String(): `group/version, Kind=kind`. */
export function gvkText(g: { group: string; version: string; kind: string }): string {
  return `${g.group}/${g.version}, Kind=${g.kind}`;
}

/** The group, version and kind of an object, as Kubernetes splits its apiVersion. */
export function gvkOf(o: unknown): { group: string; version: string; kind: string } {
  const apiVersion = str(o, 'apiVersion');
  const kind = str(o, 'kind');
  const slash = apiVersion.indexOf('/');
  if (slash === -1) return { group: '', version: apiVersion, kind };
  if (apiVersion.indexOf('/', slash + 1) !== -1) return { group: '', version: '', kind };
  return { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind };
}
