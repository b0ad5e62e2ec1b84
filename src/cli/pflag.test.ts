import { describe, expect, it } from 'vitest';
import { Command, Option } from 'commander';
import { runOpm } from '../../test/run-cli.js';
import { pflagArgs } from './pflag.js';

const pkg = async (args: string[]): Promise<unknown> => {
  const r = await runOpm(['init', 'p', ...args]);
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { defaultChannel: unknown }).defaultChannel;
};

describe("pflag's flag forms", () => {
  it.each([
    [['-c=alpha'], 'alpha'],
    [['-calpha'], 'alpha'],
    [['-c', 'alpha'], 'alpha'],
    [['--default-channel=alpha'], 'alpha'],
    [['-c='], '='],
    [['-c==a'], '=a'],
    [['-c', '--'], '--'],
  ])('init %j', async (args, want) => {
    expect(await pkg(args)).toBe(want);
  });

  it.each(['true', 'True', 'TRUE', 't', '1', 'false', 'F', '0'])('boolean --migrate=%s', async (v) => {
    const r = await runOpm(['render', 'testdata/examples/catalog', `--migrate=${v}`, '-o=yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('---\n')).toBe(true);
  });

  it('refuses a boolean value Go would not parse, as a usage error', async () => {
    const r = await runOpm(['render', 'testdata/examples/catalog', '--migrate=yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('invalid argument "yes" for "--migrate" flag');
  });

  it('leaves everything after -- alone', async () => {
    const r = await runOpm(['render', '-o=yaml', '--', 'testdata/examples/catalog']);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('---\n')).toBe(true);
  });

  it('reads --flag=false as given when the flag has a --no- form (a default that depends on it)', () => {
    const program = new Command();
    program
      .command('serve')
      .option('--cache-enforce-integrity')
      .addOption(new Option('--no-cache-enforce-integrity').hideHelp());
    expect(pflagArgs(program, ['serve', '--cache-enforce-integrity=false'])).toEqual([
      'serve',
      '--no-cache-enforce-integrity',
    ]);
    expect(pflagArgs(program, ['serve', '--cache-enforce-integrity=1'])).toEqual([
      'serve',
      '--cache-enforce-integrity',
    ]);
    program.commands[0]?.action(() => undefined);
    program.parse(['serve', '--no-cache-enforce-integrity'], { from: 'user' });
    expect(program.commands[0]?.opts()).toEqual({ cacheEnforceIntegrity: false });
  });
});
