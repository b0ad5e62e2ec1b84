#!/usr/bin/env node
// The `opm` command. npm's link (or its Windows shim) and `node bin/opm.js` run this same file the
// same way: nothing here depends on how Node.js was started.
//
// V8_FLAGS are set first, before any other code is compiled, identically for every command: each
// gains at least a tenth of a figure users see (docs/performance.md, "Start-up"). The build makes the
// code caches the launcher loads under the same flags (scripts/build-code-cache.js reads them from
// this line): V8 refuses a cache made under other flags.
//
// CommonJS (see package.json here): requiring the launcher is cheaper than starting the ES module
// loader, and start-up is most of the time of a short command.
'use strict';
const V8_FLAGS = '--interrupt-budget=270336';
require('node:v8').setFlagsFromString(V8_FLAGS);

const path = require('node:path');

const dist = path.join(__dirname, '..', 'dist');
require(path.join(dist, 'launch.cjs'))
  .launch(path.join(dist, 'opm.cjs'))
  .catch((err) => {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 70;
  });
