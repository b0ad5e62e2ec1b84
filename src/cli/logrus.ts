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
/** Text that %q writes between its quotes as it is: printable ASCII other than `"` and `\`. */
const QUOTES_AS_IS = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function quote(v: string): string {
  return QUOTES_AS_IS.test(v) ? `"${v}"` : goQuote(v);
}

/**
 * Texts made from strings that repeat from line to line (a server's call lines repeat most of
 * theirs: the peer, the method, the start time's second), made once each. Bounded: what a client
 * sends can be new every time.
 */
class Repeated {
  private readonly made = new Map<string, string>();
  private readonly make: (s: string) => string;
  constructor(make: (s: string) => string) {
    this.make = make;
  }
  of(s: string): string {
    let text = this.made.get(s);
    if (text === undefined) {
      text = this.make(s);
      if (this.made.size >= 512) this.made.clear();
      this.made.set(s, text);
    }
    return text;
  }
}

const quoted = new Repeated(quote);
const keyPrefix = new Repeated((k) => ` ${k}=`);

function value(v: string): string {
  return PLAIN.test(v) ? v : quoted.of(v);
}

/** Whether the fields' keys come in byte order already (a server's call lines make them so). */
function inByteOrder(fields: Readonly<Record<string, unknown>>): boolean {
  let previous: string | undefined;
  for (const k in fields) {
    if (previous !== undefined && compareUtf8(previous, k) > 0) return false;
    previous = k;
  }
  return true;
}

/** `time="…"` of the second being logged, made once per second. */
let lastSecond = Number.NaN;
let lastTime = '';

function timeField(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastTime = `time=${goQuote(rfc3339Local(new Date(ms)))}`;
  }
  return lastTime;
}

/** One line (with its newline), at `now` (default: the current time). */
export function logrusLine(
  level: LogrusLevel,
  msg: string,
  fields: Readonly<Record<string, string | number>>,
  now?: Date,
): string {
  let line = `${timeField(now === undefined ? Date.now() : now.getTime())} level=${level} msg=${value(msg)}`;
  if (inByteOrder(fields)) {
    for (const k in fields) line += keyPrefix.of(k) + value(String(fields[k]));
  } else {
    for (const k of Object.keys(fields).sort(compareUtf8)) line += keyPrefix.of(k) + value(String(fields[k]));
  }
  return `${line}\n`;
}

const LEVEL_COLOUR: Record<LogrusLevel, number> = { debug: 37, info: 36, warning: 33, error: 31, fatal: 31 };

/**
 * One entry as logrus's text formatter writes it to a terminal (no fields): the level's first four
 * letters in its colour, the whole seconds since the process started, the message as it is (its
 * lines and escape codes included), padded to 44 characters, then a space.
 */
export function logrusTerminalLine(level: LogrusLevel, msg: string, secondsSinceStart: number): string {
  const seconds = String(Math.max(0, Math.floor(secondsSinceStart))).padStart(4, '0');
  const text = msg.endsWith('\n') ? msg.slice(0, -1) : msg;
  const padded = text + ' '.repeat(Math.max(0, 44 - [...text].length));
  return `\x1b[${LEVEL_COLOUR[level]}m${level.slice(0, 4).toUpperCase()}\x1b[0m[${seconds}] ${padded} \n`;
}

/** Where lines go: a stream's `write`. */
export interface LineSink {
  write(text: string): unknown;
}

/** Bytes held before they are written without waiting for the next turn. */
const FLUSH_AT = 64 * 1024;

/**
 * Lines written together once the current turn of the event loop is over: a busy server logs two
 * lines per call, and stderr on a pipe is written synchronously, one system call per write. The
 * bytes and their order are those of writing each line at once; `flush()` writes what is held
 * (before a fatal line, and when the command ends).
 */
export class LineBuffer {
  private readonly sink: LineSink;
  private pending: string[] = [];
  private bytes = 0;
  private scheduled = false;

  constructor(sink: LineSink) {
    this.sink = sink;
  }

  write(line: string): void {
    this.pending.push(line);
    this.bytes += line.length;
    if (this.bytes >= FLUSH_AT) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const text = this.pending.length === 1 ? (this.pending[0] as string) : this.pending.join('');
    this.pending = [];
    this.bytes = 0;
    this.sink.write(text);
  }
}
