import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpmError } from '../../errors.js';
import { loadRegistriesConf } from './load.js';

let tmp: string;
let root: string;
let home: string;

function write(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}
const sys = (...p: string[]): string => path.join(root, 'etc', 'containers', ...p);
const usr = (...p: string[]): string => path.join(home, '.config', 'containers', ...p);
const reg = (loc: string): string => `[[registry]]\nlocation = "${loc}"\n`;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-registries-conf-'));
  root = path.join(tmp, 'root');
  home = path.join(tmp, 'home');
  mkdirSync(root);
  mkdirSync(home);
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe('loadRegistriesConf', () => {
  it('is empty when no file exists', async () => {
    const conf = await loadRegistriesConf({ env: { HOME: home }, root });
    expect(conf.registries).toEqual([]);
    expect(conf.files).toEqual([]);
  });

  it('reads the system file, then system drop-ins in byte order, then user drop-ins', async () => {
    write(sys('registries.conf'), reg('a.io'));
    write(sys('registries.conf.d', 'b.conf'), reg('b.io'));
    write(sys('registries.conf.d', 'A.conf'), reg('c.io'));
    write(sys('registries.conf.d', 'ignored.txt'), 'not toml [');
    write(usr('registries.conf.d', '0.conf'), reg('d.io'));
    const conf = await loadRegistriesConf({ env: { HOME: home }, root });
    expect(conf.files).toEqual([
      sys('registries.conf'),
      sys('registries.conf.d', 'A.conf'),
      sys('registries.conf.d', 'b.conf'),
      usr('registries.conf.d', '0.conf'),
    ]);
    expect(conf.registries.map((r) => r.prefix)).toEqual(['a.io', 'b.io', 'c.io', 'd.io']);
  });

  it('lets the user file replace the system file and its drop-ins', async () => {
    write(sys('registries.conf'), reg('a.io'));
    write(sys('registries.conf.d', 'b.conf'), reg('b.io'));
    write(usr('registries.conf'), reg('u.io'));
    write(usr('registries.conf.d', 'v.conf'), reg('v.io'));
    const conf = await loadRegistriesConf({ env: { HOME: home }, root });
    expect(conf.files).toEqual([usr('registries.conf'), usr('registries.conf.d', 'v.conf')]);
  });

  it('takes the main file from CONTAINERS_REGISTRIES_CONF and still reads both drop-in folders', async () => {
    write(usr('registries.conf'), reg('u.io'));
    write(sys('registries.conf.d', 'b.conf'), reg('b.io'));
    write(usr('registries.conf.d', 'v.conf'), reg('v.io'));
    const named = write(path.join(tmp, 'mine.conf'), reg('m.io'));
    const conf = await loadRegistriesConf({ env: { HOME: home, CONTAINERS_REGISTRIES_CONF: named }, root });
    expect(conf.files).toEqual([
      named,
      sys('registries.conf.d', 'b.conf'),
      usr('registries.conf.d', 'v.conf'),
    ]);
  });

  it('accepts /dev/null as no configuration, and refuses a named file that is missing', async () => {
    const conf = await loadRegistriesConf({
      env: { HOME: home, CONTAINERS_REGISTRIES_CONF: '/dev/null' },
      root,
    });
    expect(conf.registries).toEqual([]);
    const missing = path.join(tmp, 'nope.conf');
    const err = await loadRegistriesConf({
      env: { HOME: home, CONTAINERS_REGISTRIES_CONF: missing },
      root,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpmError);
    expect((err as OpmError).message).toBe(
      `${missing}: cannot read registries configuration: no such file or directory`,
    );
  });

  it('names the drop-in at fault', async () => {
    write(sys('registries.conf.d', '10-bad.conf'), '[[registry]]\nlocation = "a.io"\nblocked = maybe\n');
    const err = await loadRegistriesConf({ env: { HOME: home }, root }).catch((e: unknown) => e);
    expect((err as OpmError).message).toMatch(
      new RegExp(`^${sys('registries.conf.d', '10-bad.conf')}:3: invalid TOML: `),
    );
  });
});
