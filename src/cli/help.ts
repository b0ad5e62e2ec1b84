/**
 * `--help` laid out as opm's (cobra's usage template, flags as pflag lists them), within the
 * terminal's width: the long description, `Usage:`, `Available Commands:` (names padded to the
 * longest), `Arguments:`, `Flags:`, `Global Flags:` and the `Use "… [command] --help"` line. Every
 * description that would run past the width is wrapped with a hanging indent, so that no line is
 * longer than the width (80 columns when the width is unknown); cobra leaves that to the terminal.
 */
import type { Argument, Command, Option } from 'commander';

/** cobra pads command names to at least this many columns. */
const MIN_NAME_PADDING = 11;
/** Fewer columns than this left for a description: it starts on the next line instead (as pflag). */
const MIN_DESCRIPTION_WIDTH = 24;
/** Where a description starts when it goes on the next line. */
const NEXT_LINE_INDENT = 16;

/**
 * The width help is laid out in: `COLUMNS` when set to a number, else the terminal's width when
 * standard output is a terminal, else 80.
 */
export function helpWidth(env: NodeJS.ProcessEnv, stdout: unknown): number {
  const fromEnv = Number(env.COLUMNS);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  const columns =
    typeof stdout === 'object' && stdout !== null && 'columns' in stdout ? stdout.columns : undefined;
  return typeof columns === 'number' && columns > 0 ? columns : 80;
}

/** Break one line of text at spaces into pieces of at most `room` columns (longer words alone). */
function breakLine(line: string, room: number): string[] {
  const lead = /^ */.exec(line)?.[0] ?? '';
  // A list item (`  - name : text`) goes on under its text, other indented lines under themselves.
  const more = /^ *- /.test(line) ? `${lead}  ` : lead;
  const words = line.slice(lead.length).split(' ');
  const out: string[] = [];
  let current = lead;
  let fresh = true;
  for (const word of words) {
    if (fresh) {
      current += word;
      fresh = false;
    } else if (current.length + 1 + word.length <= room) {
      current += ` ${word}`;
    } else {
      out.push(current);
      current = more + word;
    }
  }
  out.push(current);
  return out;
}

/**
 * `text` to be printed from column `column` of a line whose start the caller wrote: every line
 * after the first is indented to `column`, and lines are broken so none passes `width`. Newlines
 * in the text are kept; lines with nothing on them have no trailing spaces.
 */
export function hangingText(text: string, column: number, width: number): string {
  let indent = column;
  let prefix = '';
  if (width - column < MIN_DESCRIPTION_WIDTH && column > NEXT_LINE_INDENT) {
    indent = NEXT_LINE_INDENT;
    prefix = `\n${' '.repeat(indent)}`;
  }
  const room = Math.max(width - indent, 1);
  const pad = ' '.repeat(indent);
  const lines = text.split('\n').flatMap((l) => breakLine(l.trimEnd(), room));
  return prefix + lines.map((l, i) => (i === 0 || l === '' ? l : pad + l)).join('\n');
}

/**
 * `  opm render <refs...> [flags]`: what follows the command's path goes on under the first word
 * after it, or a little indented when the path leaves too little room.
 */
function usageLine(path: string, rest: string, width: number): string {
  const column = 2 + path.length + 1;
  const room = width - column;
  const indent = room >= MIN_DESCRIPTION_WIDTH ? column : 6;
  const pieces = breakLine(rest, Math.max(width - indent, 1));
  const first =
    room >= MIN_DESCRIPTION_WIDTH || (pieces[0] ?? '').length <= room ? pieces.shift() : undefined;
  const head = `  ${path}${first === undefined ? '' : ` ${first}`}`;
  return [head, ...pieces.map((p) => ' '.repeat(indent) + p)].join('\n');
}

/** The path of a command as typed: `opm alpha list`. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

function argumentText(a: Argument): string {
  const name = `${a.name()}${a.variadic ? '...' : ''}`;
  return a.required ? `<${name}>` : `[${name}]`;
}

/** The word after a flag: its value's name (`string`), as pflag prints the type. */
function valueName(o: Option): string {
  const m = /[<[]([^>\]]*(?:\[[^\]]*\])?[^>\]]*)[>\]]\s*$/.exec(o.flags);
  if (m === null) return '';
  return o.required ? ` ${m[1] ?? ''}` : `[=${m[1] ?? ''}]`;
}

