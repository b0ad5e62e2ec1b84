/**
 * Cancellation in this thread: a render, a validation, a migration and a Dockerfile's validation of a
 * generated catalog, aborted mid-way, reject with the signal's reason at once (the work looks at the
 * signal only a few more times after it fired, far fewer than the files left), and leave nothing
 * written. A signal that never fires changes nothing of the result.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { render } from '../../src/action/render/render.js';
import { renderOutput } from '../../src/action/render/render-output.js';
import { validateCatalog } from '../../src/action/validate/validate.js';
import { migrate } from '../../src/action/migrate.js';
import { filterToDir } from '../../src/action/filter.js';
import { generateDockerfile } from '../../src/action/generate-dockerfile/generate-dockerfile.js';
import { OpmError } from '../../src/errors.js';
import type { ImageSource, PullOptions } from '../../src/oci/image-source.js';
import { entries, generateCatalog, signalFiringAt, type CountingSignal } from './generated.js';

const PACKAGES = 40;
let root: string;
let catalog: string;

beforeAll(() => {
  ({ root, catalog } = generateCatalog(PACKAGES, 30));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Run `work` with a signal that never fires: how often it looks, and its result. */
async function looksOfWholeRun<T>(
  work: (signal: AbortSignal) => Promise<T>,
): Promise<{ looks: number; value: T }> {
  const s = signalFiringAt(Number.POSITIVE_INFINITY);
  const value = await work(s.signal);
  return { looks: s.looks(), value };
}

/** `work` aborted at look `fireAt`: it rejects with the reason, having looked only a few times more. */
async function expectAbortedAt(
  fireAt: number,
  work: (signal: AbortSignal) => Promise<unknown>,
): Promise<CountingSignal> {
  const s = signalFiringAt(fireAt);
  await expect(work(s.signal)).rejects.toBe(s.reason);
  expect(s.firedAt()).toBe(fireAt);
  expect(s.looks() - fireAt).toBeLessThanOrEqual(4);
  return s;
}

const text = (chunks: Iterable<Uint8Array | string>): string =>
  [...chunks].map((c) => (typeof c === 'string' ? c : Buffer.from(c).toString('utf8'))).join('');

