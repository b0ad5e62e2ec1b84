// Run by `npm run bench` after `npm run build`: bundles bench/run.ts, bench/child.ts and the
// standalone entries (registry, graph, user) into
// bench/out/*.mjs. Imports of src/ are not compiled again: they point at the modules of the product's
// build in dist/ (what dist/opm.cjs is bundled from), so the bench measures the code users install.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const src = path.join(root, 'src') + path.sep;
const out = path.join(root, 'bench', 'out');

const useProductBuild = {
  name: 'use-product-build',
  setup(b) {
    b.onResolve({ filter: /\/src\// }, (args) => {
      const target = path.resolve(args.resolveDir, args.path);
      if (!target.startsWith(src)) return undefined;
      const built = path.join(root, 'dist', path.relative(src, target));
      if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build first`);
      return {
        path: path
          .relative(out, built)
          .split(path.sep)
          .join('/')
          .replace(/^(?!\.)/, './'),
        external: true,
      };
    });
  },
};

await build({
  entryPoints: {
    run: path.join(root, 'bench', 'run.ts'),
    child: path.join(root, 'bench', 'child.ts'),
    registry: path.join(root, 'bench', 'registry-main.ts'),
    graph: path.join(root, 'bench', 'graph-main.ts'),
    user: path.join(root, 'bench', 'user-main.ts'),
    'serve-cache': path.join(root, 'bench', 'serve-cache-main.ts'),
    serve: path.join(root, 'bench', 'serve.ts'),
    compose: path.join(root, 'bench', 'compose-main.ts'),
    image: path.join(root, 'bench', 'image-main.ts'),
    'serve-ready': path.join(root, 'bench', 'serve-ready.ts'),
    'image-serve': path.join(root, 'bench', 'image-serve.ts'),
    sqlite: path.join(root, 'bench', 'sqlite.ts'),
  },
  outdir: out,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  format: 'esm',
  // Modules a row imports on demand (the graph layouts, the browser client) stay in chunks of their own.
  splitting: true,
  platform: 'node',
  target: 'node20',
  packages: 'external',
  plugins: [useProductBuild],
  logLevel: 'warning',
});

// The floor of `render -o json` (bench/floor-json.ts) as one CommonJS file with the product's modules
// inside it, so that it starts like a small program rather than through the ES module loader.
await build({
  entryPoints: [path.join(root, 'bench', 'floor-json.ts')],
  outfile: path.join(out, 'floor-json.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  plugins: [
    {
      name: 'product-build-inside',
      setup(b) {
        b.onResolve({ filter: /\/src\// }, (args) => {
          const target = path.resolve(args.resolveDir, args.path);
          return target.startsWith(src)
            ? { path: path.join(root, 'dist', path.relative(src, target)) }
            : undefined;
        });
      },
    },
  ],
  define: { 'import.meta.url': '__floorModuleUrl' },
  banner: { js: "const __floorModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
});
