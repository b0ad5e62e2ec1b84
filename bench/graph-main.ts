// `node bench/out/graph.mjs` (after `npm run build && node scripts/build-bench.js`): the graph rows alone.
import { printRows } from './registry.js';
import { graphBench } from './graph.js';

printRows(graphBench());
