// `npm run build:if-stale`: `npm run build` only when dist/ is missing or older than anything it is
// built from (tests aside), so that commands run from a clone (`npm run example`, the test projects
// that run the product) do not rebuild a build that is up to date. dist/opm.cjs.cache is the last
// file the build writes, so its time stands for the whole of dist/.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const INPUTS = ['src', 'schemas', 'scripts', 'bin', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];
const OUTPUT = path.join(root, 'dist', 'opm.cjs.cache');

function newestInput() {
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

if (!existsSync(OUTPUT) || statSync(OUTPUT).mtimeMs < newestInput()) {
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  process.exitCode = r.status ?? 1;
}
