import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root: the nearest folder upwards whose package.json names opm-ts (works compiled too). */
export function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg) && readFileSync(pkg, 'utf8').includes('"name": "opm-ts"')) return dir;
    const up = path.dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
}

/**
 * The shared corpus of real catalogs and bundles: $OPM_CORPUS, else ../shared/corpus beside the
 * project. Tests read it in place; nothing of it is copied into the project.
 */
export const corpusDir: string | undefined = (() => {
  const candidates = [process.env.OPM_CORPUS, path.resolve(projectRoot(), '../shared/corpus')];
  return candidates.find((c): c is string => c !== undefined && c !== '' && existsSync(c));
})();

let warned = false;
/** True when the corpus is present; says so loudly (once) when it is not. */
export function haveCorpus(): boolean {
  if (corpusDir === undefined && !warned) {
    warned = true;
    console.warn(
      '\n*** CORPUS NOT FOUND: the conformance suite over real catalogs is NOT running. ***\n' +
        '*** Set OPM_CORPUS or place the corpus at ../shared/corpus. Other tests still run. ***\n',
    );
  }
  return corpusDir !== undefined;
}

export function corpusPath(...parts: string[]): string {
  if (corpusDir === undefined) throw new Error('corpus not present');
  return path.join(corpusDir, ...parts);
}
