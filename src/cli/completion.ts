/**
 * `opm completion bash|zsh|fish|powershell`: shell completion scripts for commands, flags and the
 * values of `-o/--output`, generated from the command tree so that they never fall behind it. Each
 * script holds three tables keyed by command path (`opm`, `opm alpha list`, …): subcommands, flags
 * (the command's and the global ones) and output formats; a small function walks the words typed
 * so far to find the path.
 */
import type { Command, Option } from 'commander';
import { isNotProvided } from './commands/not-provided.js';

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];

interface Entry {
  path: string;
  subcommands: string[];
  flags: string[];
  outputs: string[];
}

function flagsOf(options: readonly Option[]): string[] {
  return options.flatMap((o) =>
    o.hidden ? [] : [o.short, o.long].filter((f): f is string => f !== undefined),
  );
}

/** The values `-o` takes, from its choices or from `(json|yaml)` in its description. */
function outputsOf(cmd: Command): string[] {
  const o = cmd.options.find((x) => x.long === '--output');
  if (o === undefined) return [];
  if (o.argChoices !== undefined) return [...o.argChoices];
  const m = /\(([a-z]+(?:\|[a-z]+)+)\)/.exec(o.description);
  return m?.[1]?.split('|') ?? [];
}

function entries(program: Command): Entry[] {
  const out: Entry[] = [];
  const visit = (cmd: Command, path: string, inherited: readonly Option[]): void => {
    const options = [...inherited, ...cmd.options];
    // Hidden commands (alpha) are completed too: they are hidden from help only. Commands that
    // only say opm-ts does not provide them are not offered.
    const subs = cmd.commands.filter((c) => c.name() !== 'help' && !isNotProvided(c));
    out.push({
      path,
      subcommands: subs.map((c) => c.name()),
      flags: [...flagsOf(options), '--help'],
      outputs: outputsOf(cmd),
    });
    for (const s of subs) visit(s, `${path} ${s.name()}`, options);
  };
  visit(program, 'opm', []);
  return out;
}

const words = (xs: string[]): string => [...new Set(xs)].join(' ');

function bash(es: Entry[]): string {
  const table = (pick: (e: Entry) => string[]): string =>
    es.map((e) => `    '${e.path}') echo '${words(pick(e))}' ;;`).join('\n');
  return `# bash completion for opm (opm-ts): source <(opm completion bash)
_opm_subcommands() {
  case "$1" in
${table((e) => e.subcommands)}
  esac
}
_opm_flags() {
  case "$1" in
${table((e) => e.flags)}
  esac
}
_opm_outputs() {
  case "$1" in
${table((e) => e.outputs)}
  esac
}
_opm() {
  local cur prev path word i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  path=opm
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    case " $(_opm_subcommands "$path") " in
      *" $word "*) path="$path $word" ;;
    esac
  done
  if [[ "$prev" == -o || "$prev" == --output ]]; then
    COMPREPLY=($(compgen -W "$(_opm_outputs "$path")" -- "$cur"))
  elif [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_opm_flags "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_opm_subcommands "$path")" -- "$cur"))
  fi
}
complete -o default -F _opm opm
`;
}

function zsh(es: Entry[]): string {
  return `#compdef opm
# zsh completion for opm (opm-ts): source <(opm completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bash(es)}`;
}

function fish(es: Entry[]): string {
  const table = (name: string, pick: (e: Entry) => string[]): string =>
    `function ${name}\n    switch "$argv"\n${es
      .map((e) => `        case '${e.path}'\n            echo '${words(pick(e))}'`)
      .join('\n')}\n    end\nend`;
  return `# fish completion for opm (opm-ts): opm completion fish | source
${table('__opm_subcommands', (e) => e.subcommands)}
${table('__opm_flags', (e) => e.flags)}
${table('__opm_outputs', (e) => e.outputs)}
function __opm_complete
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l path opm
    for word in $tokens[2..-1]
        if contains -- $word (string split ' ' (__opm_subcommands "$path"))
            set path "$path $word"
        end
    end
    if contains -- "$tokens[-1]" -o --output
        string split ' ' (__opm_outputs "$path")
    else if string match -q -- '-*' "$current"
        string split ' ' (__opm_flags "$path")
    else
        string split ' ' (__opm_subcommands "$path")
    end
end
complete -c opm -f -a '(__opm_complete)'
`;
}

function powershell(es: Entry[]): string {
  const table = (name: string, pick: (e: Entry) => string[]): string =>
    `$${name} = @{\n${es.map((e) => `    '${e.path}' = '${words(pick(e))}'`).join('\n')}\n}`;
  return `# PowerShell completion for opm (opm-ts): opm completion powershell | Out-String | Invoke-Expression
${table('OpmSubcommands', (e) => e.subcommands)}
${table('OpmFlags', (e) => e.flags)}
${table('OpmOutputs', (e) => e.outputs)}
Register-ArgumentCompleter -Native -CommandName opm -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @($commandAst.CommandElements | ForEach-Object { $_.ToString() })
    if ($wordToComplete -ne '') { $words = $words[0..($words.Count - 2)] }
    $path = 'opm'
    foreach ($word in $words[1..($words.Count)]) {
        if ($OpmSubcommands[$path] -and ($OpmSubcommands[$path] -split ' ') -contains $word) { $path = "$path $word" }
    }
    $last = $words[-1]
    if ($last -eq '-o' -or $last -eq '--output') { $candidates = $OpmOutputs[$path] }
    elseif ($wordToComplete.StartsWith('-')) { $candidates = $OpmFlags[$path] }
    else { $candidates = $OpmSubcommands[$path] }
    ($candidates -split ' ') | Where-Object { $_ -ne '' -and $_.StartsWith($wordToComplete) } |
        ForEach-Object { [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_) }
}
`;
}

/** The completion script of `shell` for the command tree of `program`. */
export function completionScript(program: Command, shell: Shell): string {
  const es = entries(program);
  switch (shell) {
    case 'bash':
      return bash(es);
    case 'zsh':
      return zsh(es);
    case 'fish':
      return fish(es);
    case 'powershell':
      return powershell(es);
  }
}