describe('aborting a render', () => {
  it('stops the whole-catalog load mid-way; a signal that never fires changes nothing', async () => {
    const plain = await render({ refs: [catalog], env: { OPM_THREADS: '1' } });
    const whole = await looksOfWholeRun((signal) =>
      render({ refs: [catalog], env: { OPM_THREADS: '1' }, signal }),
    );
    expect(whole.value).toStrictEqual(plain);
    expect(whole.looks).toBeGreaterThanOrEqual(PACKAGES);
    const mid = Math.floor(whole.looks / 2);
    await expectAbortedAt(mid, (signal) => render({ refs: [catalog], env: { OPM_THREADS: '1' }, signal }));
  });

  it('stops the file-by-file render mid-way, without falling back to the ordinary path', async () => {
    const opts = { refs: [catalog], threads: 1 };
    const plain = text(await renderOutput(opts, 'json'));
    const whole = await looksOfWholeRun(async (signal) =>
      text(await renderOutput({ ...opts, signal }, 'json')),
    );
    expect(whole.value).toBe(plain);
    expect(whole.looks).toBeGreaterThanOrEqual(PACKAGES);
    await expectAbortedAt(Math.floor(whole.looks / 2), (signal) => renderOutput({ ...opts, signal }, 'yaml'));
  });

  it('stops reading a bundle directory mid-way', async () => {
    const bundle = path.join(root, 'bundle');
    mkdirSync(path.join(bundle, 'manifests'), { recursive: true });
    mkdirSync(path.join(bundle, 'metadata'));
    writeFileSync(
      path.join(bundle, 'manifests', 'foo.csv.yaml'),
      'apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: foo.v0.1.0\nspec:\n  version: 0.1.0\n',
    );
    for (let i = 0; i < 20; i++) {
      writeFileSync(
        path.join(bundle, 'manifests', `config-${i}.yaml`),
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-${i}\n`,
      );
    }
    writeFileSync(
      path.join(bundle, 'metadata', 'annotations.yaml'),
      'annotations:\n  operators.operatorframework.io.bundle.package.v1: foo\n  operators.operatorframework.io.bundle.channels.v1: stable\n',
    );
    try {
      const whole = await looksOfWholeRun((signal) => render({ refs: [bundle], signal }));
      expect(whole.value.bundles.map((b) => b.name)).toEqual(['foo.v0.1.0']);
      expect(whole.looks).toBeGreaterThanOrEqual(20);
      await expectAbortedAt(Math.floor(whole.looks / 2), (signal) => render({ refs: [bundle], signal }));
    } finally {
      rmSync(bundle, { recursive: true });
    }
  });

  it('rejects with an AbortError when the signal has fired already', async () => {
    const signal = AbortSignal.abort();
    const err: unknown = await render({ refs: [catalog], signal }).catch((e: unknown) => e);
    expect(err).toBe(signal.reason);
    expect((err as Error).name).toBe('AbortError');
  });

  it('passes the signal to the image source, and an abort during a pull is not made a pull failure', async () => {
    const controller = new AbortController();
    const reason = new Error('client went away');
    const seen: (PullOptions | undefined)[] = [];
    const source: ImageSource = {
      pull(_ref: string, options?: PullOptions) {
        seen.push(options);
        controller.abort(reason);
        return Promise.reject(new OpmError('failed to pull image "example.com/catalog:1": stopped'));
      },
    };
    await expect(
      render({ refs: ['example.com/catalog:1'], imageSource: source, signal: controller.signal }),
    ).rejects.toBe(reason);
    expect(seen).toEqual([{ signal: controller.signal }]);
  });
});

describe('aborting a validation', () => {
  it('stops the load mid-way; a signal that never fires changes nothing', async () => {
    const plain = await validateCatalog(catalog, { threads: 1 });
    const whole = await looksOfWholeRun((signal) => validateCatalog(catalog, { threads: 1, signal }));
    expect(whole.value).toStrictEqual(plain);
    expect(whole.looks).toBeGreaterThanOrEqual(PACKAGES);
    await expectAbortedAt(Math.floor(whole.looks / 2), (signal) =>
      validateCatalog(catalog, { threads: 1, signal }),
    );
  });
});

describe('aborting a write', () => {
  it('migrate leaves no output directory and no temporary files, whether it stops loading or writing', async () => {
    const out = path.join(root, 'migrated');
    const run = (signal: AbortSignal): Promise<void> =>
      migrate({ ref: catalog, outputDir: out, format: 'yaml', env: { OPM_THREADS: '1' }, signal });
    const whole = await looksOfWholeRun(run);
    expect(entries(out)).toHaveLength(PACKAGES);
    rmSync(out, { recursive: true });
    // Mid-way through the load, before the last package is staged, and with every file staged.
    for (const fireAt of [Math.floor(whole.looks / 2), whole.looks - 1, whole.looks]) {
      await expectAbortedAt(fireAt, run);
      expect(existsSync(out)).toBe(false);
      expect(entries(root)).toEqual(['catalog']);
    }
  });

  it('filter to an existing empty directory leaves it empty', async () => {
    const out = path.join(root, 'filtered');
    const run = (signal: AbortSignal) =>
      filterToDir({ ref: catalog, outputDir: out, format: 'json', packages: ['pkg-001'], signal });
    const whole = await looksOfWholeRun(run);
    expect(entries(out)).toEqual(['pkg-001']);
    rmSync(out, { recursive: true });
    for (const fireAt of [Math.floor(whole.looks / 2), whole.looks]) {
      mkdirSync(out);
      await expectAbortedAt(fireAt, run);
      expect(entries(out)).toEqual([]);
      rmSync(out, { recursive: true });
    }
    expect(entries(root)).toEqual(['catalog']);
  });

  it('generate dockerfile stopped while validating writes no Dockerfile', async () => {
    const opts = {
      fbcRootDir: catalog,
      baseImage: 'quay.io/example/opm:latest',
      builderImage: 'quay.io/example/opm:latest',
      extraLabels: [],
    };
    const whole = await looksOfWholeRun((signal) => generateDockerfile({ ...opts, signal }));
    expect(existsSync(whole.value.file)).toBe(true);
    rmSync(whole.value.file);
    await expectAbortedAt(Math.floor(whole.looks / 2), (signal) => generateDockerfile({ ...opts, signal }));
    await expectAbortedAt(whole.looks, (signal) => generateDockerfile({ ...opts, signal }));
    expect(entries(root)).toEqual(['catalog']);
  });
});
