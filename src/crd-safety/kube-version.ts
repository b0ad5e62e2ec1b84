/**
 * Kubernetes' order of API version names (apimachinery's CompareKubeAwareVersionStrings): names
 * like v1, v2beta1, v1alpha3 rank GA over beta over alpha, then by major and minor number; any
 * other name ranks below them all. Negative when `a` ranks lower than `b`.
 */
const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

function parse(v: string): [number, number, number] | undefined {
  const m = KUBE_VERSION.exec(v);
  if (m === null) return undefined;
  const kind = m[2] === 'alpha' ? 0 : m[2] === 'beta' ? 1 : 2;
  return [kind, Number(m[1]), m[3] === undefined ? 0 : Number(m[3])];
}

export function compareKubeVersions(a: string, b: string): number {
  if (a === b) return 0;
  const x = parse(a);
  const y = parse(b);
  if (x === undefined && y === undefined) return a < b ? 1 : -1; // other names: reverse byte order
  if (x === undefined) return -1;
  if (y === undefined) return 1;
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}
