/**
 * CRD upgrade safety as library functions: whether upgrading from one bundle's
 * CustomResourceDefinitions to another's passes OLM v1's preflight and OLM v0's rules.
 */
export {
  compareCrds,
  isCrd,
  isV1Crd,
  problemLine,
  type Check,
  type CrdCheck,
  type CrdProblem,
  type CrdSetCheck,
} from './compare.js';
export type { PropertyCheck } from './property-checks.js';
export { compareCrdSets, crdOfBundleObject, crdSetOf, type CrdSet } from './bundle-crds.js';
