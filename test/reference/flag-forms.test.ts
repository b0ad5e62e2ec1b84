// opm's flag syntax (Go's pflag) through both tools: every form gives the same output as the
// reference opm, on our own fixtures and the corpus's opm-testdata.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusPath } from '../corpus.js';
import { runOpm } from '../run-cli.js';
import { reference } from './reference-opm.js';

const example = 'testdata/examples/catalog';
const kubeGreen = 'testdata/templates/duplicate-keys/template.yaml';

describe('flag forms: same output as the reference', () => {
  const list = corpusPath('opm-testdata', 'list-index');
  it.each(
    [
      ['init', 'p', '-c=alpha'],
      ['init', 'p', '-calpha'],
      ['init', 'p', '-c', 'alpha'],
      ['init', 'p', '--default-channel=alpha'],
      ['init', 'p', '--default-channel', 'alpha', '-o=yaml'],
      ['init', 'p', '-c='],
      ['init', 'p', '-c==a'],
      ['render', example, '-o=yaml'],
      ['render', example, '-oyaml'],
      ['render', example, '--output=yaml'],
      ['render', example, '--migrate=true', '-o', 'yaml'],
      ['render', example, '--migrate=false'],
      ['render', example, '--migrate=1'],
      ['render', example, '--migrate=F'],
      ['render', example, '--migrate-level=bundle-object-to-csv-metadata'],
      ['--use-http=false', 'render', example],
      ['render', example, '--skip-tls-verify=true'],
      ['render', '-o', 'yaml', '--', example],
      ['alpha', 'render-graph', list, '-p=foo'],
      ['alpha', 'render-graph', list, '--package-name=foo', '--minimum-edge=foo.v0.2.0'],
      ['alpha', 'render-template', 'basic', kubeGreen, '-o=yaml'],
      ['alpha', 'render-template', 'basic', kubeGreen, '--output=json'],
      [
        'alpha',
        'convert-template',
        'basic',
        path.join(example, 'example-operator', 'catalog.yaml'),
        '-o=yaml',
      ],
    ].map((args) => [args.join(' '), args] as const),
  )('%s', async (_name, args) => {
    const a = await runOpm(args);
    const b = spawnSync(reference, args, { encoding: 'utf8' });
    expect(a.code).toBe(b.status);
    expect(a.stdout).toBe(b.stdout);
  });

  it.each([['-o=json'], ['--output=json'], ['-ojson']])(
    'validate %s: same verdict and document',
    async (flag) => {
      // opm-ts adds `tool`, `base`, `counts` and `findings` to opm's document (compatibility row
      // 16); the rest is opm's.
      const args = ['validate', example, flag];
      const a = await runOpm(args);
      const b = spawnSync(reference, args, { encoding: 'utf8' });
      expect(a.code).toBe(b.status);
      const doc = (s: string): unknown => {
        const {
          findings: _f,
          tool: _t,
          base: _b,
          counts: _c,
          ...rest
        } = JSON.parse(s) as Record<string, unknown>;
        return rest;
      };
      expect(doc(a.stdout)).toEqual(doc(b.stdout));
    },
  );

  it.each([['--migrate=yes'], ['--migrate='], ['-o=toml']])('%s is refused by both', async (flag) => {
    const args = ['render', example, flag];
    const a = await runOpm(args);
    const b = spawnSync(reference, args, { encoding: 'utf8' });
    expect(b.status).not.toBe(0);
    expect(a.code).not.toBe(0);
    expect(a.stdout).toBe('');
  });

  it.each([
    [['-i=quay.io/foo/opm:v1', '-l=a=b', '-l', 'c=d']],
    [['--base-image=quay.io/foo/opm:v1', '--builder-image=quay.io/foo/opm:v2', '--extra-labels=a=b,c=d']],
    [['-b=quay.io/foo/opm:v2', '-lk=v']],
  ])('generate dockerfile %j', async (flags) => {
    const texts: string[] = [];
    for (const run of [
      async (args: string[]) => (await runOpm(args)).code,
      (args: string[]) => Promise.resolve(spawnSync(reference, args).status),
    ]) {
      const tmp = mkdtempSync(path.join(tmpdir(), 'opm-flags-'));
      cpSync(example, path.join(tmp, 'bar'), { recursive: true });
      expect(await run(['generate', 'dockerfile', path.join(tmp, 'bar'), ...flags])).toBe(0);
      texts.push(readFileSync(path.join(tmp, 'bar.Dockerfile'), 'utf8'));
    }
    expect(texts[0]).toBe(texts[1]);
  });

  it('migrate -o=yaml writes the same files', async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'opm-flags-migrate-'));
    expect((await runOpm(['migrate', example, path.join(tmp, 'a'), '-o=yaml'])).code).toBe(0);
    expect(spawnSync(reference, ['migrate', example, path.join(tmp, 'b'), '-o=yaml']).status).toBe(0);
    const files = (d: string): string[] => readdirSync(d, { recursive: true, encoding: 'utf8' }).sort();
    expect(files(path.join(tmp, 'a'))).toEqual(files(path.join(tmp, 'b')));
    for (const f of files(path.join(tmp, 'a')).filter((f) => f.endsWith('.yaml'))) {
      expect(readFileSync(path.join(tmp, 'a', f), 'utf8')).toBe(readFileSync(path.join(tmp, 'b', f), 'utf8'));
    }
  });
});
