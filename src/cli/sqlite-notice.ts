import { SQLITE_DEPRECATION_MESSAGE } from '../sqlite/read.js';
import { logrusLine, logrusTerminalLine } from './logrus.js';

/**
 * opm's deprecation notice of SQLite catalogs with the bytes its logrus gives it: on a terminal the
 * coloured four lines after `WARN[0000]`, elsewhere one `level=warning` text line with the escape
 * codes and line breaks quoted. Commands whose other lines are all text lines (the write verbs) ask
 * for the text line wherever stderr is.
 */
export function sqliteDeprecationNotice(onTerminal: boolean): string {
  return onTerminal
    ? logrusTerminalLine('warning', SQLITE_DEPRECATION_MESSAGE, process.uptime())
    : logrusLine('warning', SQLITE_DEPRECATION_MESSAGE, {});
}
