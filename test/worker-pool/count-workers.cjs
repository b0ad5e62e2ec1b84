// Preloaded (node --require) by tests that run the built command line: says on stderr, as the
// process exits, how many worker threads it started.
'use strict';
let started = 0;
process.on('worker', () => {
  started++;
});
process.on('exit', () => {
  process.stderr.write(`worker threads started: ${started}\n`);
});
