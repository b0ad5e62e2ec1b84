// A real docker-registry on 127.0.0.1 holding bundle images, for the suites that compare what the
// reference opm and opm-ts make of them: one scratch folder as HOME and cache of both tools, the
// bundles' images pushed under `bundles/<pkg>:<version>`, and the reference run in that folder.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { reference } from './reference-opm.js';
import { runOpm } from '../run-cli.js';
import { startFixture, type Fixture } from '../registry/fixture.js';
import { buildImage, buildOpmStandIn, pushImage } from '../registry/image-builder.js';
import { bundleLabels, writeBundle, type BundleSpec } from '../sqlite/bundles.js';

export interface RefRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface BundleRegistry {
  /** The scratch folder, made at once; removed by stop(). */
  tmp: string;
  /** The started registry; throws before start(). */
  registry: () => Fixture;
  /** Both tools' environment: HOME and the cache in the scratch folder. */
  env: () => NodeJS.ProcessEnv;
  /** Where push() put a bundle's image. */
  imageOf: (b: BundleSpec) => string;
  start: () => Promise<void>;
  /** Builds each bundle's image and pushes it to imageOf(b). */
  push: (specs: BundleSpec[]) => Promise<void>;
  /** The reference opm in `cwd` (the scratch folder unless given). */
  opmRef: (args: string[], cwd?: string) => RefRun;
  /** `registry add` of the bundles' images to `db` over plain HTTP, then `flags`: either tool's argv. */
  addArgs: (db: string, bundles: BundleSpec[], flags?: string[]) => string[];
  /** A database made by the reference's `registry add`: one bundle at a time, or all in one call. */
  addAll: (db: string, specs: BundleSpec[], extra?: string[], together?: boolean) => void;
  /** The reference's `registry deprecatetruncate` of one bundle's image in `db`. */
  deprecateTruncate: (db: string, b: BundleSpec) => void;
  /** Pushes an opm stand-in as `base/opm:v1` for -i; gives its reference. */
  pushBase: () => Promise<string>;
  /**
   * Pushes an image holding `db` at /database/index.db as `repo:tag`, labelled as an index image
   * unless other labels are given; gives its reference.
   */
  pushIndex: (db: string, repo: string, tag?: string, labels?: Record<string, string>) => Promise<string>;
  /**
   * `args` run by one of the tools in a new folder (`dir`), with a toolRecorder's docker and podman
   * first on PATH; `log` is what the recorder wrote.
   */
  recorded: (
    side: 'ref' | 'ours',
    args: string[],
  ) => Promise<{ code: number; stderr: string; log: string; dir: string }>;
  stop: () => Promise<void>;
}

