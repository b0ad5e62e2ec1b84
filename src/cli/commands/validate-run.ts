import { escapeKeepingLines, escapeLine } from '../escape.js';
import path from 'node:path';
import { validateCatalog, type ValidateResult } from '../../action/validate.js';
import type { Finding } from '../../findings.js';
import { ExitCode } from '../exit-code.js';
import { outputFormat } from '../global-options.js';
import type { CliIO } from '../io.js';
import { stderrColors } from '../colors.js';
import { writeAll } from '../output.js';
import { goStruct, marshalIndent, type GoStruct } from '../../go/json.js';
import { toYaml } from '../../declcfg/write.js';
import { compareUtf8 } from '../../go/utf8.js';
import { formatPosition } from '../../errors.js';

export interface ValidateFlags {
  output?: string;
  warnings: boolean;
}

const FORMATS = ['json', 'yaml', 'github'] as const;
type Format = (typeof FORMATS)[number];

/** The machine-readable document: opm's `{passed, error: {message}}` plus the findings. */
function resultDocument(r: ValidateResult): Record<string, unknown> {
  const doc: Record<string, unknown> = { passed: r.passed };
  if (!r.passed && r.message !== undefined) doc.error = { message: r.message };
  doc.findings = r.findings.map((f) => {
    // Fixed key order, empty fields left out.
    const o: Record<string, unknown> = { rule: f.rule, severity: f.severity, message: f.message };
    if (f.file !== undefined) o.file = f.file;
    if (f.line !== undefined) o.line = f.line;
    if (f.package !== undefined) o.package = f.package;
    if (f.channel !== undefined) o.channel = f.channel;
    if (f.bundle !== undefined) o.bundle = f.bundle;
    return o;
  });
  return doc;
}

/** Go's json.MarshalIndent(v, "", "  ") with fields in the order written (as a Go struct). */
function goJsonIndent(v: Record<string, unknown>): string {
  const struct = (o: Record<string, unknown>): GoStruct => goStruct(o);
  const findings = Array.isArray(v.findings)
    ? v.findings.map((f: unknown) => (typeof f === 'object' && f !== null ? struct({ ...f }) : f))
    : v.findings;
  const err = v.error;
  const top: Record<string, unknown> = { passed: v.passed };
  if (typeof err === 'object' && err !== null) top.error = struct({ ...err });
  top.findings = findings;
  return marshalIndent(struct(top), '', '  ');
}

/** YAML as opm prints it (sigs.k8s.io/yaml: keys sorted, go-yaml v2 styles), then a blank line. */
function yamlDocument(v: unknown): string {
  return toYaml(v) + '\n';
}

/** GitHub Actions workflow-command escaping. */
function ghData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
function ghProperty(s: string): string {
  return ghData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function githubAnnotations(r: ValidateResult, dir: string, cwd: string): string {
  let out = '';
  for (const f of r.findings) {
    const props: string[] = [];
    if (f.file !== undefined) {
      const abs = path.resolve(cwd, dir, f.file);
      props.push(`file=${ghProperty(path.relative(cwd, abs).split(path.sep).join('/'))}`);
    }
    if (f.line !== undefined) props.push(`line=${f.line}`);
    props.push(`title=${ghProperty(f.rule)}`);
    const scope = [f.package, f.channel, f.bundle].filter((x) => x !== undefined).join('/');
    const msg = scope === '' ? f.message : `${scope}: ${f.message}`;
    out += `::${f.severity} ${props.join(',')}::${ghData(msg)}\n`;
  }
  return out;
}

/** Human output: findings grouped per package, tree-shaped like opm's, each with its location. */
function humanReport(r: ValidateResult, io: CliIO, showWarnings: boolean): string {
  const c = stderrColors(io);
  const shown = showWarnings ? r.findings : r.findings.filter((f) => f.severity === 'error');
  // A valid catalog prints nothing unless warnings were asked for.
  if (shown.length === 0) return '';
  const groups = new Map<string, Finding[]>();
  for (const f of shown) {
    const key = f.package ?? '';
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = []));
    g.push(f);
  }
  const keys = [...groups.keys()].sort((a, b) => (a === '' ? -1 : b === '' ? 1 : compareUtf8(a, b)));
  const errors = r.findings.filter((f) => f.severity === 'error').length;
  const warnings = r.findings.length - errors;
  // A dumb terminal gets the tree in ASCII.
  const [tee, corner, bar] = io.env.TERM === 'dumb' ? ['|-- ', '`-- ', '|   '] : ['├── ', '└── ', '│   '];
  let out = `${r.passed ? 'catalog is valid, with warnings' : c.red('invalid index')}:\n`;
  keys.forEach((key, gi) => {
    const lastGroup = gi === keys.length - 1;
    out += `${lastGroup ? corner : tee}${key === '' ? 'catalog' : `package ${escapeLine(JSON.stringify(key))}`}:\n`;
    const items = groups.get(key) ?? [];
    items.forEach((f, i) => {
      const branch = (lastGroup ? '    ' : bar) + (i === items.length - 1 ? corner : tee);
      const file = f.file === undefined ? undefined : escapeLine(f.file);
      const loc = file === undefined ? '' : c.cyan(formatPosition({ file, line: f.line }));
      const sev = f.severity === 'error' ? c.red('error') : c.yellow('warning');
      const msg = escapeKeepingLines(f.message).replace(/\n/g, `\n${lastGroup ? '    ' : bar}    `);
      // Messages name their channel and bundle themselves.
      out += `${branch}${loc}${sev}: ${msg} ${c.dim(`[${f.rule}]`)}\n`;
    });
  });
  const hidden = showWarnings || warnings === 0 ? '' : ' (--warnings shows them)';
  out += `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}${hidden}\n`;
  return out;
}

/** `opm validate DIR`: loaded only when the command runs (it brings the schema validator). */
export async function runValidate(io: CliIO, directory: string, opts: ValidateFlags): Promise<void> {
  const format: Format | undefined =
    opts.output === undefined ? undefined : outputFormat(opts.output, FORMATS);
  const dir = path.resolve(io.cwd, directory);
  const result = await validateCatalog(dir, { displayDir: directory });
  switch (format) {
    case 'json':
      await writeAll(io.stdout, goJsonIndent(resultDocument(result)) + '\n');
      break;
    case 'yaml':
      await writeAll(io.stdout, yamlDocument(resultDocument(result)));
      break;
    case 'github':
      await writeAll(io.stdout, githubAnnotations(result, directory, io.cwd));
      break;
    default:
      await writeAll(io.stderr, humanReport(result, io, opts.warnings));
  }
  if (!result.passed) throw new ExitCode(1);
}
