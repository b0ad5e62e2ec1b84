/**
 * The flag forms of opm's command line (Go's pflag) that commander reads otherwise, rewritten into
 * forms commander reads the same way before parsing:
 * - `-c=alpha` is `-c alpha` (commander would take `=alpha` as the value), and `-c=` is `-c =`;
 * - a boolean flag takes `--flag=true|false` (and `1`, `0`, `t`, `f`, `T`, `F`, `TRUE`, `FALSE`,
 *   `True`, `False`, as Go's strconv.ParseBool), short ones `-x=false` too.
 * Everything after `--` is left alone. `-cvalue`, `--flag value` and `--flag=value` need nothing.
 */
import type { Command, Option } from 'commander';
import { UsageError } from '../errors.js';

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

function isBool(o: Option): boolean {
  return !o.required && !o.optional;
}

function boolArgs(o: Option, value: string, flag: string, options: readonly Option[]): string[] {
  const name = o.long ?? o.short ?? flag;
  if (TRUE.has(value)) return [name];
  // A flag whose default depends on whether it was given (serve's --cache-enforce-integrity) has
  // a `--no-` form, so that `=false` is seen as given.
  const negated =
    o.long === undefined ? undefined : options.find((x) => x.long === `--no-${o.long?.slice(2) ?? ''}`);
  if (FALSE.has(value)) return negated?.long === undefined ? [] : [negated.long];
  throw new UsageError(
    `invalid argument ${JSON.stringify(value)} for "${flag}" flag: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`,
  );
}

/** `argv` (without node and script) in forms commander reads as pflag would. */
export function pflagArgs(program: Command, argv: readonly string[]): string[] {
  const out: string[] = [];
  let cmd = program;
  let options = [...program.options];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const long = /^(--[^=]+)=([\s\S]*)$/.exec(arg);
    if (long !== null) {
      const o = options.find((x) => x.long === long[1]);
      out.push(
        ...(o !== undefined && isBool(o) ? boolArgs(o, long[2] ?? '', long[1] ?? arg, options) : [arg]),
      );
      continue;
    }
    const short = /^(-[^-=])=([\s\S]*)$/.exec(arg);
    if (short !== null) {
      const flag = short[1] ?? '';
      const value = short[2] ?? '';
      const o = options.find((x) => x.short === flag);
      if (o === undefined) out.push(arg);
      else if (isBool(o)) out.push(...boolArgs(o, value, flag, options));
      // pflag keeps the `=` when nothing follows it.
      else out.push(flag, value === '' ? '=' : value);
      continue;
    }
    if (!arg.startsWith('-') || arg === '-') {
      const sub = cmd.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
      if (sub !== undefined) {
        cmd = sub;
        options = [...options, ...sub.options];
      }
      out.push(arg);
      continue;
    }
    // A flag whose value is the next word: that word is a value, never a subcommand.
    const o = options.find((x) => x.long === arg || x.short === arg);
    out.push(arg);
    if (o !== undefined && o.required && i + 1 < argv.length) out.push(argv[++i] ?? '');
  }
  return out;
}
