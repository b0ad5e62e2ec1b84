/**
 * Text from outside (file names, registry error bodies, catalog content) can hold control
 * characters: a newline in a file name would forge another `error:` line, an escape sequence would
 * drive the terminal. Human output writes them as escapes; data output (stdout) is never touched.
 */
import { visibleChar } from '../util/visible-char.js';
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex -- as above
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;

/** One line of human output: every control character escaped, newlines included. */
export function escapeLine(s: string): string {
  return s.replace(CONTROL, visibleChar);
}

/** Human text whose own line breaks are kept (multi-line messages), other controls escaped. */
export function escapeKeepingLines(s: string): string {
  return s.replace(CONTROL_BUT_NEWLINE, visibleChar);
}
