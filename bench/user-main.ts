// `npm run bench:user`: the rows of bench/user.ts alone (opm-ts against the reference opm as users
// measure them). Needs a reference opm ($OPM_REFERENCE or .tools/bin/opm-reference).
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDir, projectRoot } from '../test/corpus.js';
import { referenceBinary } from './reference.js';
import { printUserBench, userBench } from './user.js';

const outDir = path.dirname(fileURLToPath(import.meta.url));
const root = projectRoot();
const reference = referenceBinary(root);
if (reference === undefined) {
  process.stderr.write('no reference opm: set OPM_REFERENCE or run scripts/build-reference-opm.sh\n');
  process.exit(1);
}
if (corpusDir === undefined)
  process.stderr.write('*** corpus not found: only generated catalogs are measured ***\n');
const loadAtStart = loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');
const result = userBench({ root, reference, corpus: corpusDir, outDir });
printUserBench(result, loadAtStart);
writeFileSync(path.join(outDir, 'user-results.json'), JSON.stringify(result, null, 2) + '\n');
