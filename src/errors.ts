/**
 * The error family. Errors are few and typed; findings (validation results) are data, not errors.
 * The CLI turns these into one line on stderr and an exit code, in one place (src/cli/main.ts).
 */

/** Where in the input a problem sits. `file` is relative to the root the user named, POSIX-style. */
export interface SourcePosition {
  file: string;
  line?: number;
}

export interface OpmErrorOptions {
  /** Stable machine-readable code, e.g. `E_CATALOG_PARSE`. */
  code?: string;
  /** How to fix it, when known. Printed after the message. */
  hint?: string;
  /** The input position at fault. Printed before the message. */
  at?: SourcePosition;
  cause?: unknown;
}

/** A failure the user can act on: bad input, a missing file, a refused pull. Exit code 1. */
export class OpmError extends Error {
  readonly code: string;
  readonly hint: string | undefined;
  readonly at: SourcePosition | undefined;
  readonly exitCode: number = 1;

  constructor(message: string, options: OpmErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OpmError';
    this.code = options.code ?? 'E_OPM';
    this.hint = options.hint;
    this.at = options.at;
  }
}

/** Wrong command line: unknown flag, bad flag value, wrong number of arguments. Exit code 2. */
export class UsageError extends OpmError {
  override readonly exitCode = 2;
  constructor(message: string, options: OpmErrorOptions = {}) {
    super(message, { code: 'E_USAGE', ...options });
    this.name = 'UsageError';
  }
}

/** A bug in opm-ts itself. Printed with its stack. */
export class InternalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InternalError';
  }
}

/** `file:line`, or `file` when the line is unknown. */
export function positionText(at: SourcePosition): string {
  return at.line === undefined ? at.file : `${at.file}:${at.line}`;
}

/** `file:line: ` prefix for a position, or '' when there is none. */
export function formatPosition(at: SourcePosition | undefined): string {
  return at ? `${positionText(at)}: ` : '';
}

/** Prefix an error's message with context, keeping its type, position and hint. */
export function wrapError(context: string, err: unknown): OpmError {
  if (err instanceof OpmError) {
    const wrapped = new OpmError(`${context}: ${err.message}`, {
      code: err.code,
      ...(err.hint === undefined ? {} : { hint: err.hint }),
      ...(err.at === undefined ? {} : { at: err.at }),
      cause: err,
    });
    return wrapped;
  }
  if (err instanceof InternalError) throw err;
  const msg = err instanceof Error ? err.message : String(err);
  return new OpmError(`${context}: ${msg}`, { cause: err });
}
