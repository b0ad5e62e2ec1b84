/** Exit status of a process killed by SIGPIPE, as shells report it (and as opm ends). */
export const BROKEN_PIPE_STATUS = 141;

/** Thrown by a command that has already reported its outcome and only needs an exit code. */
export class ExitCode extends Error {
  readonly code: number;
  constructor(code: number) {
    super(`exit ${code}`);
    this.code = code;
    this.name = 'ExitCode';
  }
}

/**
 * A failure of a command whose failures exit with their own code (`diff` exits 2, as diff(1) does,
 * because 1 means "different"). main.ts reports `failure` as any other error, then exits with `code`
 * where the failure would have exited 1.
 */
export class FailureExitCode extends Error {
  readonly code: number;
  readonly failure: unknown;
  constructor(code: number, failure: unknown) {
    super(`exit ${code}`, { cause: failure });
    this.code = code;
    this.failure = failure;
    this.name = 'FailureExitCode';
  }
}
