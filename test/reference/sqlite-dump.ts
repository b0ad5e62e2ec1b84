// A database's rows as the sqlite3 command line dumps them, with what opm writes arbitrarily left
// aside, for the suites that compare the databases both tools write.
import { spawnSync } from 'node:child_process';

export function sqlite(db: string, ...args: string[]): string {
  const r = spawnSync('sqlite3', [db, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`sqlite3 ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/**
 * A database's dump with what is arbitrary in opm's left aside: the migration's timestamp; the
 * order of rows (opm inserts them iterating Go maps); the entry ids of channel_entry, each entry
 * named instead by its bundle and depth and those of the entry it replaces.
 */
export function normalisedDump(db: string): { schema: string[]; rows: Record<string, string[]> } {
  const schema: string[] = [];
  const rows: Record<string, string[]> = {};
  for (const line of sqlite(db, '.dump').split('\n')) {
    const m = /^INSERT INTO (\w+|"\w+") VALUES\((.*)\);$/.exec(line);
    if (m === null) {
      if (line.trim() !== '') schema.push(line);
      continue;
    }
    const table = (m[1] as string).replaceAll('"', '');
    if (table === 'channel_entry') continue;
    let values = m[2] as string;
    if (table === 'schema_migrations')
      values = values.replace(/'\d{4}-\d\d-\d\d \d\d:\d\d:\d\d'/, "'<time>'");
    (rows[table] ??= []).push(values);
  }
  const entries = JSON.parse(sqlite(db, '-json', 'select * from channel_entry') || '[]') as Array<
    Record<string, string | number | null>
  >;
  const byId = new Map(entries.map((e) => [e.entry_id, e]));
  rows.channel_entry = entries.map((e) => {
    const r = e.replaces === null ? undefined : byId.get(e.replaces);
    return JSON.stringify([
      e.channel_name,
      e.package_name,
      e.operatorbundle_name,
      e.depth,
      r === undefined ? null : [r.operatorbundle_name, r.depth],
    ]);
  });
  for (const k of Object.keys(rows)) rows[k]?.sort();
  return { schema, rows };
}