export function bundleRegistry(prefix: string): BundleRegistry {
  const tmp = mkdtempSync(path.join(tmpdir(), prefix));
  let fx: Fixture | undefined;
  const registry = (): Fixture => {
    if (fx === undefined) throw new Error('the registry fixture did not start');
    return fx;
  };
  const env = (): NodeJS.ProcessEnv => ({
    ...process.env,
    HOME: tmp,
    OLM_CACHE_DIR: path.join(tmp, 'cache'),
  });
  const imageOf = (b: BundleSpec): string =>
    `${registry().plain.host}/bundles/${b.pkg}:${b.tag ?? b.version}`;
  const opmRef = (args: string[], cwd = tmp, e = env()): RefRun => {
    const r = spawnSync(reference, args, { cwd, encoding: 'utf8', env: e, maxBuffer: 1 << 28 });
    return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  };
  return {
    tmp,
    registry,
    env,
    imageOf,
    opmRef,
    addArgs: (db, bundles, flags = []) => [
      'registry',
      'add',
      '-b',
      bundles.map(imageOf).join(','),
      '-d',
      db,
      '--use-http',
      ...flags,
    ],
    start: async () => {
      fx = await startFixture();
    },
    push: async (specs) => {
      for (const b of specs) {
        const dir = writeBundle(path.join(tmp, 'bundles'), b);
        const image = await buildImage({ layers: [{ dir }], labels: bundleLabels(b) });
        await pushImage(image, {
          url: registry().plain.url,
          repo: `bundles/${b.pkg}`,
          tag: b.tag ?? b.version,
        });
      }
    },
    addAll: (db, specs, extra = [], together = false) => {
      const batches = together ? [specs.map(imageOf).join(',')] : specs.map(imageOf);
      for (const images of batches) {
        const r = opmRef(['registry', 'add', '-b', images, '-d', db, '--use-http', ...extra]);
        if (r.code !== 0) throw new Error(`registry add ${images}: ${r.stderr}`);
      }
    },
    deprecateTruncate: (db, b) => {
      const r = opmRef(['registry', 'deprecatetruncate', '-b', imageOf(b), '-d', db, '--use-http']);
      if (r.code !== 0) throw new Error(`deprecatetruncate: ${r.stderr}`);
    },
    pushBase: async () => {
      const standIn = await buildOpmStandIn({ format: 'oci' });
      await pushImage(standIn, { url: registry().plain.url, repo: 'base/opm', tag: 'v1' });
      return `${registry().plain.host}/base/opm:v1`;
    },
    pushIndex: async (
      db,
      repo,
      tag = 'v1',
      labels = { 'operators.operatorframework.io.index.database.v1': '/database/index.db' },
    ) => {
      const index = await buildImage({
        layers: [
          {
            entries: [
              { name: 'database', type: 'directory' },
              { name: 'database/index.db', content: readFileSync(db) },
            ],
          },
        ],
        labels,
      });
      await pushImage(index, { url: registry().plain.url, repo, tag });
      return `${registry().plain.host}/${repo}:${tag}`;
    },
    recorded: async (side, args) => {
      const { bin, log } = toolRecorder(tmp);
      const dir = mkdtempSync(path.join(tmp, `tool-${side}-`));
      const e = { ...env(), PATH: `${bin}:${process.env.PATH ?? ''}` };
      const r = side === 'ref' ? opmRef(args, dir, e) : await runOpm(args, { cwd: dir, env: e });
      return { code: r.code, stderr: r.stderr, log: readFileSync(log, 'utf8'), dir };
    },
    stop: async () => {
      await fx?.stop();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * An index database's rows as `sqlite3 .dump` gives them, as a sorted set: opm inserts them in Go
 * map order, its channel entries' ids follow that order (left aside) and the migration's time varies.
 */
export function insertRows(db: string): string[] {
  const r = spawnSync('sqlite3', [db, '.dump'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout
    .split('\n')
    .filter((l) => l.startsWith('INSERT INTO') && !l.startsWith('INSERT INTO channel_entry'))
    .map((l) => l.replace(/'\d{4}-\d\d-\d\d \d\d:\d\d:\d\d'/, "'<time>'"))
    .sort();
}

/**
 * A recorder named docker and podman in a new folder under `parent`, for PATH: it writes the
 * arguments it was given and the Dockerfile they name to `log`, and succeeds.
 */
function toolRecorder(parent: string): { bin: string; log: string } {
  const bin = mkdtempSync(path.join(parent, 'bin-'));
  const log = path.join(bin, 'log');
  const script = `#!/bin/sh\nprintf '%s\\n' "$0" "$@" > ${log}\nwhile [ $# -gt 0 ]; do if [ "$1" = -f ]; then cat "$2" >> ${log}; fi; shift; done\n`;
  for (const tool of ['docker', 'podman']) {
    writeFileSync(path.join(bin, tool), script);
    chmodSync(path.join(bin, tool), 0o755);
  }
  return { bin, log };
}

/** A recorder's log with the names both tools make at random, and the recorder's folder, masked. */
export const normalToolLog = (text: string): string =>
  text
    .replace(/index_build_tmp[\w.-]+/g, 'index_build_tmp<N>')
    .replace(/index\.Dockerfile\d+/g, 'index.Dockerfile<N>')
    .replace(/^.*\/(docker|podman)$/m, '$1');
