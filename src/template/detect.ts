/**
 * Template types and choosing one: from the command line, or from the `schema` of the template's
 * first document, as opm does (operator-registry `alpha/template/registry.go`).
 */
import { OpmError, UsageError } from '../errors.js';
import { type TemplateDocument } from './input.js';
import { isJsonObject } from '../go/json-value.js';

export const TEMPLATE_TYPES = ['basic', 'semver', 'substitutes'] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

export const BASIC_SCHEMA = 'olm.template.basic';
export const SUBSTITUTES_SCHEMA = 'olm.template.substitutes';

/** The schema each template type declares. */
const TEMPLATE_SCHEMAS: Record<TemplateType, string> = {
  basic: BASIC_SCHEMA,
  semver: 'olm.semver',
  substitutes: SUBSTITUTES_SCHEMA,
};

function isTemplateType(s: string): s is TemplateType {
  return TEMPLATE_TYPES.some((t) => t === s);
}

/**
 * `render-template [TYPE] [FILE]`: one argument is a TYPE when it names one, else a FILE. FILE
 * `-` (or none) is standard input.
 */
export function templateArgs(args: string[]): { type: TemplateType | undefined; file: string } {
  if (args.length > 2) throw new UsageError(`accepts at most 2 arg(s), received ${args.length}`);
  const [first, second] = args;
  if (first === undefined) return { type: undefined, file: '-' };
  if (second === undefined)
    return isTemplateType(first) ? { type: first, file: '-' } : { type: undefined, file: first };
  if (!isTemplateType(first)) {
    throw new UsageError(`invalid template type "${first}", must be one of: [${TEMPLATE_TYPES.join(' ')}]`);
  }
  return { type: first, file: second };
}

/** The template type named by the document's `schema` (key matched case-insensitively). */
export function detectTemplateType(doc: TemplateDocument): TemplateType {
  const at = { file: doc.label, line: doc.line };
  const v = doc.value;
  const key = isJsonObject(v) ? Object.keys(v).find((k) => k.toLowerCase() === 'schema') : undefined;
  const schema = key === undefined || !isJsonObject(v) ? undefined : v[key];
  if (schema === undefined || schema === null || schema === '') {
    throw new OpmError("auto-detecting template type: template input missing required 'schema' field", {
      at,
    });
  }
  const found = TEMPLATE_TYPES.find((t) => TEMPLATE_SCHEMAS[t] === schema);
  if (found === undefined) {
    throw new OpmError(
      `auto-detecting template type: unknown template schema: ${typeof schema === 'string' ? schema : JSON.stringify(schema)}`,
      {
        at: { file: doc.label, line: key === undefined ? doc.line : doc.lineOf([key]) },
        hint: `known schemas: ${TEMPLATE_TYPES.map((t) => TEMPLATE_SCHEMAS[t]).join(', ')}`,
      },
    );
  }
  return found;
}
