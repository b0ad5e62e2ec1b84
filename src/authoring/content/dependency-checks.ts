/**
 * The checks of a bundle's optional dependencies file (`metadata/dependencies.yaml`), as
 * `opm alpha bundle validate` makes them: each dependency's value read as its type says, and the
 * fields that type needs present and well formed. In opm's words.
 */
import { readableTexts } from '../read-texts.js';
import { rangeError } from '../../model/semver.js';
import { decodeFirstDocument } from '../../bundle/decode.js';
import { readAnnotations } from '../annotations.js';
import { isObj, str } from './go-values.js';

/** Whether a value decodes into a Go struct (an object, or null which leaves it empty). */
const decodes = (v: unknown): boolean => v === null || v === undefined || isObj(v);
const strOk = (o: unknown, keys: string[]): boolean =>
  !isObj(o) || keys.every((k) => o[k] === undefined || o[k] === null || typeof o[k] === 'string');

/** A CEL rule's compile problem, or undefined (the lint layer's checker, passed in by the caller). */
export type CelCheck = (rule: string) => string | undefined;

/** The problems of one dependency `{type, value}`; CEL rules are compiled when `cel` is given. */
export function dependencyProblems(dep: unknown, cel?: CelCheck): string[] {
  const type = str(dep, 'type');
  const value = isObj(dep) ? dep.value : undefined;
  const unparsed = [`couldn't parse dependency of type ${type}`];
  switch (type) {
    case 'olm.gvk': {
      if (!decodes(value) || !strOk(value, ['group', 'version', 'kind'])) return unparsed;
      const out: string[] = [];
      if (str(value, 'group') === '') out.push('API Group is empty');
      if (str(value, 'version') === '') out.push('API Version is empty');
      if (str(value, 'kind') === '') out.push('API Kind is empty');
      return out;
    }
    case 'olm.package': {
      if (!decodes(value) || !strOk(value, ['packageName', 'version'])) return unparsed;
      const out: string[] = [];
      if (str(value, 'packageName') === '') out.push('Package name is empty');
      const version = str(value, 'version');
      if (version === '') out.push('Package version is empty');
      else if (rangeError(version) !== undefined) out.push('Invalid semver format version');
      return out;
    }
    case 'olm.label': {
      if (!decodes(value) || !strOk(value, ['label'])) return unparsed;
      return str(value, 'label') === '' ? ['Label information is missing'] : [];
    }
    case 'olm.constraint': {
      const celCheck = cel;
      if (!decodes(value)) return unparsed;
      const c = isObj(value) ? value.cel : undefined;
      if (c !== undefined && c !== null && !isObj(c)) return unparsed;
      if (!isObj(c)) return ['The CEL field is missing'];
      if (str(c, 'rule') === '') return ['The CEL expression is missing'];
      const bad = celCheck?.(str(c, 'rule'));
      return bad === undefined ? [] : [`Invalid CEL expression: ${bad}`];
    }
    default:
      return unparsed;
  }
}

/** The dependencies of a decoded file, when it is a dependencies file (a non-empty list). */
export function dependenciesOf(doc: unknown): unknown[] | undefined {
  if (!isObj(doc) || !Array.isArray(doc.dependencies) || doc.dependencies.length === 0) return undefined;
  return doc.dependencies;
}

/**
 * The check of the dependencies file among the files of `metadata/` (the first file, other than the
 * annotations file, that holds a non-empty `dependencies` list), setting `found` when there is one.
 */
export function dependencyFileChecks(
  found: { value: boolean } = { value: false },
  cel?: CelCheck,
): (metadataDir: string, files: string[]) => Promise<string[]> {
  return async (metadataDir: string, files: string[]): Promise<string[]> => {
    let annotationsSeen = false;
    for await (const { text } of readableTexts(metadataDir, files)) {
      if (!annotationsSeen && readAnnotations(text, true) !== undefined) {
        annotationsSeen = true;
        continue;
      }
      let doc: unknown;
      try {
        const d = decodeFirstDocument(text);
        doc = 'value' in d ? d.value : undefined;
      } catch {
        continue;
      }
      const deps = dependenciesOf(doc);
      if (deps === undefined) continue;
      found.value = true;
      return deps.flatMap((d) => dependencyProblems(d, cel));
    }
    return [];
  };
}