/** pflag's `(default "json")`, shown when the default is not the zero value. */
function defaultText(o: Option): string {
  if (o.defaultValueDescription !== undefined) return ` (default ${o.defaultValueDescription})`;
  const v: unknown = o.defaultValue;
  if (typeof v === 'string') return v === '' ? '' : ` (default ${JSON.stringify(v)})`;
  if (typeof v === 'boolean' || typeof v === 'number') return v === false || v === 0 ? '' : ` (default ${v})`;
  if (Array.isArray(v)) return v.length === 0 ? '' : ` (default [${v.join(',')}])`;
  return '';
}

function flagLeft(o: Option): string {
  const head = o.short !== undefined ? `  ${o.short}, ${o.long ?? ''}` : `      ${o.long ?? ''}`;
  return head + valueName(o);
}

/** A flag table as pflag prints it: sorted by name, descriptions 3 columns after the longest flag. */
function flagTable(options: readonly Option[], cmd: Command, width: number): string {
  const sorted = [...options].sort((a, b) => {
    const x = (a.long ?? a.short ?? '').replace(/^-+/, '');
    const y = (b.long ?? b.short ?? '').replace(/^-+/, '');
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const lefts = sorted.map(flagLeft);
  const column = Math.max(...lefts.map((l) => l.length)) + 3;
  return sorted
    .map((o, i) => {
      const left = lefts[i] ?? '';
      const about = o.long === '--help' ? `help for ${cmd.name()}` : o.description + defaultText(o);
      return `${left.padEnd(column)}${hangingText(about, column, width)}`;
    })
    .join('\n');
}

/** Name/description rows (commands, arguments), names padded as cobra pads command names. */
function rows(items: readonly (readonly [string, string])[], width: number): string {
  const pad = Math.max(MIN_NAME_PADDING, ...items.map(([n]) => n.length));
  return items
    .map(([name, about]) => `  ${name.padEnd(pad)} ${hangingText(about, pad + 3, width)}`.trimEnd())
    .join('\n');
}

/** The short description of a command: its summary, else the first line of its description. */
function shortText(cmd: Command): string {
  return cmd.summary() || (cmd.description().split('\n')[0] ?? '');
}

function visibleOptions(cmd: Command): Option[] {
  return cmd.options.filter((o) => !o.hidden);
}

/** The whole help text of `cmd`, at most `width` columns wide. */
export function formatHelp(cmd: Command, width: number): string {
  const path = commandPath(cmd);
  const helper = cmd.createHelp();
  const subcommands = helper
    .visibleCommands(cmd)
    .filter((c) => c.name() !== 'help')
    .sort((a, b) => (a.name() < b.name() ? -1 : a.name() > b.name() ? 1 : 0));
  const sections: string[] = [];
  const about = cmd.description();
  if (about !== '') sections.push(hangingText(about, 0, width));

  const words =
    subcommands.length > 0 ? ['[command]'] : [...cmd.registeredArguments.map(argumentText), '[flags]'];
  sections.push(`Usage:\n${usageLine(path, words.join(' '), width)}`);

  if (subcommands.length > 0) {
    const items: [string, string][] = subcommands.map((c) => [c.name(), shortText(c)]);
    if (cmd.parent === null) items.push(['help', 'Help about any command']);
    items.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    sections.push(`Available Commands:\n${rows(items, width)}`);
  }

  const described = cmd.registeredArguments.filter((a) => a.description !== '');
  if (described.length > 0) {
    const items = described.map((a): [string, string] => {
      const choices = a.argChoices === undefined ? '' : ` (one of: ${a.argChoices.join(', ')})`;
      return [a.name(), a.description + choices];
    });
    sections.push(`Arguments:\n${rows(items, width)}`);
  }

  // With commander's help option, shown as pflag shows cobra's.
  const local = helper.visibleOptions(cmd);
  if (local.length > 0) sections.push(`Flags:\n${flagTable(local, cmd, width)}`);

  const inherited: Option[] = [];
  for (let p = cmd.parent; p !== null; p = p.parent) inherited.push(...visibleOptions(p));
  if (inherited.length > 0) sections.push(`Global Flags:\n${flagTable(inherited, cmd, width)}`);

  if (subcommands.length > 0)
    sections.push(
      hangingText(`Use "${path} [command] --help" for more information about a command.`, 0, width),
    );
  // A description that starts on the next line leaves its flag's padding behind.
  const text = sections.join('\n\n').replace(/ +$/gm, '');
  return `${text}\n`;
}
