import path from 'node:path';
import { homeDir } from './home-dir.js';

/** opm-ts's cache root: $OLM_CACHE_DIR, else `$XDG_CACHE_HOME/opm-ts`, else `~/.cache/opm-ts`. */
export function defaultCacheDir(env: NodeJS.ProcessEnv): string {
  if (env.OLM_CACHE_DIR !== undefined && env.OLM_CACHE_DIR !== '') return env.OLM_CACHE_DIR;
  const xdg = env.XDG_CACHE_HOME;
  if (xdg !== undefined && xdg !== '') return path.join(xdg, 'opm-ts');
  const home = homeDir(env);
  return path.join(home, '.cache', 'opm-ts');
}
