// Run by `npm run build` after tsc: writes the JSON Schema validators, compiled ahead of time, next
// to the compiled schema module (dist/schema/), so `opm validate` does not compile them at each run.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemasDir } from '../dist/schema/schema.js';
import { STANDALONE_FILE, standaloneSource } from '../dist/schema/standalone.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
writeFileSync(path.join(root, 'dist', 'schema', STANDALONE_FILE), standaloneSource(schemasDir()));
