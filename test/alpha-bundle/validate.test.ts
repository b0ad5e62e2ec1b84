// needs-registry: a plain-HTTP registry on 127.0.0.1 (docker-registry) holds the bundle images
// `opm alpha bundle validate`: each mutated bundle of testdata/alpha-bundle-validate/ gives its
// expected verdict (the reference opm's, test/reference/alpha-bundle-validate.test.ts compares them);
// `-b none` honours --use-http; `-b docker|podman` runs the engine as opm does (pull, create REF "",
// cp ID:/. DIR, rm ID), recorded by a script of that name first in PATH that records its argv and
// prints a container id for `create` — it unpacks nothing, so the checks find no folders; and
// `unpack` makes the same content checks.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { startPlainRegistry, type RegistryProcess } from '../registry/fixture.js';
import { buildImage, pushImage } from '../registry/image-builder.js';
import { scenarios, verdictText } from './validate-scenarios.js';

let tmp: string;
let registry: RegistryProcess;
beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'opm-bundle-validate-'));
  registry = await startPlainRegistry(tmp, 'bundles');
});
afterAll(async () => {
  await registry.stop();
  rmSync(tmp, { recursive: true, force: true });
});

async function push(repo: string, dir: string): Promise<string> {
  await pushImage(await buildImage({ layers: [{ dir }], labels: {} }), {
    url: registry.url,
    repo,
    tag: 'v1',
  });
  return `${registry.host}/${repo}:v1`;
}

let runs = 0;
async function validate(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stderr: string }> {
  const dir = path.join(tmp, `run-${++runs}`);
  mkdirSync(dir);
  return runOpm(['alpha', 'bundle', 'validate', ...args], {
    cwd: dir,
    env: { HOME: dir, OLM_CACHE_DIR: path.join(dir, '.cache'), ...env },
    configRoot: dir,
  });
}

describe('alpha bundle validate -b none --use-http: the expected verdict of each mutated bundle', () => {
  it.each(scenarios().map((s) => [s.name, s] as const))('%s', async (name, s) => {
    const image = await push(`scenario/${name}`, s.bundle);
    const r = await validate(['-t', image, '-b', 'none', '--use-http', ...s.args]);
    expect(r.stderr.startsWith('Command "validate" is deprecated, ')).toBe(true);
    expect(verdictText(r.stderr, r.code, [])).toBe(readFileSync(s.expectedFile, 'utf8'));
    expect(r.code).toBe(name === 'valid' || readFileSync(s.expectedFile, 'utf8').endsWith('\nok\n') ? 0 : 1);
  });
});

describe('alpha bundle validate -b docker|podman: the engine run as opm runs it', () => {
  let bin: string;
  beforeAll(() => {
    bin = path.join(tmp, 'bin');
    mkdirSync(bin);
    for (const tool of ['docker', 'podman']) {
      const script = path.join(bin, tool);
      writeFileSync(
        script,
        [
          '#!/bin/sh',
          // One line per call: its arguments, each in brackets (an empty one shows as []).
          'for a in "$@"; do printf "[%s]" "$a"; done >> "$RECORD"',
          'echo >> "$RECORD"',
          '[ "$1" = create ] && echo 0123456789ab',
          '[ "$1" = pull ] && [ -n "$FAIL_PULL" ] && { echo "no such image"; exit 3; }',
          'exit 0',
          '',
        ].join('\n'),
      );
      chmodSync(script, 0o755);
    }
  });

  it.each(['docker', 'podman'])('-b %s: pull, create, cp into a temporary folder, rm', async (tool) => {
    const record = path.join(tmp, `${tool}.record`);
    const r = await validate(['-t', 'quay.io/example/bundle:v1', '-b', tool], {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      RECORD: record,
    });
    const calls = readFileSync(record, 'utf8').trim().split('\n');
    expect(calls[0]).toBe('[pull][quay.io/example/bundle:v1]');
    expect(calls[1]).toBe('[create][quay.io/example/bundle:v1][]');
    expect(calls[2]).toMatch(/^\[cp\]\[0123456789ab:\/\.\]\[\/.+\/bundle-[^/\]]+\]$/);
    expect(calls[3]).toBe('[rm][0123456789ab]');
    expect(calls).toHaveLength(4);
    expect(r.stderr).toContain(
      `level=info msg="running ${bin}/${tool} pull quay.io/example/bundle:v1" container-tool=${tool}`,
    );
    expect(r.stderr).toContain(
      `level=debug msg="[${tool} create quay.io/example/bundle:v1 ]" container-tool=${tool}`,
    );
    // The script unpacks nothing.
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /\nerror: Bundle validation errors: Unable to locate manifests directory,Unable to locate metadata directory\n$/,
    );
  });

  it('a failed pull: the engine output and status, in opm words', async () => {
    const r = await validate(['-t', 'quay.io/example/bundle:v1', '-b', 'docker'], {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      RECORD: path.join(tmp, 'fail.record'),
      FAIL_PULL: '1',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\nerror: error pulling image: no such image\\n\. exit status 3\n$/);
  });

  it('an unknown builder is refused in opm words, with the ones there are', async () => {
    const r = await validate(['-t', 'quay.io/example/bundle:v1', '-b', 'buildah']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /error: unrecognized container-tool option: buildah \(use one of none, docker, podman\)\n$/,
    );
  });
});

describe('alpha bundle unpack: the same content checks', () => {
  it('an unsupported kind fails the unpack, nothing written', async () => {
    const s = scenarios().find((x) => x.name === 'unsupported-kind');
    if (s === undefined) throw new Error('scenario unsupported-kind missing');
    const image = await push('unpack/unsupported-kind', s.bundle);
    const dir = path.join(tmp, 'unpack-1');
    mkdirSync(dir);
    const r = await runOpm(['alpha', 'bundle', 'unpack', image, '--use-http', '-o', 'out'], {
      cwd: dir,
      env: { HOME: dir, OLM_CACHE_DIR: path.join(dir, '.cache') },
      configRoot: dir,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: bundle content validation failed: Bundle validation errors: Deployment is not supported type for registryV1 bundle: manifests/extra.deployment.yaml\n',
    );
  });

  it('a valid bundle unpacks', async () => {
    const s = scenarios().find((x) => x.name === 'valid');
    if (s === undefined) throw new Error('scenario valid missing');
    const image = await push('unpack/valid', s.bundle);
    const dir = path.join(tmp, 'unpack-2');
    mkdirSync(dir);
    const r = await runOpm(['alpha', 'bundle', 'unpack', image, '--use-http', '-o', 'out'], {
      cwd: dir,
      env: { HOME: dir, OLM_CACHE_DIR: path.join(dir, '.cache') },
      configRoot: dir,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(dir, 'out/metadata/annotations.yaml'), 'utf8')).toContain(
      'example-operator',
    );
  });
});
