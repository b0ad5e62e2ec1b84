/**
 * The catalog file of `opm compose`: the catalog's name, the image it is built as, and one
 * reference per operator (the file the file-based catalogs procedure of the OpenShift documentation
 * loops over with yq). schemas/compose-catalog.json is the file's definition and the check: the
 * text is read as configuration files are (size-capped by the caller, nesting and alias limits
 * here), every scalar as text, then checked against the schema; what the schema cannot say (two
 * references of one name) is checked after it. Every refusal names the file and line.
 */
import { isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node as YamlNode } from 'yaml';
import type { ErrorObject } from 'ajv';
import { OpmError } from '../errors.js';
import { parseConfigDocument } from '../yaml/config-text.js';
import { composeCatalogErrors } from '../schema/schema.js';
import { editDistance } from '../lint/metadata.js';

export interface ComposeReference {
  /** The folder under the catalog's directory (one safe path segment). */
  name: string;
  /** What `opm render` takes: an image reference or a local catalog or bundle directory. */
  image?: string;
  /** Or a catalog template file, rendered as `opm alpha render-template` renders it. */
  template?: string;
  /** The 1-based line of the reference in the catalog file. */
  line: number;
}

export interface ComposeCatalog {
  /** The catalog file as named in messages. */
  file: string;
  /** The catalog's directory name (one safe path segment). */
  name: string;
  repo?: string;
  tag?: string;
  /** In the file's order; names are unique. */
  references: ComposeReference[];
}

const TOP_KEYS = ['name', 'repo', 'tag', 'references'];
const REFERENCE_KEYS = ['name', 'image', 'template'];
const SEGMENT_HINT = "a name is one folder: not empty, not '.' or '..', without '/', '\\' or NUL";

/**
 * Read a compose catalog file's text. `file` names it in messages. Throws OpmError with the file
 * and line of the first problem (parse errors, nesting, excessive aliasing, the schema, a name used
 * twice).
 */
export function parseComposeCatalog(text: string, file: string): ComposeCatalog {
  // Every scalar as text, as yq hands them to the shell: `tag: 1.0` stays "1.0".
  const { doc, counter } = parseConfigDocument(text, file, {
    version: '1.2',
    schema: 'failsafe',
    uniqueKeys: true,
  });
  const line = (node: YamlNode | undefined | null): number => counter.linePos(node?.range?.[0] ?? 0).line;
  const root = doc.contents as YamlNode | null;
  if (root === null) {
    throw new OpmError('the catalog file is empty', {
      at: { file, line: 1 },
      hint: "write the catalog's name and its references (see schemas/compose-catalog.json)",
    });
  }
  const value: unknown = doc.toJS();
  const errors = composeCatalogErrors(value);
  if (errors.length > 0) throw schemaError(doc, counter, file, errors);
  const v = value as {
    name: string;
    repo?: string;
    tag?: string;
    references: Array<{ name: string; image?: string; template?: string }>;
  };
  const refNodes = isMap(root) ? (root.get('references', true) as YamlNode | undefined) : undefined;
  const items = refNodes !== undefined && isSeq(refNodes) ? (refNodes.items as YamlNode[]) : [];
  const seen = new Map<string, number>();
  const references = v.references.map((r, i): ComposeReference => {
    const at = line(items[i]);
    const first = seen.get(r.name);
    if (first !== undefined) {
      throw new OpmError(`reference name "${r.name}" is used twice (first on line ${first})`, {
        at: { file, line: at },
        hint: 'each reference is written to a folder of its name: give each its own name',
      });
    }
    seen.set(r.name, at);
    return {
      name: r.name,
      ...(r.image === undefined ? {} : { image: r.image }),
      ...(r.template === undefined ? {} : { template: r.template }),
      line: at,
    };
  });
  return {
    file,
    name: v.name,
    ...(v.repo === undefined ? {} : { repo: v.repo }),
    ...(v.tag === undefined ? {} : { tag: v.tag }),
    references,
  };
}

/** The schema error that comes first in the file, as one line with its position and a hint. */
function schemaError(
  doc: Document.Parsed,
  counter: LineCounter,
  file: string,
  errors: readonly ErrorObject[],
): OpmError {
  // A key missing beside an unknown one is most likely that key misspelt (`refrences:`): the unknown
  // key is the error to name, with the known key it was probably meant as.
  const unknownIn = new Set(
    errors.filter((e) => e.keyword === 'additionalProperties').map((e) => e.instancePath),
  );
  const placed = errors
    // `not`, `anyOf` and friends say again what a more precise error beside them says.
    .filter((e) => e.keyword !== 'if')
    .filter((e) => !(unknownIn.has(e.instancePath) && MISSING_KEYWORDS.has(e.keyword)))
    .map((e) => ({ e, node: nodeOf(doc, e) }))
    .map((x) => ({ ...x, offset: x.node?.range?.[0] ?? 0 }));
  placed.sort((a, b) => a.offset - b.offset || rank(a.e) - rank(b.e));
  const first = placed[0];
  if (first === undefined)
    return new OpmError('the catalog file does not match its schema', { at: { file } });
  const shown = first.node !== undefined && isScalar(first.node) ? String(first.node.value) : '';
  const { message, hint } = describe(first.e, shown, presentKeys(doc, first.e));
  return new OpmError(message, {
    at: { file, line: counter.linePos(first.offset).line },
    ...(hint === undefined ? {} : { hint }),
  });
}

