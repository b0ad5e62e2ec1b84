// `npm run bench:compose`: the row of bench/compose.ts alone (opm compose against the
// documentation's script driving the reference opm). Needs a reference opm ($OPM_REFERENCE or
// .tools/bin/opm-reference), the corpus, docker-registry and yq. BENCH_RUNS=N pairs (default 5).
import { corpusDir, projectRoot } from '../test/corpus.js';
import { printReferenceRows, referenceBinary } from './reference.js';
import { composeBench } from './compose.js';

const root = projectRoot();
const reference = referenceBinary(root);
if (reference === undefined) {
  process.stderr.write('no reference opm: set OPM_REFERENCE or run scripts/build-reference-opm.sh\n');
  process.exit(1);
}
const runs = Number(process.env.BENCH_RUNS ?? 5);
printReferenceRows(await composeBench({ root, reference, corpus: corpusDir, runs }));
