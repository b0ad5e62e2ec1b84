import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import type { IndexEdit } from '../../action/index-edit.js';
import { buildIndex, type IndexBuildFlags } from './index-build.js';
import { reportEdit } from './registry-edit-run.js';

/** The flags of `opm index rm|prune|prune-stranded|deprecatetruncate` (those a verb lacks are empty). */
export interface IndexEditFlags extends IndexBuildFlags {
  operators?: string[];
  packages?: string[];
  bundles?: string[];
  permissive?: boolean;
  allowPackageRemoval?: boolean;
}

/** What each verb says it does, with the fields of its log lines. */
function begin(edit: IndexEdit): { message: string; fields: Record<string, string> } {
  const list = (xs: string[]): string => `[${xs.join(' ')}]`;
  switch (edit.verb) {
    case 'rm':
      return { message: 'removing operator from the index', fields: { operators: list(edit.packages) } };
    case 'prune':
      return { message: 'pruning the index', fields: { packages: list(edit.keep) } };
    case 'prune-stranded':
      return { message: 'pruning stranded bundles from the index', fields: {} };
    case 'deprecatetruncate':
      return { message: 'deprecating bundles from the index', fields: { bundles: list(edit.images) } };
  }
}

/** The edit a verb's flags ask for. */
export function editOf(verb: IndexEdit['verb'], f: IndexEditFlags): IndexEdit {
  const permissive = f.permissive === true;
  switch (verb) {
    case 'rm':
      return { verb, packages: f.operators ?? [], permissive };
    case 'prune':
      return { verb, keep: f.packages ?? [], permissive };
    case 'prune-stranded':
      return { verb };
    case 'deprecatetruncate':
      return {
        verb,
        images: f.bundles ?? [],
        permissive,
        allowPackageRemoval: f.allowPackageRemoval === true,
      };
  }
}

/** `opm index VERB`: the registry verb's edit on a copy of `--from-index`'s database, then the image. */
export async function runIndexEdit(
  io: CliIO,
  edit: IndexEdit,
  flags: IndexEditFlags,
  cmd: Command,
): Promise<void> {
  const { indexEditDatabase } = await import('../../action/index-edit.js');
  const b = begin(edit);
  await buildIndex(io, cmd, edit.verb, flags, b, async (imageSource, buildDir) => {
    reportEdit(
      io,
      await indexEditDatabase({ fromIndex: flags.fromIndex, imageSource, buildDir }, edit),
      b.fields,
    );
  });
}
