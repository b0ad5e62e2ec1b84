/** System error codes in the words Go (and so opm) prints for them: `open x: no such file or directory`. */
const TEXT: Record<string, string> = {
  EACCES: 'permission denied',
  EBADF: 'bad file descriptor',
  EBUSY: 'device or resource busy',
  EDQUOT: 'disk quota exceeded',
  EEXIST: 'file exists',
  EFBIG: 'file too large',
  EIO: 'input/output error',
  EISDIR: 'is a directory',
  ELOOP: 'too many levels of symbolic links',
  EMFILE: 'too many open files',
  ENAMETOOLONG: 'file name too long',
  ENOENT: 'no such file or directory',
  ENOSPC: 'no space left on device',
  ENOTDIR: 'not a directory',
  ENOTEMPTY: 'directory not empty',
  EPERM: 'operation not permitted',
  EPIPE: 'broken pipe',
  EROFS: 'read-only file system',
  EXDEV: 'invalid cross-device link',
};

/** The `code` of a Node.js system error, or '' for anything else. */
export function errnoCode(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string'
    ? err.code
    : '';
}

/** What went wrong, in Go's words where the code is known; else the message without Node's prefix. */
export function errnoText(err: unknown): string {
  const known = TEXT[errnoCode(err)];
  if (known !== undefined) return known;
  const message = err instanceof Error ? err.message : String(err);
  // Node writes `ENOSPC: no space left on device, write`: keep the middle.
  return message.replace(/^[A-Z0-9]+: /, '').replace(/, [a-z]+(?: '.*')?$/, '');
}
