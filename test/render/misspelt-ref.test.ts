// A ref that names no existing path is pulled as an image, as opm does; when that pull fails and the
// ref could as well be a misspelt directory (no registry host, or no tag or digest), the one line
// says both. Docker Hub is sent to a closed port on 127.0.0.1 through registries.conf.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { freePort } from '../registry/tools.js';

let dir: string;
let env: NodeJS.ProcessEnv;
let dead: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'opm-misspelt-'));
  dead = `127.0.0.1:${await freePort()}`;
  const conf = path.join(dir, 'registries.conf');
  writeFileSync(
    conf,
    ['docker.io', 'quay.io'].map((p) => `[[registry]]\nprefix = "${p}"\nlocation = "${dead}"\n`).join(''),
  );
  env = { CONTAINERS_REGISTRIES_CONF: conf, HOME: dir, XDG_CACHE_HOME: path.join(dir, 'cache') };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('render of a ref that is neither a directory nor a pullable image', () => {
  it.each(['goood', 'catalog/fooo', 'quay.io/org/catalog'])(
    '%s: the pull error and no such directory',
    async (ref) => {
      const r = await runOpm(['render', ref], { env, cwd: dir });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      const lines = r.stderr.split('\n').filter((l) => l !== '');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(`^error: render reference "${ref}": failed to pull image .*ECONNREFUSED`),
      );
      expect(lines[0]).toContain(`(no such directory: ${ref}; `);
    },
  );

  it('a ref with a registry host and a tag is only an image', async () => {
    const r = await runOpm(['render', 'quay.io/org/catalog:v4.16'], { env, cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/failed to pull image .*ECONNREFUSED/);
    expect(r.stderr).not.toContain('no such directory');
  });
});
