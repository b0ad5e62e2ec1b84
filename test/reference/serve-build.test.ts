// needs-build: it runs `bin/opm.js serve --cache-only` beside the reference opm's.
// Building the on-disk cache (`serve --cache-dir DIR --cache-only`, the catalog image's build step)
// ends as the reference's does on every catalog of the start-up comparison: the same fatal line and
// exit status, or a cache (the digest walk runs before the catalog is loaded, and a walk that fails
// must still be reported in the load's words).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OPM } from '../serve/client.js';
import { reference } from './reference-opm.js';

const work = mkdtempSync(path.join(tmpdir(), 'opm-serve-build-ref-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;

/** The fatal line without its time (or `built`), and the exit status. */
function build(catalog: string, binary?: string): Promise<string> {
  const cacheDir = path.join(work, `c-${++n}`);
  const args = ['serve', catalog, '--cache-dir', cacheDir, '--cache-only', '-t', '/dev/null'];
  const child =
    binary === undefined
      ? spawn(process.execPath, [OPM, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
      : spawn(binary, [...args, '--pprof-addr='], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (err += d));
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      const fatal = /level=fatal msg=.*/.exec(err)?.[0];
      const built = existsSync(path.join(cacheDir, 'pogreb.v1', 'digest'));
      resolve(`${fatal ?? (built ? 'built' : `no cache: ${err}`)} (exit ${String(code ?? signal)})`);
    });
  });
}

const cases = [
  ...readdirSync('testdata/validate').map((c) => path.join('testdata/validate', c, 'catalog')),
  ...readdirSync('testdata/serve').map((c) => path.join('testdata/serve', c, 'catalog')),
].filter(
  // Several packages fail there: which one opm reports depends on its workers (compatibility row S5).
  (c) => existsSync(c) && !c.includes('/multi-file/') && !c.includes('/channel-order-in-tree/'),
);

describe('opm serve --cache-only: the same outcome as the reference opm (a cache, or the same fatal line)', () => {
  it.each(cases)('%s', async (catalog) => {
    expect(await build(catalog)).toBe(await build(catalog, reference));
  });
});
