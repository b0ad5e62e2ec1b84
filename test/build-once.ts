// Set-up of the test projects that run the product (bin/opm.js over dist/): `npm run build` when
// dist/ is missing or older than anything it is built from (scripts/build-if-stale.js decides, as
// for `npm run example`), so that `vitest run` alone is enough.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export default function setup(): void {
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-if-stale.js')], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`npm run build failed (exit ${String(r.status)})`);
}
