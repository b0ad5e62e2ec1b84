#!/usr/bin/env node
// The `opm` command. npm's link (or its Windows shim) and `node bin/opm.js` run this same file the
// same way: nothing here depends on how Node.js was started.
//
// V8_FLAGS are set first, before any other code is compiled, identically for every command, each for
// a tenth or more of a figure users see (docs/performance.md, "Start-up"): V8's interrupt budget 4
// times its default, so that TurboFan compiles a function only once it has run long enough to pay
// for it (`render <bundle dir>`: 0.89 of the CPU time), and a young generation that keeps its first
// size (1 MiB per semi-space) instead of growing to 16 (`serve`: 0.78 of the resident memory;
// `render -o json`: 0.88 of the peak). The build makes the code caches the launcher loads under the
// same flags (scripts/build-code-cache.js reads them from this line): V8 refuses a cache made under
// other flags.
//
// CommonJS (see package.json here): requiring the launcher is cheaper than starting the ES module
// loader, and start-up is most of the time of a short command.
'use strict';
const V8_FLAGS = '--interrupt-budget=270336 --semi-space-growth-factor=1';
require('node:v8').setFlagsFromString(V8_FLAGS);

const path = require('node:path');

const dist = path.join(__dirname, '..', 'dist');
require(path.join(dist, 'launch.cjs'))
  .launch(path.join(dist, 'opm.cjs'))
  .catch((err) => {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 70;
  });
