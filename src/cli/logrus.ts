/**
 * Log lines in logrus's text format, as opm serve writes them on stderr:
 * `time="2006-01-02T15:04:05Z" level=info msg="serving registry" configs=/configs port=50051`,
 * fields after `msg` in key order, values quoted (Go's %q) when they hold anything but letters,
 * digits and `-._/@^+`.
 */
import { goQuote } from '../go/fmt.js';
import { compareUtf8 } from '../go/utf8.js';
import { rfc3339Local } from '../go/time.js';

export type LogrusLevel = 'debug' | 'info' | 'warning' | 'error' | 'fatal';

const PLAIN = /^[A-Za-z0-9\-._/@^+]*$/;

function value(v: string): string {
  return PLAIN.test(v) ? v : goQuote(v);
}

/** One line (with its newline). */
export function logrusLine(
  level: LogrusLevel,
  msg: string,
  fields: Readonly<Record<string, string | number>>,
  now: Date = new Date(),
): string {
  const parts = [`time=${goQuote(rfc3339Local(now))}`, `level=${level}`, `msg=${value(msg)}`];
  for (const k of Object.keys(fields).sort(compareUtf8)) parts.push(`${k}=${value(String(fields[k]))}`);
  return `${parts.join(' ')}\n`;
}
