// Run by `npm run build` after tsc: bundles the command line (dist/cli/main.js and what it imports)
// into dist/bundle/, one file per lazily loaded command, so that each run loads a few files instead
// of a hundred modules — start-up time is most of a cached `opm render`. Dependencies stay external:
// they are installed beside the package and some (ajv's runtime for the precompiled validators)
// are required by path.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
await build({
  entryPoints: [path.join(root, 'dist', 'cli', 'main.js')],
  outdir: path.join(root, 'dist', 'bundle'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
