/**
 * `--bundle-dirs FILE`: a YAML or JSON object mapping bundle image references to registry+v1
 * bundle directories, so templates render offline. Relative directories are relative to FILE's
 * folder.
 */
import path from 'node:path';
import { OpmError } from '../errors.js';
import { readBoundedFile } from '../util/read-bounded.js';
import { readTemplateDocument } from './input.js';
import { isJsonObject } from '../go/json-value.js';
import { errnoText } from '../go/errno.js';

export interface BundleDirMap {
  /** The map file as named by the user. */
  file: string;
  /** Image reference → absolute bundle directory. */
  dirs: Map<string, string>;
}

/** Parse the map's text. `file` names it in errors; `baseDir` anchors relative directories. */
function parseBundleDirMap(text: string, file: string, baseDir: string): BundleDirMap {
  const doc = readTemplateDocument(text, file);
  const v = doc.value;
  if (!isJsonObject(v)) {
    throw new OpmError('bundle directory map must be an object of image reference: directory', {
      at: { file, line: doc.line },
    });
  }
  const dirs = new Map<string, string>();
  for (const [image, dir] of Object.entries(v)) {
    if (typeof dir !== 'string' || dir === '') {
      throw new OpmError(`bundle directory for image ${JSON.stringify(image)} must be a non-empty string`, {
        at: { file, line: doc.lineOf([image]) },
      });
    }
    dirs.set(image, path.resolve(baseDir, dir));
  }
  return { file, dirs };
}

/** Read and parse the map file (`file` relative to `cwd`). */
export async function readBundleDirMap(file: string, cwd: string): Promise<BundleDirMap> {
  const full = path.resolve(cwd, file);
  let text: string;
  try {
    text = await readBoundedFile(full);
  } catch (e) {
    throw new OpmError(`unable to read bundle directory map: ${errnoText(e)}`, {
      at: { file },
    });
  }
  return parseBundleDirMap(text, file, path.dirname(full));
}
