/** Thrown by a command that has already reported its outcome and only needs an exit code. */
export class ExitCode extends Error {
  readonly code: number;
  constructor(code: number) {
    super(`exit ${code}`);
    this.code = code;
    this.name = 'ExitCode';
  }
}
