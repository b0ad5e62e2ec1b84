/**
 * `opm index rm|prune|prune-stranded|deprecatetruncate`: the registry verb's edit made on a copy
 * of `--from-index`'s database, which lands at `<buildDir>/database/index.db` as `index add`'s does.
 */
import type { ImageSource } from '../oci/image-source.js';
import { editIndexDatabase } from './index-add.js';
import {
  registryDeprecateTruncate,
  registryPrune,
  registryPruneStranded,
  registryRm,
  type RegistryEditResult,
} from './registry-edit.js';

/** The edit of each verb, with what it needs besides the database. */
export type IndexEdit =
  | { verb: 'rm'; packages: string[]; permissive: boolean }
  | { verb: 'prune'; keep: string[]; permissive: boolean }
  | { verb: 'prune-stranded' }
  | { verb: 'deprecatetruncate'; images: string[]; permissive: boolean; allowPackageRemoval: boolean };

export interface IndexEditOptions {
  fromIndex: string;
  imageSource: ImageSource;
  /** Where the database goes: `database/index.db` under this folder. */
  buildDir: string;
  signal?: AbortSignal;
}

function apply(edit: IndexEdit, database: string): RegistryEditResult {
  // The copy's path is absolute: the working folder does not matter.
  const cwd = '/';
  switch (edit.verb) {
    case 'rm':
      return registryRm({ database, packages: edit.packages, permissive: edit.permissive, cwd });
    case 'prune':
      return registryPrune({ database, keep: edit.keep, permissive: edit.permissive, cwd });
    case 'prune-stranded':
      return registryPruneStranded({ database, cwd });
    case 'deprecatetruncate':
      return registryDeprecateTruncate({
        database,
        images: edit.images,
        permissive: edit.permissive,
        allowPackageRemoval: edit.allowPackageRemoval,
        cwd,
      });
  }
}

/** The database of the new index: `--from-index`'s, edited. */
export async function indexEditDatabase(
  o: IndexEditOptions,
  edit: IndexEdit,
): Promise<RegistryEditResult & { database: string }> {
  return editIndexDatabase(o, (copy) => apply(edit, copy));
}
