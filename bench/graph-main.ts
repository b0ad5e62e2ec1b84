// `node bench/out/graph.mjs` (after `npm run build && node scripts/build-bench.js`): the graph rows
// alone; with BENCH_GRAPH=lanes, only the rows of long lanes.
import { printRows } from './registry.js';
import { graphBench, laneBench } from './graph.js';

printRows(process.env.BENCH_GRAPH === 'lanes' ? laneBench() : graphBench());
