/**
 * GitHub Actions output: workflow commands that annotate files (`::error file=…,line=…::…`), with
 * paths relative to GITHUB_WORKSPACE (the checkout) when set, else to the working directory; and a
 * Markdown report for the job summary ($GITHUB_STEP_SUMMARY).
 */
import path from 'node:path';
import type { Finding } from '../findings.js';
import { ruleHelpUri } from '../rules.js';
import { mdCell, mdCode } from '../util/markdown.js';

/** Workflow-command escaping of data and of property values. */
function ghData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
function ghProperty(s: string): string {
  return ghData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** `file` of a finding (relative to the catalog) as a path relative to `base`, with `/`. */
function pathFrom(base: string, catalogDir: string, file: string): string {
  return path.relative(base, path.resolve(catalogDir, file)).split(path.sep).join('/');
}

function scoped(f: Finding): string {
  const scope = [f.package, f.channel, f.bundle].filter((x) => x !== undefined).join('/');
  return scope === '' ? f.message : `${scope}: ${f.message}`;
}

export function githubAnnotations(findings: readonly Finding[], catalogDir: string, base: string): string {
  let out = '';
  for (const f of findings) {
    const props: string[] = [];
    if (f.file !== undefined) props.push(`file=${ghProperty(pathFrom(base, catalogDir, f.file))}`);
    if (f.line !== undefined) props.push(`line=${f.line}`);
    props.push(`title=${ghProperty(f.rule)}`);
    out += `::${f.severity} ${props.join(',')}::${ghData(scoped(f))}\n`;
  }
  return out;
}

export interface Counts {
  errors: number;
  warnings: number;
}

export function countFindings(findings: readonly Finding[]): Counts {
  const errors = findings.filter((f) => f.severity === 'error').length;
  return { errors, warnings: findings.length - errors };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** One line: the verdict and the counts. */
export function summaryLine(shownDir: string, passed: boolean, counts: Counts): string {
  return `opm validate ${shownDir}: ${passed ? 'passed' : 'failed'}, ${plural(counts.errors, 'error')}, ${plural(counts.warnings, 'warning')}`;
}

/** Job summaries are limited in size; past this many rows the table says how many were left out. */
const MAX_ROWS = 500;

export function markdownSummary(
  findings: readonly Finding[],
  opts: { shownDir: string; catalogDir: string; base: string; passed: boolean },
): string {
  const counts = countFindings(findings);
  // Paths, messages and names come from the catalog: each goes through mdCell or mdCode.
  let md = `### ${opts.passed ? '✅' : '❌'} opm validate ${mdCode(opts.shownDir)}\n\n`;
  md += `${plural(counts.errors, 'error')}, ${plural(counts.warnings, 'warning')}.\n\n`;
  if (findings.length === 0) return md;
  md += '| Severity | Rule | Location | Message |\n| --- | --- | --- | --- |\n';
  for (const f of findings.slice(0, MAX_ROWS)) {
    const loc =
      f.file === undefined
        ? ''
        : `${pathFrom(opts.base, opts.catalogDir, f.file)}${f.line === undefined ? '' : `:${f.line}`}`;
    md += `| ${f.severity} | [${mdCode(f.rule)}](${ruleHelpUri(f.rule)}) | ${mdCell(loc)} | ${mdCell(scoped(f))} |\n`;
  }
  if (findings.length > MAX_ROWS) md += `\n${findings.length - MAX_ROWS} more findings are not shown.\n`;
  return md + '\n';
}
