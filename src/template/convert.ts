/**
 * `opm alpha convert-template basic|substitutes` (`alpha/template/converter/converter.go`): turn an
 * FBC file into a template. Every blob is kept as opm's generic decode leaves it (keys sorted at
 * every depth); for `basic`, each bundle shrinks to its schema and image.
 */
import { OpmError } from '../errors.js';
import { SCHEMA_BUNDLE } from '../declcfg/types.js';
import { type JsonObject, type JsonValue } from '../go/json-value.js';
import { parseCatalogText } from '../declcfg/parse.js';
import { GoStruct, goStruct } from '../go/go-struct.js';
import { marshalIndent } from '../go/json-encode.js';
import { BASIC_SCHEMA, SUBSTITUTES_SCHEMA } from './detect.js';
import { stringField } from './entries.js';

export type ConvertKind = 'basic' | 'substitutes';

export interface ConvertedTemplate {
  schema: string;
  /** Blobs as decoded (maps: keys sorted on output) or, for basic bundles, `{schema, image}` structs. */
  entries: (JsonObject | GoStruct)[];
  /** Present (empty) for substitutes templates. */
  substitutions?: JsonObject[];
}

/** The template for an FBC file's text. `label` names the input in errors. */
export function convertFbcToTemplate(kind: ConvertKind, text: string, label: string): ConvertedTemplate {
  const parsed = parseCatalogText(text);
  const issue = parsed.issues[0];
  if (issue !== undefined) {
    throw new OpmError(`converting: ${issue.message}`, {
      at: { file: label, line: issue.line },
    });
  }
  const entries: (JsonObject | GoStruct)[] = [];
  for (const blob of parsed.blobs) {
    const schema = stringField(blob.value, 'schema');
    if (schema === '') {
      throw new OpmError(
        `converting: object '${JSON.stringify(blob.value)}\n' is missing root schema field`,
        {
          at: { file: label, line: blob.line },
        },
      );
    }
    entries.push(
      kind === 'basic' && schema === SCHEMA_BUNDLE
        ? goStruct({ schema: SCHEMA_BUNDLE, image: stringField(blob.value, 'image') })
        : blob.value,
    );
  }
  const out: ConvertedTemplate = { schema: kind === 'basic' ? BASIC_SCHEMA : SUBSTITUTES_SCHEMA, entries };
  if (kind === 'substitutes') out.substitutions = [];
  return out;
}

/**
 * JSON as opm prints it: json.MarshalIndent with 4 spaces and HTML escaping, fields `schema`,
 * `entries`[, `substitutions`], blobs with sorted keys, a bundle as `{schema, image}`; newline.
 */
export function convertedTemplateJson(t: ConvertedTemplate): string {
  const value = goStruct({ schema: t.schema, entries: t.entries, substitutions: t.substitutions });
  return marshalIndent(value, '', '    ', true) + '\n';
}

/** The template as a plain JSON value, for the YAML writer (which sorts keys itself). */
export function convertedTemplateValue(t: ConvertedTemplate): JsonObject {
  const entries: JsonValue[] = t.entries.map((e) => {
    if (!(e instanceof GoStruct)) return e;
    const o: JsonObject = {};
    for (const [k, v] of Object.entries(e.fields)) if (typeof v === 'string') o[k] = v;
    return o;
  });
  const out: JsonObject = { schema: t.schema, entries };
  if (t.substitutions !== undefined) out['substitutions'] = t.substitutions;
  return out;
}
