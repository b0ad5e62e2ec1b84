#!/usr/bin/env node
// CommonJS (see package.json here): requiring the launcher is cheaper than starting the ES module
// loader, and start-up is most of the time of a short command.
'use strict';
const path = require('node:path');

const dist = path.join(__dirname, '..', 'dist');
require(path.join(dist, 'launch.cjs'))
  .launch(path.join(dist, 'opm.cjs'))
  .catch((err) => {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 70;
  });
