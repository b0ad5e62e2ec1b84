/**
 * A Go struct value for the JSON and YAML writers: its fields are written in the order they were
 * given (a struct's declaration order), where a map's keys are sorted.
 */

/** A Go struct value: fields are written in insertion order; `undefined` fields are left out. */
export class GoStruct {
  readonly fields: Readonly<Record<string, unknown>>;
  constructor(fields: Readonly<Record<string, unknown>>) {
    this.fields = fields;
  }
}

export function goStruct(fields: Readonly<Record<string, unknown>>): GoStruct {
  return new GoStruct(fields);
}
