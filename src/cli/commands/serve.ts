import type { Command } from 'commander';
import { OpmError } from '../../errors.js';

/**
 * opm's `serve` (a gRPC catalog server) is not part of opm-ts. It is registered so that scripts and
 * Dockerfiles that call it get a clear answer instead of "unknown command".
 */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .argument('[args...]')
    .allowUnknownOption(true)
    .helpOption(false)
    .description('(not provided) serve a catalog over gRPC: use the reference opm image for this')
    .action(() => {
      throw new OpmError('opm serve is not provided by opm-ts', {
        code: 'E_NOT_SUPPORTED',
        hint: 'serve catalogs with the reference opm, e.g. the quay.io/operator-framework/opm image',
      });
    });
}
