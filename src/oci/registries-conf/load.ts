import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { OpmError } from '../../errors.js';
import { errnoCode, errnoText } from '../../go/errno.js';
import { compareUtf8 } from '../../go/utf8.js';
import { readBoundedFile } from '../../util/read-bounded.js';
import { emptyConf, mergeConf, type RegistriesConf } from './config.js';
import { parseRegistriesConf } from './parse.js';
import { homeDir } from '../../util/home-dir.js';
import { pathExists } from '../../util/path-exists.js';

export interface LoadOptions {
  env: NodeJS.ProcessEnv;
  /**
   * Prefix for the system paths (/etc/containers/…), like containers/image's
   * RootForImplicitAbsolutePaths; tests point it at an empty folder. Default `/`.
   */
  root?: string;
}

export interface ConfPaths {
  /** The main file. */
  main: string;
  /** Whether a missing main file is an error (it was named explicitly). */
  required: boolean;
  /** Drop-in folders, read in this order. */
  dropInDirs: string[];
}

/**
 * Which files make the configuration, as containers/image (pkg/sysregistriesv2) chooses them:
 * `$CONTAINERS_REGISTRIES_CONF` (or the older `$REGISTRIES_CONFIG_PATH`) names the main file, and
 * the system and user drop-in folders are still read; otherwise `~/.config/containers/registries.conf`,
 * when it exists, replaces the system file and only the user drop-in folder is read; otherwise
 * `/etc/containers/registries.conf` with `/etc/containers/registries.conf.d` and then
 * `~/.config/containers/registries.conf.d`.
 */
async function confPaths(o: LoadOptions): Promise<ConfPaths> {
  const root = o.root ?? '/';
  const home = homeDir(o.env);
  const systemFile = path.join(root, 'etc', 'containers', 'registries.conf');
  const systemDir = path.join(root, 'etc', 'containers', 'registries.conf.d');
  const userFile = path.join(home, '.config', 'containers', 'registries.conf');
  const userDir = path.join(home, '.config', 'containers', 'registries.conf.d');
  const named = [o.env.CONTAINERS_REGISTRIES_CONF, o.env.REGISTRIES_CONFIG_PATH].find(
    (v): v is string => v !== undefined && v !== '',
  );
  if (named !== undefined) return { main: named, required: true, dropInDirs: [systemDir, userDir] };
  if (await pathExists(userFile)) return { main: userFile, required: false, dropInDirs: [userDir] };
  return { main: systemFile, required: false, dropInDirs: [systemDir, userDir] };
}

function readError(file: string, err: unknown): OpmError {
  return new OpmError(`${file}: cannot read registries configuration: ${errnoText(err)}`, {
    code: 'E_REGISTRIES_CONF',
    cause: err,
  });
}

/** The `*.conf` files of a drop-in folder, in byte order; none when the folder does not exist. */
async function dropIns(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if (isMissing(err)) return [];
    throw readError(dir, err);
  }
  const files: string[] = [];
  for (const n of names.filter((x) => x.endsWith('.conf')).sort(compareUtf8)) {
    const f = path.join(dir, n);
    try {
      if ((await stat(f)).isFile()) files.push(f);
    } catch (err) {
      if (!isMissing(err)) throw readError(f, err);
    }
  }
  return files;
}

function isMissing(err: unknown): boolean {
  const code = errnoCode(err);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Read and merge the main file and the drop-ins. No files at all is an empty configuration. */
export async function loadRegistriesConf(o: LoadOptions): Promise<RegistriesConf> {
  const paths = await confPaths(o);
  let conf = emptyConf();
  try {
    const text = await readBoundedFile(paths.main);
    conf = mergeConf(conf, parseRegistriesConf(text, paths.main));
  } catch (err) {
    if (err instanceof OpmError) throw err;
    if (!(isMissing(err) && !paths.required)) throw readError(paths.main, err);
  }
  for (const dir of paths.dropInDirs) {
    for (const f of await dropIns(dir)) {
      let text: string;
      try {
        text = await readBoundedFile(f);
      } catch (err) {
        // Removed between the listing and the read.
        if (isMissing(err)) continue;
        throw readError(f, err);
      }
      conf = mergeConf(conf, parseRegistriesConf(text, f, { dropIn: true }));
    }
  }
  return conf;
}
