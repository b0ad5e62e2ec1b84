/**
 * `opm index export`: an index image's packages written as opm's package-manifest
 * ("appregistry") tree, as opm v1.73 writes it — per package a folder holding `package.yaml` and,
 * per bundle, a folder `<version>` with the `manifests/` of the bundle's image. The index image and
 * the bundle images are pulled by opm-ts's registry client (no container engine). The tree is made
 * in a staging folder (beside the download folder, or inside it when it exists) and moved into it
 * only when every bundle was exported: a failure leaves the download folder as it was.
 */
import { existsSync, statSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OpmError } from '../errors.js';
import type { ImageSource } from '../oci/image-source.js';
import { SqliteDatabase } from '../sqlite/database.js';
import { exportPlan, type ExportPlan } from '../sqlite/export-plan.js';
import { Limiter } from '../util/limit.js';
import { compareUtf8 } from '../go/utf8.js';
import { pullIndexDatabase } from './index-add.js';
import { commitTree, copyManifests, packageYaml } from './index-export-tree.js';

/** How many bundle images are pulled at once (opm pulls up to ten). */
const PULLS_AT_ONCE = 4;

export interface IndexExportOptions {
  index: string;
  /** Packages to export; every package of the index when empty. */
  packages: string[];
  /** The download folder, relative to `cwd`. */
  downloadFolder: string;
  cwd: string;
  imageSource: ImageSource;
  /** Told the plan once the database is read, before any bundle is pulled. */
  onPlan?: (plan: ExportPlan) => void;
  signal?: AbortSignal;
}

export interface IndexExportResult {
  plan: ExportPlan;
  /** The package folders written (`<download folder>/<package>`, as given), in the plan's order. */
  packageDirs: string[];
}

/** A name that is one folder inside its parent (a database could hold `../x`). */
const isFolderName = (n: string): boolean => n !== '' && n !== '.' && n !== '..' && !/[/\\\0]/.test(n);

function readPlan(database: string, packages: string[]): ExportPlan {
  const db = SqliteDatabase.open(database);
  try {
    return exportPlan(db, packages);
  } finally {
    db.close();
  }
}

export async function indexExport(o: IndexExportOptions): Promise<IndexExportResult> {
  const sig = o.signal === undefined ? {} : { signal: o.signal };
  const work = mkdtempSync(path.join(os.tmpdir(), 'opm-index-export-'));
  let staging: string | undefined;
  /** The first parent folder of the download folder this run made, removed on failure. */
  let madeParent: string | undefined;
  let done = false;
  try {
    const database = path.join(work, 'index.db');
    await pullIndexDatabase(o.index, o.imageSource, database, o.signal);
    const plan = readPlan(database, o.packages);
    if (plan.unknown.length > 0)
      throw new OpmError(`index ${o.index} has no package ${plan.unknown.join(', ')}: nothing was exported`, {
        hint: '`opm render <index image> -o json | jq -r \'select(.schema=="olm.package").name\'` lists its packages',
      });
    const unsafe = [
      ...plan.packages
        .map((p) => p.name)
        .filter((n) => !isFolderName(n))
        .map((n) => `package name ${JSON.stringify(n)}`),
      ...plan.bundles
        .filter((b) => !isFolderName(b.dir))
        .map((b) => `version ${JSON.stringify(b.dir)} of bundle ${b.csvName}`),
    ];
    if (unsafe.length > 0)
      throw new OpmError(`${unsafe.join(', ')} cannot name a folder: nothing was exported`);
    if (plan.problems.length > 0) throw new OpmError(`${plan.problems.join('; ')}: nothing was exported`);
    o.onPlan?.(plan);

    const dest = path.resolve(o.cwd, o.downloadFolder);
    // Staged inside the download folder when it exists (its parent may not be writable, `-f .`),
    // else beside it, on the same file system either way so that the tree is moved, not copied.
    const exists = existsSync(dest);
    if (exists && !statSync(dest).isDirectory())
      throw new OpmError(`the download folder ${o.downloadFolder} exists and is not a folder`);
    if (!exists) madeParent = mkdirSync(path.dirname(dest), { recursive: true });
    staging = mkdtempSync(
      exists
        ? path.join(dest, '.opm-export-')
        : path.join(path.dirname(dest), `.${path.basename(dest)}.export-`),
    );
    const tree = path.join(staging, 'tree');
    mkdirSync(tree);

    // Package folders first, made as opm makes them (0777 less the umask).
    for (const p of plan.packages) mkdirSync(path.join(tree, p.name));
    const limiter = new Limiter(PULLS_AT_ONCE);
    const failures: string[] = [];
    await Promise.all(
      plan.bundles.map((b) =>
        limiter.run(async () => {
          try {
            const img = await o.imageSource.pull(b.image, sig);
            try {
              copyManifests(img, path.join(tree, b.pkg, b.dir));
            } finally {
              await img.release();
            }
          } catch (err) {
            failures.push(`exporting bundle image ${b.image} failed: ${(err as Error).message}`);
          }
        }),
      ),
    );
    // Every pull has ended (none writes into the staging folder any more) before it is removed.
    o.signal?.throwIfAborted();
    if (failures.length > 0)
      throw new OpmError(`${failures.sort(compareUtf8).join('; ')}; nothing was exported`);

    for (const p of plan.packages) writeFileSync(path.join(tree, p.name, 'package.yaml'), packageYaml(p));
    commitTree(tree, dest);
    done = true;
    return { plan, packageDirs: plan.packages.map((p) => path.join(o.downloadFolder, p.name)) };
  } finally {
    rmSync(work, { recursive: true, force: true });
    if (staging !== undefined) rmSync(staging, { recursive: true, force: true });
    if (!done && madeParent !== undefined) rmSync(madeParent, { recursive: true, force: true });
  }
}
