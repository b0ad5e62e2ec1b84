// The least a JavaScript program can do to turn a YAML catalog into JSON, as a process of its own:
// read each file (walk order), parse its blobs with opm-ts's YAML reader and write each one with V8's
// native JSON.stringify, to standard output. No checks, no model, no ordering, no Go number or escape
// rules: what is left of `opm render -o json` when everything but reading, parsing and writing is
// taken away. The reference rows run it beside `render -o json` (bench/reference.ts).
//   node bench/out/floor-json.cjs DIR
import { readFileSync, writeSync } from 'node:fs';
import { parseCatalogBytes } from '../src/declcfg/parse.js';
import { listFiles } from './catalog-files.js';

for (const file of listFiles(process.argv[2] ?? '.')) {
  const parts: string[] = [];
  for (const blob of parseCatalogBytes(readFileSync(file)).blobs)
    parts.push(JSON.stringify(blob.value, null, 4), '\n');
  writeSync(1, parts.join(''));
}
