/**
 * The names of the migrations and their help, with no imports: the CLI shows them in every
 * `--migrate-level` help text, and loading the migrations themselves (YAML, CSV decoding) for
 * that would slow down every command's start.
 */

export interface MigrationLevel {
  token: string;
  help: string;
}

/** In order: a level runs every migration up to and including itself. */
export const MIGRATION_LEVELS: readonly MigrationLevel[] = [
  { token: 'none', help: 'do nothing' },
  {
    token: 'bundle-object-to-csv-metadata',
    help: 'migrates bundles\' "olm.bundle.object" to "olm.csv.metadata"',
  },
];

/** `all` selects every migration. */
export const ALL_MIGRATIONS = 'all';

/** The flag help listing the levels, aligned as opm prints it. */
export function migrationLevelHelp(): string {
  const width = Math.max(...MIGRATION_LEVELS.map((m) => m.token.length));
  const lines = MIGRATION_LEVELS.map((m) => `  - ${m.token.padEnd(width)} : ${m.help}`);
  return [
    'Name of the last migration to run (default: none)',
    '',
    'The migrator will run all migrations up to and including the selected level.',
    '',
    'Available migrators:',
    ...lines,
  ].join('\n');
}
