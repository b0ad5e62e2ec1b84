import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import type { ValidateFlags } from './validate-run.js';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function registerValidate(program: Command, io: CliIO): void {
  program
    .command('validate')
    .argument('<directory>')
    .description('Validate the declarative index config')
    .option(
      '-o, --output <string>',
      'Output format (json|yaml|github|sarif); default: human-readable findings on stderr',
    )
    .option('--warnings', 'also show warnings (problems opm tolerates) in the human-readable output', false)
    .option('--strict', 'warnings fail the validation too (exit 1)', false)
    .option(
      '--rule <id=severity>',
      'set the severity of a rule beyond opm: error, warning or off (repeatable; overrides the configuration file)',
      collect,
      [],
    )
    .option(
      '--config <file>',
      'severity configuration file (default: the nearest .opm-validate.yaml at or above the catalog directory)',
    )
    .option(
      '--crd-upgrade-safety',
      'check the CRDs along every upgrade edge as OLM v0 and v1 do (the crd.* rules, as errors unless configured otherwise)',
      false,
    )
    .option(
      '--bundle-dirs <file>',
      'map of bundle image references to registry+v1 bundle directories, where --crd-upgrade-safety reads CRDs the catalog does not carry',
    )
    .option(
      '--crd-from-images',
      'with --crd-upgrade-safety, pull the bundle images of bundles whose manifests the catalog does not carry and --bundle-dirs does not map (as render pulls them, cached), to read their CRDs',
      false,
    )
    .option(
      '--with <ref>',
      'another catalog (directory or image) whose bundles may satisfy dependencies (repeatable)',
      collect,
      [],
    )
    .action(async (directory: string, opts: ValidateFlags, cmd: Command) => {
      // The validator (ajv and the schemas) loads only when validate runs.
      const { runValidate } = await import('./validate-run.js');
      await runValidate(io, directory, opts, cmd);
    });
}
