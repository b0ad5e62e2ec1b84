import { OpmError } from '../../src/errors.js';

/** Twice `n`; an OpmError with a position and a hint for a negative `n`. */
export function double(n: number): number {
  if (n < 0)
    throw new OpmError(`${n} is negative`, { at: { file: 'numbers.yaml', line: 3 }, hint: 'use 0 or more' });
  return 2 * n;
}

/** An OpmError of a class of its own, as CatalogDirError is. */
export class NotAnInteger extends OpmError {
  constructor(n: number) {
    super(`${n} is not an integer`, { hint: 'round it' });
    this.name = 'NotAnInteger';
  }
}
