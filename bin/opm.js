#!/usr/bin/env sh
':' //; unset OPM_TS_NODE_EXTRA_CA_CERTS; [ -z "${NODE_EXTRA_CA_CERTS-}" ] || { export OPM_TS_NODE_EXTRA_CA_CERTS="$NODE_EXTRA_CA_CERTS"; unset NODE_EXTRA_CA_CERTS; }; opm_ts_v8='--max-semi-space-size=4 --max-inlined-bytecode-size-cumulative=300 --no-allocation-site-pretenuring --initial-old-space-size=32 --interrupt-budget=270336'; case "${1-}" in version|help|--help|-h|init|generate|completion) opm_ts_v8=;; serve) opm_ts_v8='--max-semi-space-size=1 --max-inlined-bytecode-size-cumulative=300'; [ -n "${MALLOC_TRIM_THRESHOLD_+set}" ] || export MALLOC_TRIM_THRESHOLD_=131072;; render) opm_ts_b=; opm_ts_s=1; for opm_ts_a; do if [ -n "$opm_ts_s" ]; then opm_ts_s=; elif [ -d "$opm_ts_a/manifests" ]; then opm_ts_b=1; elif [ -e "$opm_ts_a" ]; then opm_ts_b=; break; else case "$opm_ts_a" in */*|*:*) opm_ts_b=; break;; esac; fi; done; [ -z "$opm_ts_b" ] || opm_ts_v8=;; esac; exec node $opm_ts_v8 "$0" "$@"
// The two lines above are a POSIX shell script when this file runs as a program (`opm`, npm's
// link to it) and a string and a comment to JavaScript. The shell hands NODE_EXTRA_CA_CERTS to
// Node.js under another name: Node.js 20 reads and parses every root certificate at start-up when
// that variable is set, before any JavaScript runs, which alone takes longer than the reference
// opm's whole `version` (nodejs/node#40524). It is put back below at once, for child
// processes, and the registry client adds those certificates itself when it opens a TLS
// connection (src/oci/transport.ts). The shell also gives Node.js a young generation of 4 MiB per
// semi-space instead of 16 (opm_ts_v8): the reader's short-lived strings and objects are collected
// sooner, which lowers the peak by 10-40 MiB on 12-46 MB catalogs for the same CPU time; and a
// smaller budget of inlined bytecode per optimised function: the YAML reader's functions were
// optimised several times over with each other inlined, and compiling took a fifth of a render's
// CPU time (3-7% less CPU time on 12-14 MB catalogs, docs/performance.md); and no pretenuring:
// once many of the reader's objects outlive a young collection (a document being read when it
// runs), V8 would allocate them in the old generation from then on, where they stay, dead, until
// the next full collection (render's peak 10-12 MiB lower on a catalog of many mid-sized files,
// for no more CPU time, docs/performance.md); and an old generation that starts at 32 MiB, so that
// V8 does not run a full collection at 6.5 MB of heap, before the catalog is read (0.94-0.99 of
// render's CPU time, docs/performance.md); and an interrupt budget 4 times V8's (bytecode a
// function runs before TurboFan optimises it): in a run of a few hundred milliseconds, optimising
// the reader's functions early cost more than it saved (validate 0.78-0.91, render 0.92-0.99 of the
// CPU time at one core on 12-56 MB catalogs, docs/performance.md). Any V8 flag
// also makes V8 refuse the code cache Node.js ships for its own modules, which are then compiled
// from source at every start (about 10 ms of CPU, a sixth of `opm render <bundle dir>`), so commands
// that never read a catalog start without it: version, help, init, generate, completion, and render
// whose arguments name bundle directories (a `manifests` folder inside) and nothing else that exists
// or looks like an image reference (docs/performance.md). The flag changes no output, so a wrong
// guess costs time or memory, never a difference. `serve`, a process that stays up and whose
// resident memory is what a catalog pod is sized by, gets a young generation of 1 MiB per
// semi-space (what it allocates per call dies young either way, and its load costs the same CPU
// time), and glibc's trim threshold fixed at 128 KiB (MALLOC_TRIM_THRESHOLD_, unless set): freed
// native memory at the top of the heap goes back to the system instead of staying with the process;
// together 9-12 MiB less resident on the corpus catalog (docs/performance.md, "Serving").
// scripts/bundle.js makes a code cache of the command line for each of these starts (catalog
// commands, `serve`, none; V8 refuses a cache made under other flags). `node bin/opm.js` skips the shell lines and works as
// well (with the cache made without flags).
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
