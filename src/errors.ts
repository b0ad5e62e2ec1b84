/**
 * The error family. Errors are few and typed; findings (validation results) are data, not errors.
 * The CLI turns these into one line on stderr and an exit code, in one place (src/cli/main.ts).
 */

/** Where in the input a problem sits. `file` is relative to the root the user named, POSIX-style. */
export interface SourcePosition {
  file: string;
  line?: number;
}

/**
 * Why an image pull failed. Only the image client (src/oci/, behind `createImageSource` and every
 * command that pulls) sets codes: a program pulling images reacts to these differently (ask for
 * credentials, wait, retry, trust a CA), and the client itself branches on some of them (the
 * insecure-mode fallback to plain HTTP on `E_REGISTRY_TLS`; layers refused for their content,
 * `E_UNSAFE_LAYER` and `E_UNPACK_LIMIT`, are not blamed on the blob cache; `E_REGISTRIES_CONF` is
 * not prefixed with the image). Every other OpmError (bad catalog, template, flag value, file) has
 * no code: nothing branches on its kind, and its message, position and hint are the whole
 * contract. A new code belongs here only for a pull failure a caller can act on differently. Codes
 * are never printed.
 */
export type OpmErrorCode =
  /** Not a valid image reference. */
  | 'E_IMAGE_REFERENCE'
  /**
   * A registries.conf file cannot be read or parsed. The image client passes it on unchanged
   * instead of naming the image, since the file, not the image, is at fault.
   */
  | 'E_REGISTRIES_CONF'
  /** registries.conf blocks the registry the image would come from. */
  | 'E_REGISTRY_BLOCKED'
  /** Credentials missing, refused, or the token exchange failed (HTTP 401/403). */
  | 'E_REGISTRY_AUTH'
  /** The TLS handshake failed: an unknown CA, a bad certificate, or a host that does not speak TLS. */
  | 'E_REGISTRY_TLS'
  | 'E_REGISTRY_TIMEOUT'
  /** No connection: DNS, refused, reset. */
  | 'E_REGISTRY_UNREACHABLE'
  | 'E_REGISTRY_REDIRECT'
  /** A response larger than the client accepts. */
  | 'E_REGISTRY_RESPONSE'
  /** Repository or tag unknown (HTTP 404). */
  | 'E_REGISTRY_NOT_FOUND'
  | 'E_REGISTRY_RATE_LIMIT'
  /** Any other unexpected HTTP status. */
  | 'E_REGISTRY_HTTP'
  /** A blob download broke off after its retries. */
  | 'E_REGISTRY_TRANSFER'
  /** Any other failure while pulling. */
  | 'E_REGISTRY'
  /** The image index has no manifest for the requested platform. */
  | 'E_PLATFORM_NOT_FOUND'
  | 'E_MANIFEST_INVALID'
  /** Content did not match its digest, or a digest is malformed. */
  | 'E_DIGEST_MISMATCH'
  | 'E_CACHE'
  /** A layer entry escapes the unpack directory or is a device file. */
  | 'E_UNSAFE_LAYER'
  /** The image unpacks to more files or bytes than allowed. */
  | 'E_UNPACK_LIMIT'
  /** A push step failed in a way a fresh upload may cure (a 5xx, a dropped connection). */
  | 'E_REGISTRY_RETRY'
  /** A manifest names a blob the registry does not have. */
  | 'E_REGISTRY_BLOB_UNKNOWN'
  /** The registry refuses content for its size or the repository's quota (HTTP 413, 507). */
  | 'E_REGISTRY_QUOTA'
  /** The registry does not accept pushes (HTTP 405). */
  | 'E_REGISTRY_PUSH_UNSUPPORTED';

export interface OpmErrorOptions {
  /** Set by the image client only; see {@link OpmErrorCode}. */
  code?: OpmErrorCode | undefined;
  /** How to fix it, when known. Printed after the message. */
  hint?: string;
  /** The input position at fault. Printed before the message. */
  at?: SourcePosition;
  cause?: unknown;
}

/** A failure the user can act on: bad input, a missing file, a refused pull. Exit code 1. */
export class OpmError extends Error {
  readonly code: OpmErrorCode | undefined;
  readonly hint: string | undefined;
  readonly at: SourcePosition | undefined;
  readonly exitCode: number = 1;

  constructor(message: string, options: OpmErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OpmError';
    this.code = options.code;
    this.hint = options.hint;
    this.at = options.at;
  }
}

/** Wrong command line: unknown flag, bad flag value, wrong number of arguments. Exit code 2. */
export class UsageError extends OpmError {
  override readonly exitCode = 2;
  constructor(message: string, options: OpmErrorOptions = {}) {
    super(message, options);
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

/**
 * `err` with its message prefixed by context, keeping its type, position and hint, for the caller to
 * throw. An InternalError comes back as it is: a bug stays a bug, not a problem of the input.
 */
export function wrapError(context: string, err: unknown): OpmError | InternalError {
  if (err instanceof OpmError) {
    const wrapped = new OpmError(`${context}: ${err.message}`, {
      code: err.code,
      ...(err.hint === undefined ? {} : { hint: err.hint }),
      ...(err.at === undefined ? {} : { at: err.at }),
      cause: err,
    });
    return wrapped;
  }
  if (err instanceof InternalError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return new OpmError(`${context}: ${msg}`, { cause: err });
}
