import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_OPM_IMAGE,
  generateDockerfile,
} from '../../src/action/generate-dockerfile/generate-dockerfile.js';
import { runOpm } from '../run-cli.js';

const fixtures = path.resolve('testdata/generate-dockerfile');
const exampleCatalog = path.resolve('testdata/examples/catalog');

/** A temp dir holding the example catalog as `<tmp>/bar`, the name opm's own golden uses. */
function catalogDir(): string {
  const tmp = mkdtempSync(path.join(tmpdir(), 'opm-gen-'));
  const dir = path.join(tmp, 'bar');
  cpSync(exampleCatalog, dir, { recursive: true });
  return dir;
}

const cases = readdirSync(fixtures).filter((c) => existsSync(path.join(fixtures, c, 'args.json')));

describe('generate dockerfile', () => {
  it.each(cases)('writes the expected Dockerfile: %s', async (name) => {
    const args = JSON.parse(readFileSync(path.join(fixtures, name, 'args.json'), 'utf8')) as string[];
    const dir = catalogDir();
    const r = await runOpm(['generate', 'dockerfile', dir, ...args]);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(0);
    const text = readFileSync(`${dir}.Dockerfile`, 'utf8');
    await expect(text).toMatchFileSnapshot(path.join(fixtures, name, 'expected.Dockerfile'));
  });

  it('accepts the generate-dockerfile spelling with the same result', async () => {
    const a = catalogDir();
    const b = catalogDir();
    expect((await runOpm(['generate', 'dockerfile', a, '-l', 'k=v'])).code).toBe(0);
    expect((await runOpm(['generate-dockerfile', b, '-l', 'k=v'])).code).toBe(0);
    expect(readFileSync(`${b}.Dockerfile`, 'utf8')).toBe(readFileSync(`${a}.Dockerfile`, 'utf8'));
  });

  const errorCases = JSON.parse(readFileSync(path.join(fixtures, 'errors', 'cases.json'), 'utf8')) as {
    name: string;
    args: string[];
    stderr: string;
    code?: number;
  }[];
  it.each(errorCases)('fails without writing anything: $name', async ({ args, stderr, code }) => {
    const dir = catalogDir();
    const r = await runOpm(['generate', 'dockerfile', dir, ...args]);
    expect(r.code).toBe(code ?? 1);
    expect(r.stderr).toBe(stderr);
    expect(existsSync(`${dir}.Dockerfile`)).toBe(false);
  });

  it('refuses to overwrite an existing Dockerfile and leaves it as it was', async () => {
    const dir = catalogDir();
    writeFileSync(`${dir}.Dockerfile`, 'mine\n');
    const r = await runOpm(['generate', 'dockerfile', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: path "${dir}.Dockerfile": file already exists (remove it or move it away first)\n`,
    );
    expect(readFileSync(`${dir}.Dockerfile`, 'utf8')).toBe('mine\n');
  });

  it('rejects a path that is not a directory', async () => {
    const dir = catalogDir();
    const file = path.join(dir, 'example-operator', 'catalog.yaml');
    const r = await runOpm(['generate', 'dockerfile', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: provided root path "${file}" is not a directory\n`);
    expect(existsSync(`${file}.Dockerfile`)).toBe(false);
  });

  it('rejects a missing directory', async () => {
    const missing = path.join(catalogDir(), 'nope');
    const r = await runOpm(['generate', 'dockerfile', missing]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: provided root path "${missing}": no such file or directory\n`);
    expect(existsSync(`${missing}.Dockerfile`)).toBe(false);
  });
});

describe('generate dockerfile on an invalid catalog', () => {
  function invalidCatalog(): string {
    const tmp = mkdtempSync(path.join(tmpdir(), 'opm-gen-invalid-'));
    const dir = path.join(tmp, 'catalog');
    cpSync(path.join(fixtures, 'invalid-catalog', 'catalog'), dir, { recursive: true });
    return dir;
  }

  it('refuses to write, naming the file and line of the problem', async () => {
    const dir = invalidCatalog();
    const r = await runOpm(['generate', 'dockerfile', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: .*example\/catalog\.yaml:\d+: catalog ".*" is not valid: .*example\.v0\.2\.0.*\n$/,
    );
    expect(existsSync(`${dir}.Dockerfile`)).toBe(false);
  });

  it('writes anyway with --skip-validate', async () => {
    const dir = invalidCatalog();
    const r = await runOpm(['generate', 'dockerfile', dir, '--skip-validate']);
    expect(r.code).toBe(0);
    expect(existsSync(`${dir}.Dockerfile`)).toBe(true);
  });
});

describe('generateDockerfile as a library call', () => {
  const options = (dir: string) => ({
    fbcRootDir: dir,
    baseImage: DEFAULT_OPM_IMAGE,
    builderImage: DEFAULT_OPM_IMAGE,
    extraLabels: [],
  });

  it('validates the catalog before writing, as the command does', async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'opm-gen-lib-'));
    const dir = path.join(tmp, 'catalog');
    cpSync(path.join(fixtures, 'invalid-catalog', 'catalog'), dir, { recursive: true });
    await expect(generateDockerfile(options(dir))).rejects.toThrow(/is not valid: .*example\.v0\.2\.0/);
    expect(existsSync(`${dir}.Dockerfile`)).toBe(false);
    const plan = await generateDockerfile({ ...options(dir), skipValidate: true });
    expect(readFileSync(plan.file, 'utf8')).toBe(plan.text);
  });
});
