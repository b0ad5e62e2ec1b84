/**
 * The format checks opm makes of an unpacked bundle image (`opm alpha bundle unpack` and
 * `validate`): a `manifests/` and a `metadata/` folder, an annotations file in `metadata/` whose
 * annotations name the media type the manifests have, a package and channels, and a default
 * channel that is not empty when it is there. Each problem in opm's words.
 */
import { readdir } from 'node:fs/promises';
import { readableTexts } from './read-texts.js';
import path from 'node:path';
import { OpmError } from '../errors.js';
import { goQuote } from '../go/fmt.js';
import { compareUtf8 } from '../go/utf8.js';
import { readAnnotations } from './annotations.js';
import {
  CHANNELS_LABEL,
  DEFAULT_CHANNEL_LABEL,
  MANIFESTS_LABEL,
  MEDIATYPE_LABEL,
  METADATA_LABEL,
  PACKAGE_LABEL,
} from '../bundle/labels.js';
import { detectMediaType } from './media-type.js';

export interface BundleFormat {
  /** The problems found, in opm's words; empty when the format is right. */
  errors: string[];
  /** The annotations file's annotations, when one was found. */
  annotations?: Map<string, string>;
  /** Its name inside `metadata/`. */
  annotationsFile?: string;
  /** The manifests' media type, when it could be told. */
  mediaType?: string;
}

export interface BundleFormatOptions {
  /**
   * Further checks of the `metadata/` folder (the optional dependencies file of `alpha bundle
   * validate`): given its absolute path and the files in it, they return more problems.
   */
  metadataChecks?: (metadataDir: string, files: string[]) => Promise<string[]>;
}

/**
 * Check the bundle unpacked in `dir` (absolute). Problems with the annotations come in a fixed order:
 * media type, manifests, metadata, package, channels, default channel (opm lists them in an order
 * that changes from run to run).
 */
export async function checkBundleFormat(dir: string, opts: BundleFormatOptions = {}): Promise<BundleFormat> {
  let entries: Array<{ name: string; isDirectory(): boolean }> = [];
  const errors: string[] = [];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    errors.push(err instanceof Error ? err.message : String(err));
  }
  const dirs = new Set(entries.filter((e) => e.isDirectory()).map((e) => e.name));
  if (!dirs.has('manifests')) errors.push('Unable to locate manifests directory');
  if (!dirs.has('metadata')) errors.push('Unable to locate metadata directory');
  if (errors.length > 0) return { errors };

  const manifestsDir = path.join(dir, 'manifests');
  const metadataDir = path.join(dir, 'metadata');
  let mediaType = '';
  try {
    mediaType = await detectMediaType(manifestsDir, 'manifests');
  } catch (err) {
    if (!(err instanceof OpmError)) throw err;
    errors.push(err.message);
  }

  const files = (await readdir(metadataDir)).sort(compareUtf8);
  let annotations: Map<string, string> | undefined;
  let annotationsFile: string | undefined;
  for await (const { name: f, text } of readableTexts(metadataDir, files)) {
    const found = readAnnotations(text, true);
    if (found !== undefined) {
      annotations = found;
      annotationsFile = f;
      break;
    }
  }
  if (annotations === undefined) errors.push('Could not find annotations file');
  else errors.push(...annotationProblems(mediaType, annotations));
  if (opts.metadataChecks !== undefined) errors.push(...(await opts.metadataChecks(metadataDir, files)));

  return {
    errors,
    ...(annotations === undefined ? {} : { annotations }),
    ...(annotationsFile === undefined ? {} : { annotationsFile }),
    ...(mediaType === '' ? {} : { mediaType }),
  };
}

/** What is wrong with a bundle's annotations, given the media type its manifests have. */
export function annotationProblems(mediaType: string, a: Map<string, string>): string[] {
  const problems: string[] = [];
  const required = [MEDIATYPE_LABEL, MANIFESTS_LABEL, METADATA_LABEL, PACKAGE_LABEL, CHANNELS_LABEL];
  for (const label of [...required, DEFAULT_CHANNEL_LABEL]) {
    const value = a.get(label);
    if (value === undefined && label !== DEFAULT_CHANNEL_LABEL)
      problems.push(`Missing annotation ${goQuote(label)}`);
    if (label === MEDIATYPE_LABEL && value !== mediaType)
      problems.push(
        `Expecting annotation ${goQuote(label)} to have value ${goQuote(mediaType)} instead of ${goQuote(value ?? '')}`,
      );
    if (label === CHANNELS_LABEL && (value ?? '') === '')
      problems.push(`Expecting annotation ${goQuote(label)} to have non-empty value`);
    if (label === DEFAULT_CHANNEL_LABEL && value === '')
      problems.push(`Expecting annotation ${goQuote(label)} to have non-empty value`);
  }
  return problems;
}

/** opm's one line for a list of bundle problems. */
export function validationErrorsText(errors: readonly string[]): string {
  return `Bundle validation errors: ${errors.join(',')}`;
}
