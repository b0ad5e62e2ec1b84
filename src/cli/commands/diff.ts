import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import type { DiffFlags } from './diff-run.js';

/** `opm diff`: an extension (opm's removed `alpha diff` did something else and is not provided). */
export function registerDiff(program: Command, io: CliIO): void {
  program
    .command('diff')
    .argument('<old-ref>', 'the catalog before: image, FBC directory or bundle directory')
    .argument('<new-ref>', 'the catalog after')
    .description(
      'Compare two catalogs for review: packages, channels, bundles, upgrade edges, deprecations, changed released bundles, and upgrade impact. Exit 0 when equal, 1 when different, 2 on errors',
    )
    .option('-o, --output <string>', 'Output format (text|markdown|json|yaml)', 'text')
    .option(
      '--fail-on <what>',
      'exit 1 on any difference (any) or only when users lose their upgrade path or a new upgrade edge changes a CRD unsafely (impact)',
      'any',
    )
    .option(
      '--bundle-dirs <file>',
      'map of bundle image references to registry+v1 bundle directories, where the CRDs of new upgrade edges are read when the catalogs do not carry them',
    )
    .action(async (oldRef: string, newRef: string, flags: DiffFlags, cmd: Command) => {
      const { runDiff } = await import('./diff-run.js');
      await runDiff(io, oldRef, newRef, flags, cmd);
    });
}
