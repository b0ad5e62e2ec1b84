/**
 * A bundle's `metadata/annotations.yaml` and its `bundle.Dockerfile`, written as opm writes them
 * (`opm alpha bundle generate`), and the check `opm alpha bundle build` makes of an annotations
 * file that is already there.
 */
import { emitYaml } from '../yaml/emit.js';
import { compareUtf8 } from '../go/utf8.js';
import { goQuote } from '../go/fmt.js';
import { decodeFirstDocument } from '../bundle/decode.js';
import {
  CHANNELS_LABEL,
  DEFAULT_CHANNEL_LABEL,
  MANIFESTS_LABEL,
  MEDIATYPE_LABEL,
  METADATA_LABEL,
  PACKAGE_LABEL,
} from '../bundle/labels.js';

/** The values of the manifests and metadata annotations: the folders inside the image. */
export const MANIFESTS_DIR = 'manifests/';
export const METADATA_DIR = 'metadata/';
export const ANNOTATIONS_FILE = 'annotations.yaml';
export const DOCKERFILE = 'bundle.Dockerfile';

export type BundleMediaType = 'registry+v1' | 'plain' | 'helm';

/** What a bundle's annotations say. `defaultChannel` '' leaves its annotation out. */
export interface BundleAnnotations {
  mediaType: BundleMediaType;
  packageName: string;
  /** Comma-separated, as given: opm writes it verbatim. */
  channels: string;
  defaultChannel: string;
}

/** The annotations as a map, in the order opm's Dockerfile lists them as labels. */
export function annotationMap(a: BundleAnnotations): Array<[string, string]> {
  const entries: Array<[string, string]> = [
    [MEDIATYPE_LABEL, a.mediaType],
    [MANIFESTS_LABEL, MANIFESTS_DIR],
    [METADATA_LABEL, METADATA_DIR],
    [PACKAGE_LABEL, a.packageName],
    [CHANNELS_LABEL, a.channels],
  ];
  if (a.defaultChannel !== '') entries.push([DEFAULT_CHANNEL_LABEL, a.defaultChannel]);
  return entries;
}

/**
 * The text of `annotations.yaml`: `annotations:` and the keys in sorted order, indented by two
 * spaces, values quoted only where YAML needs it.
 */
export function annotationsYaml(a: BundleAnnotations): string {
  const sorted = [...annotationMap(a)].sort(([x], [y]) => compareUtf8(x, y));
  // opm writes this file with go-yaml v3, which does not fold long values.
  return emitYaml({ annotations: Object.fromEntries(sorted) }, { fold: false });
}

export interface DockerfileOptions {
  /** `FROM`: opm's default is `scratch`. */
  baseImage: string;
  /** The `COPY` sources: the manifests and metadata folders relative to the build context. */
  manifestsFrom: string;
  metadataFrom: string;
}

/**
 * The text of `bundle.Dockerfile`: `FROM`, a blank line, one `LABEL` per annotation, the blank line
 * before the `COPY` lines only after a default channel's label (as opm writes it), then the two
 * `COPY` lines.
 */
export function bundleDockerfile(a: BundleAnnotations, o: DockerfileOptions): string {
  let text = `FROM ${o.baseImage}\n\n`;
  for (const [k, v] of annotationMap(a)) text += `LABEL ${k}=${v}\n`;
  if (a.defaultChannel !== '') text += '\n';
  text += `COPY ${o.manifestsFrom} /${MANIFESTS_DIR}\n`;
  text += `COPY ${o.metadataFrom} /${METADATA_DIR}\n`;
  return text;
}

/**
 * The `annotations` mapping of an annotations file, its values as text; undefined when the file
 * does not parse or has no `annotations` mapping. Scalars that are not strings count by their text
 * (`true`, `1.0`), as opm's YAML reader gives them to a string map; with `strict` (the reader of
 * opm's format check, which goes through JSON) such a value makes the file no annotations file.
 */
export function readAnnotations(text: string, strict = false): Map<string, string> | undefined {
  let doc: unknown;
  try {
    doc = decodeFirstDocument(text).value;
  } catch {
    return undefined;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return undefined;
  const ann = (doc as Record<string, unknown>).annotations;
  if (typeof ann !== 'object' || ann === null || Array.isArray(ann)) return undefined;
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(ann as Record<string, unknown>)) {
    if (v === null || v === undefined) out.set(k, '');
    else if (typeof v === 'string') out.set(k, v);
    else if (!strict && (typeof v === 'number' || typeof v === 'boolean')) out.set(k, String(v));
    else return undefined;
  }
  return out;
}

/**
 * What an existing annotations file lacks or says otherwise than the annotations about to be
 * written, in opm's words (`Missing field: k`, `Expect field "k" to have value "v" instead of "w"`),
 * by key. Empty when it agrees; keys the file has beyond these are fine.
 */
export function annotationMismatches(existing: Map<string, string>, expected: BundleAnnotations): string[] {
  const problems: string[] = [];
  const sorted = [...annotationMap(expected)].sort(([x], [y]) => compareUtf8(x, y));
  for (const [k, want] of sorted) {
    const have = existing.get(k);
    if (have === undefined) problems.push(`Missing field: ${k}`);
    else if (have !== want)
      problems.push(`Expect field ${goQuote(k)} to have value ${goQuote(want)} instead of ${goQuote(have)}`);
  }
  return problems;
}

/** Several errors as Kubernetes' aggregate error writes them: one alone, else `[e1, e2]`. */
export function aggregateText(errors: readonly string[]): string {
  return errors.length === 1 ? (errors[0] ?? '') : `[${errors.join(', ')}]`;
}
