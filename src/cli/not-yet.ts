import { OpmError } from '../errors.js';

/** A clear error for a capability that is not built yet. */
export function notYet(what: string): never {
  throw new OpmError(`${what} is not supported yet by this version of opm-ts`, { code: 'E_NOT_SUPPORTED' });
}
