// `npm run docs:graph`: the README's picture of an upgrade graph, drawn by the built command line
// from the fixture catalog testdata/graph/several-channels (our own data: several channels, skips,
// skipRange, a deprecated bundle and channel). A test holds it equal to what the code draws now.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const catalog = path.join('testdata', 'graph', 'several-channels', 'catalog');
const svg = execFileSync(process.execPath, ['bin/opm.js', 'alpha', 'render-graph', catalog, '-o', 'svg'], {
  cwd: root,
  encoding: 'utf8',
});
const out = path.join(root, 'docs', 'images', 'upgrade-graph.svg');
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, svg);
process.stdout.write(`${path.relative(root, out)}\n`);
