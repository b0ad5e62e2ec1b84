// needs-build: it starts `bin/opm.js serve` (dist/opm.cjs) on caches that do not match their catalog.
/**
 * A catalog whose files were rewritten after its serve cache was built (what a tool that filters
 * `/configs` without rebuilding `/tmp/cache` leaves in a catalog image): with integrity not asked
 * for on the command line, `serve --cache-dir` serves the catalog as it now is, with one warning
 * line, rebuilding the cache when it can write it and from the catalog's files when it cannot;
 * `--cache-enforce-integrity=true` keeps opm's fatal error (docs/compatibility.md, row S17).
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OPM, registryClient, startServe } from './client.js';
import { probe } from './probe.js';
import { PATIENCE_MS } from '../patience.js';

const catalog = path.resolve('testdata/serve/mixed/catalog');
const customSchemas = [{ schema: 'acme.note', packageName: 'alpha-op' }];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-stale-cache-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const run = (args: string[]) =>
  spawnSync(process.execPath, [OPM, 'serve', ...args, '-t', '/dev/null'], {
    encoding: 'utf8',
    timeout: PATIENCE_MS,
  });
const warnings = (stderr: string): string[] => stderr.split('\n').filter((l) => l.includes('level=warning'));

/** A copy of the fixture with its cache built, then one of its files rewritten. */
function staleCatalog(name: string): { configs: string; cache: string } {
  const configs = path.join(tmp, name, 'configs');
  const cache = path.join(tmp, name, 'cache');
  cpSync(catalog, configs, { recursive: true });
  const built = run([configs, '--cache-dir', cache, '--cache-only']);
  expect(built.status, built.stderr).toBe(0);
  const file = path.join(configs, 'alpha.json');
  writeFileSync(file, `${readFileSync(file, 'utf8')}{"schema":"acme.note","package":"alpha-op","n":7}\n`);
  return { configs, cache };
}

/** What `serve` of `configs` answers, and its stderr once it stopped (which it must do cleanly). */
async function served(
  configs: string,
  opts: Parameters<typeof startServe>[1] = {},
): Promise<{ answers: Record<string, unknown>; stderr: string }> {
  const s = await startServe(configs, opts);
  const c = registryClient(s.port);
  let answers: Record<string, unknown>;
  try {
    answers = await probe(c, { customSchemas });
  } finally {
    c.close();
    expect(await s.stop()).toBe(0);
  }
  return { answers, stderr: s.stderr() };
}

/** What the catalog as it now is answers, served without a cache. */
const answersOf = async (configs: string): Promise<Record<string, unknown>> =>
  (await served(configs)).answers;

/** The cache's files and their bytes. */
function snapshot(cache: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(cache, { recursive: true, encoding: 'utf8' }).sort()) {
    const p = path.join(cache, f);
    if (statSync(p).isFile()) out[f] = readFileSync(p).toString('base64');
  }
  return out;
}

describe('serve --cache-dir on a cache that does not match its catalog', () => {
  it('refused with opm’s fatal when --cache-enforce-integrity=true is given', () => {
    const { configs, cache } = staleCatalog('explicit');
    const refused = run([configs, '--cache-dir', cache, '-p', '0', '--cache-enforce-integrity=true']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      /level=fatal msg="integrity check failed: cache requires rebuild: cache reports digest as \\"[0-9a-f]{16}\\", but computed digest is \\"[0-9a-f]{16}\\""\n$/,
    );
    // The bare flag is the same request.
    const bare = run([configs, '--cache-dir', cache, '-p', '0', '--cache-enforce-integrity']);
    expect(bare.status).toBe(1);
    expect(bare.stderr).toContain('level=fatal msg="integrity check failed: cache requires rebuild');
  });

  it('by default: served as the catalog now is, one warning, the cache rebuilt', async () => {
    const { configs, cache } = staleCatalog('default');
    const expected = await answersOf(configs);
    expect(JSON.stringify(expected).includes('"n":{"numberValue":7}')).toBe(true);
    const s = await served(configs, { extra: ['--cache-dir', cache] });
    expect(s.answers).toEqual(expected);
    const lines = warnings(s.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /level=warning msg="cache does not match the catalog: rebuilding it from the catalog" cache=\S+ configs=\S+ hint="rebuild the cache whenever the catalog changes \(opm serve \S+ --cache-dir \S+ --cache-only\); --cache-enforce-integrity=true makes this fatal" reason="cache requires rebuild: cache reports digest as \\"[0-9a-f]{16}\\", but computed digest is \\"[0-9a-f]{16}\\""$/,
    );
    // The rebuilt cache is current: the next start, enforcing, takes it.
    const current = run([configs, '--cache-dir', cache, '--cache-only', '--cache-enforce-integrity=true']);
    expect(current.status, current.stderr).toBe(0);
  });

  it('by default, a cache directory it cannot write: served from the files, the cache left as it was', async () => {
    const { configs, cache } = staleCatalog('read-only');
    const expected = await answersOf(configs);
    const before = snapshot(cache);
    // As in a catalog image: the cache built by root, served by user 1001. Root writes anywhere,
    // so root runs the server as 1001; anyone else takes the write permission away.
    const root = process.getuid?.() === 0;
    let binary: string | undefined;
    if (root) {
      for (const d of [tmp, path.join(tmp, 'read-only')]) chmodSync(d, 0o755);
      binary = path.join(tmp, 'as-1001.sh');
      writeFileSync(
        binary,
        `#!/bin/sh\nexec setpriv --reuid=1001 --regid=1001 --clear-groups ${process.execPath} ${OPM} "$@"\n`,
        { mode: 0o755 },
      );
    } else {
      for (const d of ['', 'pogreb.v1', 'pogreb.v1/db']) chmodSync(path.join(cache, d), 0o555);
    }
    const extra = ['--cache-dir', cache];
    const s = await served(configs, { extra, ...(binary === undefined ? {} : { binary }) });
    expect(s.answers).toEqual(expected);
    if (!root) for (const d of ['', 'pogreb.v1', 'pogreb.v1/db']) chmodSync(path.join(cache, d), 0o755);
    const lines = warnings(s.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      'level=warning msg="cache does not match the catalog and cannot be written: serving the catalog from its files"',
    );
    expect(snapshot(cache)).toEqual(before);
  });

  it('by default, an empty cache directory: built, served, one warning', async () => {
    const cache = path.join(tmp, 'empty-cache');
    const s = await startServe(catalog, { extra: ['--cache-dir', cache] });
    expect(await s.stop()).toBe(0);
    const lines = warnings(s.stderr());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('level=warning msg="cache is empty: rebuilding it from the catalog"');
    const current = run([catalog, '--cache-dir', cache, '--cache-only', '--cache-enforce-integrity=true']);
    expect(current.status, current.stderr).toBe(0);
  });
});
