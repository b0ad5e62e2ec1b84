/**
 * The problems the content checks of `opm alpha bundle validate` find, as data: a level, and the
 * parts opm's validators print (`Error: Field F, Value V: detail`). opm reports only the errors;
 * the warnings are kept so callers can show them.
 */

export type ProblemLevel = 'Error' | 'Warning';

export interface ContentProblem {
  level: ProblemLevel;
  /** The dotted path of the field at fault ('' when none). */
  field: string;
  /** The value at fault as Go's `%v` prints it; undefined for Go's nil (not printed). */
  value: string | undefined;
  detail: string;
  /** The manifest the problem is in, relative to the bundle's root, when one is. */
  file?: string;
}

/** The text opm prints for a validator's problem. */
export function problemText(p: ContentProblem): string {
  let detail = p.detail === '' ? '' : `: ${p.detail}`;
  if (p.field !== '' && p.value !== undefined) detail = `Field ${p.field}, Value ${p.value}${detail}`;
  else if (p.field !== '') detail = `Field ${p.field}${detail}`;
  else if (p.value !== undefined) detail = `Value ${p.value}${detail}`;
  return detail === '' ? 'ErrMessageMissing' : `${p.level}: ${detail}`;
}

export function problem(
  level: ProblemLevel,
  detail: string,
  field: string,
  value: string | undefined,
): ContentProblem {
  return { level, field, value, detail };
}

/** A problem with a CSV, named in its detail, with no field and an empty value (as opm words it). */
export function csvProblem(level: ProblemLevel, detail: string, csvName: string): ContentProblem {
  return problem(level, `(${csvName}) ${detail}`, '', '');
}

/** A problem that is a plain message, with no level or field (opm's own errors between validators). */
export interface PlainProblem {
  plain: string;
  file?: string;
}

export type BundleContentProblem = ContentProblem | PlainProblem;

export function contentProblemText(p: BundleContentProblem): string {
  return 'plain' in p ? p.plain : problemText(p);
}

/** Whether a problem counts against the bundle (opm keeps only validators' errors). */
export function isError(p: BundleContentProblem): boolean {
  return 'plain' in p || p.level === 'Error';
}
