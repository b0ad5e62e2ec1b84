import { Option } from 'commander';
import { ALL_MIGRATIONS, MIGRATION_LEVELS, migrationLevelHelp } from '../migrations/levels.js';
import { UsageError } from '../errors.js';

/**
 * `--migrate-level`, shared by render, migrate and alpha render-template. A level that does not
 * exist is a usage error (exit 2) when the flag is read, naming the levels there are; opm says
 * only `unknown migration level "x"` and exits 1.
 */
export function migrateLevelOption(): Option {
  return new Option('--migrate-level <string>', migrationLevelHelp())
    .default('')
    .argParser((value: string) => {
      const known = [...MIGRATION_LEVELS.map((m) => m.token), ALL_MIGRATIONS];
      if (value === '' || known.includes(value)) return value;
      throw new UsageError(`unknown migration level ${JSON.stringify(value)}`, {
        hint: `valid levels: ${known.join(', ')}`,
      });
    });
}
