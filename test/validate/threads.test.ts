// integration: every validate fixture on 3 threads, and the corpus catalog on 1, 2 and 4.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateCatalog, type ValidateOptions } from '../../src/action/validate/validate.js';
import {
  allProviders,
  checkShard,
  groupFiles,
  mergeShards,
  validateShards,
} from '../../src/action/validate/validate-shards.js';
import { sortFindings } from '../../src/findings.js';
import { walkCatalog } from '../../src/declcfg/load.js';
import { workerModule } from '../../src/util/worker-pool.js';
import { workersStartedBy } from '../worker-pool/workers-started.js';
import { fixtureOptions } from './fixture-options.js';
import { corpusPath, haveCorpus } from '../corpus.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../testdata/validate');
const cases = readdirSync(root).sort();

/** The fixture's options without `--with` (catalogs with others validate in one piece). */
function severitiesAndPolicies(dir: string): ValidateOptions {
  const { with: _others, cwd: _cwd, ...rest } = fixtureOptions(dir);
  return rest;
}

describe('validating on several threads', () => {
  it('groups files by top-level entry, largest group first, files in walk order', () => {
    const f = (rel: string, size: number) => ({ rel, abs: `/c/${rel}`, size });
    const groups = groupFiles([f('a/1.yaml', 5), f('b.yaml', 20), f('a/2.yaml', 10), f('c/x/3.json', 1)]);
    expect(groups.map((g) => g.files.map((x) => x.rel))).toEqual([
      ['b.yaml'],
      ['a/1.yaml', 'a/2.yaml'],
      ['c/x/3.json'],
    ]);
    expect(groups.map((g) => g.first)).toEqual([1, 0, 3]);
  });

  // Every validate fixture, passing or failing: the same result, findings and message, on 3 threads
  // as on one (policies and severities as the fixture sets them).
  it.each(cases)('%s gives the same result on 3 threads as on one', async (name) => {
    const dir = path.join(root, name, 'catalog');
    const opts = severitiesAndPolicies(path.join(root, name));
    const one = await validateCatalog(dir, { ...opts, threads: 1 });
    const many = await validateCatalog(dir, { ...opts, threads: 3, shardMinBytes: 0 });
    expect(many).toStrictEqual(one);
  });

  it('keeps the shards of a valid catalog, with dependencies judged against every shard', async () => {
    // Each top-level folder checked as a shard of its own (which folders one thread claims depends
    // on timing; here it is fixed): foo's requirements are met, or not, by bar in the other shard.
    for (const name of [
      'lint-dependency-deprecated-only',
      'lint-dependency-package-unsatisfied',
      'lint-dependency-package-unsatisfied-ok',
      'lint-dependency-gvk-unsatisfied-ok',
    ]) {
      const dir = path.join(root, name, 'catalog');
      const groups = groupFiles((await walkCatalog(dir)).files);
      expect(groups.length, name).toBe(2);
      const shards = await Promise.all(
        groups.map((g) => checkShard({ groups: [g], next: new SharedArrayBuffer(4), checks: {} })),
      );
      const merged = mergeShards(shards.map((s) => s.result));
      expect(merged, name).toBeDefined();
      const providers = allProviders(shards.map((s) => s.result));
      const findings = [...(merged?.findings ?? []), ...shards.flatMap((s) => s.dependencies(providers))];
      const whole = await validateCatalog(dir, { threads: 1 });
      expect(sortFindings(findings), name).toStrictEqual(whole.findings);
    }
  });

  it('fails, with no worker left running, when a worker cannot start', async () => {
    const dir = path.join(root, 'lint-dependency-deprecated-only', 'catalog');
    const groups = groupFiles((await walkCatalog(dir)).files);
    const missing = workerModule(new URL('./no-such-worker.js', import.meta.url));
    const { started } = await workersStartedBy(() =>
      expect(validateShards(groups, 3, {}, undefined, missing)).rejects.toThrow(/no-such-worker/),
    );
    expect(started).toBe(0);
  });

  it('runs the shards on worker threads', async () => {
    const dir = path.join(root, 'lint-dependency-deprecated-only', 'catalog');
    const { result: merged, started } = await workersStartedBy(async () =>
      validateShards(groupFiles((await walkCatalog(dir)).files), 2, {}),
    );
    expect(started).toBe(1);
    const whole = await validateCatalog(dir, { threads: 1 });
    expect(sortFindings([...(merged?.findings ?? [])])).toStrictEqual(whole.findings);
  });

  it('gives the shards up when a package is split between them or a check fails', async () => {
    // Each top-level folder checked as a shard of its own (which folders one thread claims depends
    // on timing; here it is fixed).
    for (const name of ['valid-package-across-folders', 'multi-file']) {
      const walked = await walkCatalog(path.join(root, name, 'catalog'));
      const groups = groupFiles(walked.files);
      expect(groups.length, name).toBeGreaterThan(1);
      const shards = await Promise.all(
        groups.map((g) => checkShard({ groups: [g], next: new SharedArrayBuffer(4), checks: {} })),
      );
      expect(mergeShards(shards.map((s) => s.result)), name).toBeUndefined();
    }
  });
});

describe.runIf(haveCorpus())('the corpus on several threads', () => {
  it('community-catalog-v4.21 validates the same on 1, 2 and 4 threads', async () => {
    const dir = corpusPath('community-catalog-v4.21');
    const one = await validateCatalog(dir, { threads: 1 });
    for (const threads of [2, 4]) {
      const walked = await walkCatalog(dir);
      expect(await validateShards(groupFiles(walked.files), threads, {})).toBeDefined();
      expect(await validateCatalog(dir, { threads, shardMinBytes: 0 })).toStrictEqual(one);
    }
  });
});
