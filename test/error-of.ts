import { OpmError } from '../src/errors.js';

/** The OpmError a promise rejects with; anything else (or no rejection) fails the test. */
export async function errorOf(p: Promise<unknown>): Promise<OpmError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof OpmError) return e;
    throw e;
  }
  throw new Error('expected an error');
}
