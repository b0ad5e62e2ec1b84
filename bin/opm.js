#!/usr/bin/env sh
':' //; unset OPM_TS_NODE_EXTRA_CA_CERTS; [ -z "${NODE_EXTRA_CA_CERTS-}" ] || { export OPM_TS_NODE_EXTRA_CA_CERTS="$NODE_EXTRA_CA_CERTS"; unset NODE_EXTRA_CA_CERTS; }; exec node --max-semi-space-size=4 "$0" "$@"
// The two lines above are a POSIX shell script when this file runs as a program (`opm`, npm's
// link to it) and a string and a comment to JavaScript. The shell hands NODE_EXTRA_CA_CERTS to
// Node.js under another name: Node.js 20 reads and parses every root certificate at start-up when
// that variable is set, before any JavaScript runs, which alone takes longer than the reference
// opm's whole `version` (nodejs/node#40524). It is put back below at once, for child
// processes, and the registry client adds those certificates itself when it opens a TLS
// connection (src/oci/transport.ts). The shell also gives Node.js a young generation of 4 MiB per
// semi-space instead of 16: the reader's short-lived strings and objects are collected sooner, which
// lowers the peak by 10-40 MiB on 12-46 MB catalogs for the same CPU time (docs/performance.md);
// scripts/bundle.js makes the shipped code cache under the same flags, which V8 requires of it.
// `node bin/opm.js` skips the shell lines and works as well (with a code cache of its own).
//
// CommonJS (see package.json here): requiring the launcher is cheaper than starting the ES module
// loader, and start-up is most of the time of a short command.
'use strict';
const carried = process.env.OPM_TS_NODE_EXTRA_CA_CERTS;
if (carried !== undefined) {
  process.env.NODE_EXTRA_CA_CERTS = carried;
  delete process.env.OPM_TS_NODE_EXTRA_CA_CERTS;
}

const path = require('node:path');

const dist = path.join(__dirname, '..', 'dist');
require(path.join(dist, 'launch.cjs'))
  .launch(path.join(dist, 'opm.cjs'))
  .catch((err) => {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 70;
  });
