// needs-registry: a TLS registry on 127.0.0.1 holds the bundle images (the reference's `-b none`
// cannot use plain HTTP; it trusts the registry's certificate through SSL_CERT_FILE)
// needs-corpus: the images are built from every community-bundles directory
// `opm alpha bundle validate -b none` against the reference opm: the same verdict and messages on
// an image of each corpus bundle directory and of each mutated bundle of
// testdata/alpha-bundle-validate/ (whose expected.txt holds that verdict).
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { reference } from './reference-opm.js';
import { corpusPath } from '../corpus.js';
import { startTlsRegistry, type RegistryProcess } from '../registry/fixture.js';
import { buildImage, pushImage } from '../registry/image-builder.js';
import { scenarios, verdictText, withoutWarnings } from '../alpha-bundle/validate-scenarios.js';

let tmp: string;
let registry: RegistryProcess;
let ca: string;
beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'opm-bundle-validate-ref-'));
  ({ registry, ca } = await startTlsRegistry(tmp, 'bundles'));
}, 120_000);
afterAll(async () => {
  await registry.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** opm's temporary folder, in the paths it names (ours names them as in the image: row B12). */
const UNPACKED = [/\/tmp\/bundle-\d+\//g];

/**
 * Known differences (docs/compatibility.md): a YAML syntax error and a CEL compile error are worded
 * by each parser (row B14); both are cut after `yaml: ` / `Invalid CEL expression: `.
 */
const cutYamlError = (s: string): string =>
  s
    .replace(/(error converting YAML to JSON: yaml: ).*/g, '$1…')
    .replace(/(Invalid CEL expression: ).*/g, '$1…');

let runs = 0;
async function both(
  image: string,
  args: string[],
): Promise<{ ref: string; ours: string; oursWithWarnings: string }> {
  runs++;
  const dir = path.join(tmp, `run-${runs}`);
  mkdirSync(dir);
  const argv = ['alpha', 'bundle', 'validate', '-t', image, '-b', 'none', ...args];
  const r = spawnSync(reference, argv, {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, HOME: dir, SSL_CERT_FILE: ca },
  });
  const o = await runOpm(argv, {
    cwd: dir,
    env: { HOME: dir, NODE_EXTRA_CA_CERTS: ca, OLM_CACHE_DIR: path.join(dir, '.cache') },
    configRoot: dir,
  });
  return {
    ref: verdictText(r.stderr, r.status ?? -1, UNPACKED),
    ours: withoutWarnings(verdictText(o.stderr, o.code, UNPACKED)),
    oursWithWarnings: verdictText(o.stderr, o.code, UNPACKED),
  };
}

async function push(repo: string, dir: string): Promise<string> {
  const image = await buildImage({ layers: [{ dir }], labels: {} });
  await pushImage(image, { url: registry.url, repo, tag: 'v1', ca });
  return `${registry.host}/${repo}:v1`;
}

describe('alpha bundle validate: mutated bundles, as the reference opm', () => {
  it.each(scenarios().map((s) => [s.name, s] as const))(
    '%s: the same verdict and messages',
    async (name, s) => {
      const image = await push(`scenario/${name}`, s.bundle);
      const { ref, ours, oursWithWarnings } = await both(image, s.args);
      expect(cutYamlError(ours)).toBe(cutYamlError(ref));
      expect(readFileSync(s.expectedFile, 'utf8')).toBe(oursWithWarnings);
    },
  );
});

describe('alpha bundle validate: images of every corpus bundle directory, as the reference opm', () => {
  const root = corpusPath('community-bundles');
  const dirs = readdirSync(root)
    .flatMap((p) => readdirSync(path.join(root, p)).map((v) => path.join(root, p, v)))
    .filter((d) => existsSync(path.join(d, 'manifests')))
    .sort();
  it.each(dirs.map((d) => [path.relative(root, d), d]))('%s: the same verdict', async (name, dir) => {
    const image = await push(`corpus/${name.replace(/[^a-z0-9/]+/g, '-')}`, dir);
    const plain = await both(image, []);
    expect(cutYamlError(plain.ours)).toBe(cutYamlError(plain.ref));
    const optional = await both(image, ['-o', 'operatorhub,bundle-objects']);
    expect(cutYamlError(optional.ours)).toBe(cutYamlError(optional.ref));
  });
});

// Kept for writing expected.txt after a reviewed change: WRITE_EXPECTED=1 writes ours.
if (process.env.WRITE_EXPECTED === '1')
  describe('write expected verdicts', () => {
    it('writes', async () => {
      for (const s of scenarios()) {
        const image = await push(`expected/${s.name}`, s.bundle);
        writeFileSync(s.expectedFile, (await both(image, s.args)).oursWithWarnings);
      }
    }, 600_000);
  });

describe('alpha bundle validate -b docker|podman: the engine run as the reference runs it', () => {
  it.each(['docker', 'podman'])('-b %s: the same calls, log lines and verdict', async (tool) => {
    const bin = path.join(tmp, `bin-${tool}`);
    mkdirSync(bin);
    // Records each call's arguments (an empty one shows as []) and answers `create` with an id; it
    // unpacks nothing, so both find no folders.
    writeFileSync(
      path.join(bin, tool),
      [
        '#!/bin/sh',
        'for a in "$@"; do printf "[%s]" "$a"; done >> "$RECORD"',
        'echo >> "$RECORD"',
        '[ "$1" = create ] && echo 0123456789ab',
        'exit 0',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const args = ['alpha', 'bundle', 'validate', '-t', 'quay.io/example/bundle:v1', '-b', tool];
    const env = { PATH: `${bin}:${process.env.PATH ?? ''}` };
    const refRecord = path.join(tmp, `${tool}-ref.record`);
    const oursRecord = path.join(tmp, `${tool}-ours.record`);
    const r = spawnSync(reference, args, {
      encoding: 'utf8',
      env: { ...process.env, ...env, RECORD: refRecord },
    });
    const o = await runOpm(args, { env: { ...env, RECORD: oursRecord } });
    // Each names its own temporary folder.
    const calls = (f: string): string =>
      readFileSync(f, 'utf8').replace(/\/bundle-[^/\]\s"]+/g, '/bundle-<tmp>');
    expect(calls(oursRecord)).toBe(calls(refRecord));
    const lines = (stderr: string): string[] =>
      stderr
        .split('\n')
        .filter((l) => l.startsWith('time='))
        .map((l) => l.replace(/^time="[^"]*" /, '').replace(/\/bundle-[^/\]\s"]+/g, '/bundle-<tmp>'));
    expect(lines(o.stderr)).toEqual(lines(r.stderr));
    expect(o.code).toBe(r.status);
    expect(verdictText(o.stderr, o.code, [])).toBe(verdictText(r.stderr, r.status ?? -1, []));
  });
});
