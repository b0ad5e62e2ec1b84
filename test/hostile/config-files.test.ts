// Hostile configuration files, through the command line (in process): a device that never ends
// (/dev/zero), nesting 5,000 levels deep (YAML and JSON), and a YAML alias bomb, given as a filter
// --config, a template, a --bundle-dirs map, registries.conf and .opm-validate.yaml. Each is one
// `error:` line naming the file (and the line when there is one) and saying what is wrong.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm, type CliResult } from '../run-cli.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'opm-hostile-config-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const catalog = path.resolve('testdata/examples/catalog');

const DEEP = 5000;
const inputs = {
  deepYaml: `packages:\n  - name: ${'['.repeat(DEEP)}${']'.repeat(DEEP)}\n`,
  deepBlock: `packages:\n${'- '.repeat(DEEP)}x\n`,
  deepJson: `{"packages": [{"name": ${'['.repeat(DEEP)}${']'.repeat(DEEP)}}]}\n`,
  bomb: [
    'a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]',
    ...Array.from(
      { length: 8 },
      (_, i) => `a${i + 1}: &a${i + 1} [${Array<string>(9).fill(`*a${i}`).join(', ')}]`,
    ),
    'packages: *a8',
    '',
  ].join('\n'),
};
type Input = keyof typeof inputs;

const files = {} as Record<Input, string>;
beforeAll(() => {
  if (!existsSync('/dev/zero')) throw new Error('these tests need /dev/zero (Linux, macOS)');
  for (const [name, text] of Object.entries(inputs)) {
    const file = path.join(tmp, `${name}.${name === 'deepJson' ? 'json' : 'yaml'}`);
    writeFileSync(file, text);
    files[name as Input] = file;
  }
});

const TOO_LARGE =
  'more than 16 MiB, too large for a configuration file (a device or a pipe that does not end?)';
const TOO_DEEP = 'nested more than 100 levels deep';
const ALIASES = 'document contains excessive aliasing';

/** One `error:` line, nothing on stdout, no stack trace; returns the line. */
function oneError(r: CliResult): string {
  expect(r.stdout).toBe('');
  expect(r.code).toBe(1);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(r.stderr).toMatch(/^error: /);
  expect(r.stderr).not.toMatch(/stack|\n\s+at /i);
  return lines[0] as string;
}

describe('filter --config', () => {
  const filter = (config: string): Promise<CliResult> => runOpm(['filter', catalog, '--config', config]);

  it('/dev/zero', async () => {
    expect(oneError(await filter('/dev/zero'))).toBe(`error: cannot read --config "/dev/zero": ${TOO_LARGE}`);
  });

  it.each(['deepYaml', 'deepBlock', 'deepJson'] as const)('%s', async (input) => {
    const line = input === 'deepJson' ? 1 : 2;
    expect(oneError(await filter(files[input]))).toMatch(
      new RegExp(`^error: ${files[input]}:${line}: ${TOO_DEEP} \\(`),
    );
  });

  it('an alias bomb', async () => {
    expect(oneError(await filter(files.bomb))).toMatch(new RegExp(`^error: ${files.bomb}:2: ${ALIASES} \\(`));
  });
});

describe('alpha render-template', () => {
  const render = (file: string): Promise<CliResult> => runOpm(['alpha', 'render-template', 'basic', file]);

  it('/dev/zero', async () => {
    expect(oneError(await render('/dev/zero'))).toBe(`error: unable to open "/dev/zero": ${TOO_LARGE}`);
  });

  it('standard input that goes past the cap', async () => {
    const r = await runOpm(['alpha', 'render-template', 'basic', '-'], {
      stdin: 'x'.repeat(16 * 1024 * 1024 + 1),
    });
    expect(oneError(r)).toContain(TOO_LARGE);
  });

  it.each(['deepYaml', 'deepBlock', 'deepJson'] as const)('%s', async (input) => {
    const line = input === 'deepJson' ? 1 : 2;
    expect(oneError(await render(files[input]))).toMatch(
      new RegExp(`^error: ${files[input]}:${line}: rendering template: ${TOO_DEEP} \\(`),
    );
  });

  it('an alias bomb', async () => {
    expect(oneError(await render(files.bomb))).toBe(`error: ${files.bomb}:1: rendering template: ${ALIASES}`);
  });

  it('--bundle-dirs', async () => {
    const template = path.join(tmp, 'template.yaml');
    writeFileSync(template, 'schema: olm.template.basic\nentries: []\n');
    const withMap = (map: string): Promise<CliResult> =>
      runOpm(['alpha', 'render-template', 'basic', template, '--bundle-dirs', map]);
    expect(oneError(await withMap('/dev/zero'))).toContain(
      `/dev/zero: unable to read bundle directory map: ${TOO_LARGE}`,
    );
    expect(oneError(await withMap(files.deepYaml))).toContain(`${files.deepYaml}:2: ${TOO_DEEP}`);
    expect(oneError(await withMap(files.bomb))).toContain(ALIASES);
  });
});

describe('registries.conf', () => {
  const pull = (conf: string): Promise<CliResult> =>
    runOpm(['render', '127.0.0.1:1/foo:bar'], { env: { CONTAINERS_REGISTRIES_CONF: conf, HOME: tmp } });

  it('/dev/zero', async () => {
    expect(oneError(await pull('/dev/zero'))).toContain(
      `/dev/zero: cannot read registries configuration: ${TOO_LARGE}`,
    );
  });

  it('nesting 5,000 levels deep (TOML arrays and inline tables)', async () => {
    for (const [name, text] of [
      ['arrays.conf', `x = ${'['.repeat(DEEP)}${']'.repeat(DEEP)}\n`],
      ['tables.conf', `x = ${'{a = '.repeat(DEEP)}1${'}'.repeat(DEEP)}\n`],
    ] as const) {
      const conf = path.join(tmp, name);
      writeFileSync(conf, text);
      expect(oneError(await pull(conf))).toContain(
        `${conf}:1: invalid TOML: document contains excessively nested structures`,
      );
    }
  });
  // TOML has no aliases.
});

describe('.opm-validate.yaml', () => {
  it('/dev/zero given with --config', async () => {
    expect(oneError(await runOpm(['validate', catalog, '--config', '/dev/zero']))).toBe(
      `error: /dev/zero: cannot read the configuration file: ${TOO_LARGE}`,
    );
  });

  it.each(['deepYaml', 'deepBlock', 'bomb'] as const)('%s, found beside the catalog', async (input) => {
    const dir = path.join(tmp, `validate-${input}`);
    mkdirSync(path.join(dir, 'catalog', 'foo'), { recursive: true });
    writeFileSync(path.join(dir, 'catalog', 'foo', 'catalog.yaml'), 'schema: olm.package\nname: foo\n');
    const config = path.join(dir, '.opm-validate.yaml');
    writeFileSync(config, inputs[input].replace('packages', 'rules'));
    expect(oneError(await runOpm(['validate', path.join(dir, 'catalog')]))).toMatch(
      new RegExp(`^error: ${config}:2: ${input === 'bomb' ? ALIASES : TOO_DEEP} \\(`),
    );
  });
});
