// Set-up of the test projects that run the product (bin/opm.js over dist/): `npm run build` when
// dist/ is missing or older than anything it is built from (tests aside), so that `vitest run` alone is enough.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const INPUTS = ['src', 'schemas', 'scripts', 'bin', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];
const OUTPUT = path.join(root, 'dist', 'opm.cjs.cache');

function newestInput(): number {
  let newest = 0;
  for (const input of INPUTS) {
    const full = path.join(root, input);
    const st = statSync(full);
    const files = st.isDirectory()
      ? readdirSync(full, { recursive: true, encoding: 'utf8' })
          .filter((f) => !f.endsWith('.test.ts'))
          .map((f) => path.join(full, f))
      : [full];
    for (const f of files) newest = Math.max(newest, statSync(f).mtimeMs);
  }
  return newest;
}

export default function setup(): void {
  if (existsSync(OUTPUT) && statSync(OUTPUT).mtimeMs >= newestInput()) return;
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`npm run build failed (exit ${String(r.status)})`);
}
