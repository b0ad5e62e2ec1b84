// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
// bench: pulls the corpus from real registries and measures it; `npm run test:bench` runs it.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type Fixture } from './fixture.js';
import { BUNDLE_LABELS, buildImage, pushImage, type BuiltImage } from './image-builder.js';
import { bundleDir, tempDir } from './helpers.js';
import { requireTools } from './tools.js';

/**
 * Timings of the pull path, printed for the record (nothing here asserts a duration): a cold pull
 * against `skopeo copy` of the same image into a directory, and a warm pull from the cache in a
 * fresh Node process, start-up included.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let fx: Fixture;
let tmp: ReturnType<typeof tempDir>;
let img: BuiltImage;
let ref: string;
let built: string;

const ms = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;

beforeAll(async () => {
  requireTools('skopeo');
  tmp = tempDir('opm-pull-bench-');
  fx = await startFixture();
  img = await buildImage({
    layers: [{ dir: bundleDir('kube-green', '0.7.1') }],
    labels: BUNDLE_LABELS('kube-green'),
  });
  await pushImage(img, { url: fx.plain.url, repo: 'bench/kube-green', tag: 'v0.7.1' });
  ref = `${fx.plain.host}/bench/kube-green:v0.7.1`;
  // Compile just the client (and what it imports) so a plain `node` process can run it.
  built = path.join(tmp.dir, 'js');
  execFileSync(
    path.join(repoRoot, 'node_modules', '.bin', 'tsc'),
    [
      '--outDir',
      built,
      '--rootDir',
      path.join(repoRoot, 'src'),
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--skipLibCheck',
      '--types',
      'node',
      path.join(repoRoot, 'src', 'oci', 'registry-client.ts'),
    ],
    { stdio: 'pipe' },
  );
  // Resolve undici and friends from the project's node_modules.
  writeFileSync(path.join(built, 'package.json'), '{"type":"module"}');
});

afterAll(async () => {
  // Unassigned when beforeAll failed before reaching them.
  await (fx as Fixture | undefined)?.stop();
  (tmp as ReturnType<typeof tempDir> | undefined)?.remove();
});

function pullInNewProcess(
  image: string,
  cacheDir: string,
  workDir: string,
): { wall: number; out: string; phases: string } {
  const script = [
    'const t0 = performance.now();',
    `const { RegistryClient } = await import(${JSON.stringify(path.join(built, 'oci', 'registry-client.js'))});`,
    'const t1 = performance.now();',
    `const c = new RegistryClient({ skipTlsVerify: false, useHttp: true, cacheDir: ${JSON.stringify(cacheDir)}, workDir: ${JSON.stringify(workDir)}, certDirs: [], configRoot: ${JSON.stringify(tmp.dir)}, env: { HOME: ${JSON.stringify(tmp.dir)} } });`,
    `const p = await c.pull(${JSON.stringify(image)});`,
    'const t2 = performance.now();',
    `process.stdout.write(p.digest + ' ' + Object.keys(p.labels).length);`,
    'await p.release(); await c.close();',
    'process.stderr.write(`boot ${t0.toFixed(0)} import ${(t1 - t0).toFixed(0)} pull ${(t2 - t1).toFixed(0)}`);',
  ].join('\n');
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, NODE_PATH: path.join(repoRoot, 'node_modules') },
  });
  const wall = ms(t0);
  if (r.status !== 0) throw new Error(`pull process failed: ${r.stderr}`);
  return { wall, out: r.stdout, phases: r.stderr };
}

describe('pull timings', () => {
  it('cold pull vs skopeo copy, and a warm pull in a fresh process', () => {
    // node_modules lookup walks up from the compiled files, so link the project's.
    const nm = path.join(tmp.dir, 'node_modules');
    if (!existsSync(nm)) execFileSync('ln', ['-s', path.join(repoRoot, 'node_modules'), nm]);
    const rounds = 3;
    const skopeo: number[] = [];
    const cold: number[] = [];
    const warm: number[] = [];
    const phases: string[] = [];
    const warmDigest: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const dest = path.join(tmp.dir, `skopeo-${i}`);
      let t0 = process.hrtime.bigint();
      execFileSync('skopeo', ['copy', '-q', '--src-tls-verify=false', `docker://${ref}`, `dir:${dest}`], {
        stdio: 'pipe',
      });
      skopeo.push(ms(t0));
      expect(readdirSync(dest)).toContain('manifest.json');

      const cacheDir = path.join(tmp.dir, `cache-${i}`);
      const workDir = path.join(tmp.dir, `work-${i}`);
      mkdirSync(workDir, { recursive: true });
      t0 = process.hrtime.bigint();
      const c = pullInNewProcess(ref, cacheDir, workDir);
      cold.push(c.wall);
      expect(c.out.split(' ')[0]).toBe(img.top.digest);
      const w = pullInNewProcess(ref, cacheDir, workDir);
      warm.push(w.wall);
      const d = pullInNewProcess(ref.replace(/:[^:/]+$/, `@${img.top.digest}`), cacheDir, workDir);
      warmDigest.push(d.wall);
      expect(d.out).toBe(c.out);
      phases.push(`cold: ${c.phases}; warm: ${w.phases}; warm by digest: ${d.phases}`);
      expect(w.out).toBe(c.out);
      expect(readdirSync(workDir)).toEqual([]);
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    console.log(
      `pull bench (${ref}, ${img.blobs.size - 1} blobs): skopeo copy ${median(skopeo).toFixed(0)} ms, ` +
        `cold pull+unpack ${median(cold).toFixed(0)} ms (ratio ${(median(cold) / median(skopeo)).toFixed(2)}), ` +
        `warm pull+unpack ${median(warm).toFixed(0)} ms (fresh node process, start-up included), by digest ${median(warmDigest).toFixed(0)} ms; ms per phase: ${phases.join(' | ')}`,
    );
  });
});