/** The errors that say a key is missing (directly, or as no branch of `oneOf` being met). */
const MISSING_KEYWORDS: ReadonlySet<string> = new Set(['required', 'oneOf', 'not']);

/** The keys of the mapping an error is about. */
function presentKeys(doc: Document.Parsed, e: ErrorObject): string[] {
  const p = pathOf(e);
  const node = (p.length === 0 ? doc.contents : doc.getIn(p, true)) as YamlNode | null | undefined;
  if (node === null || node === undefined || !isMap(node)) return [];
  return node.items.map((it) => String((it.key as { value?: unknown } | null)?.value));
}

/** The known key an unknown one was probably meant as: not written already, at most two edits away. */
function meantKey(key: string, known: readonly string[], present: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: { key: string; d: number } | undefined;
  for (const k of known) {
    if (present.includes(k)) continue;
    const d = editDistance(lower, k, 2);
    if (d <= 2 && (best === undefined || d < best.d)) best = { key: k, d };
  }
  return best?.key;
}

/** Which of two errors at one place to report: the more telling first. */
function rank(e: ErrorObject): number {
  const order = [
    'additionalProperties',
    'required',
    'type',
    'minItems',
    'minLength',
    'not',
    'pattern',
    'oneOf',
  ].indexOf(e.keyword);
  return order < 0 ? 99 : order;
}

/** The path of an error's value: `/references/2/name` → ['references', 2, 'name']. */
function pathOf(e: ErrorObject): Array<string | number> {
  if (e.instancePath === '') return [];
  return e.instancePath
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p) => (/^(0|[1-9]\d*)$/.test(p) ? Number(p) : p));
}

/** The node an error is about: an unknown key's key, else the value at its path. */
function nodeOf(doc: Document.Parsed, e: ErrorObject): YamlNode | undefined {
  const p = pathOf(e);
  const node = (p.length === 0 ? doc.contents : doc.getIn(p, true)) as YamlNode | null | undefined;
  if (node === null || node === undefined) return undefined;
  if (e.keyword === 'additionalProperties' && isMap(node)) {
    const key = String((e.params as { additionalProperty?: unknown }).additionalProperty);
    const pair = node.items.find((it) => isPair(it) && String((it.key as { value?: unknown }).value) === key);
    if (pair !== undefined) return pair.key as YamlNode;
  }
  return node;
}

/** Where an error is, in words: the file itself, or the n-th reference. */
function placeOf(p: ReadonlyArray<string | number>): string {
  return typeof p[1] === 'number' ? `reference ${p[1] + 1}` : 'the catalog file';
}

function describe(
  e: ErrorObject,
  shown: string,
  present: readonly string[],
): { message: string; hint?: string } {
  const p = pathOf(e);
  const inReference = p[0] === 'references' && typeof p[1] === 'number';
  const field = typeof p[p.length - 1] === 'string' ? String(p[p.length - 1]) : undefined;
  const keys = inReference ? REFERENCE_KEYS : TOP_KEYS;
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String((e.params as { additionalProperty?: unknown }).additionalProperty);
      const meant = meantKey(key, keys, present);
      return {
        message: `unknown key "${key}" in ${placeOf(p)}${meant === undefined ? '' : `: did you mean "${meant}"?`}`,
        hint: `${inReference ? 'a reference' : 'the catalog file'} takes ${keys.join(', ')}`,
      };
    }
    case 'required': {
      const missing = String((e.params as { missingProperty?: unknown }).missingProperty);
      if (p.length === 2 && (missing === 'image' || missing === 'template')) {
        return {
          message: `${placeOf(p)} has neither \`image\` nor \`template\``,
          hint: 'name the image (or directory) to render, or a catalog template',
        };
      }
      return {
        message: `\`${missing}\` is missing in ${placeOf(p)}`,
        hint: `${p.length === 2 ? 'a reference' : 'the catalog file'} takes ${(p.length === 2 ? REFERENCE_KEYS : TOP_KEYS).join(', ')}`,
      };
    }
    case 'type': {
      const type = String((e.params as { type?: unknown }).type);
      const what =
        field === undefined
          ? p.length === 0
            ? 'the catalog file'
            : `reference ${Number(p[1]) + 1}`
          : `\`${field}\`${inReference && p.length > 2 ? ` of reference ${Number(p[1]) + 1}` : ''}`;
      const as = type === 'object' ? 'a mapping' : type === 'array' ? 'a list' : 'a string';
      return { message: `${what} must be ${as}` };
    }
    case 'oneOf':
      return {
        message: `${placeOf(p)} has both \`image\` and \`template\``,
        hint: 'a reference is an image (or directory) or a template, not both',
      };
    case 'minItems':
      return {
        message: '`references` lists no reference',
        hint: 'list the images of the catalog under `references`',
      };
    case 'minLength':
      return {
        message: `\`${field ?? ''}\`${inReference ? ` of reference ${Number(p[1]) + 1}` : ''} is empty`,
        ...(field === 'name' ? { hint: SEGMENT_HINT } : {}),
      };
    case 'not':
    case 'pattern': {
      return {
        message: `${inReference ? 'reference name' : 'catalog name'} ${JSON.stringify(shown)} is not a folder name`,
        hint: SEGMENT_HINT,
      };
    }
    default:
      return {
        message: `${field === undefined ? placeOf(p) : `\`${field}\``} ${e.message ?? 'is not valid'}`,
      };
  }
}
