import { escapeKeepingLines, escapeLine } from '../escape.js';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { validateCatalog, type ValidateResult } from '../../action/validate/validate.js';
import { messageUnderCatalog, underCatalog, type Finding } from '../../findings.js';
import { isFileUnder } from '../../util/file-under.js';
import { checkPolicySettings, loadSeverityConfig, parseRuleFlags } from '../../lint/config.js';
import { githubAnnotations, markdownSummary, summaryLine } from '../../lint/github.js';
import { findRepositoryRoot, toSarif } from '../../lint/sarif.js';
import { ExitCode } from '../exit-code.js';
import { outputFormat } from '../global-options.js';
import { runOptions, type CliIO } from '../io.js';
import { withImageSource } from '../registry.js';
import { withProgress } from '../progress.js';
import type { ProgressSink } from '../../util/progress.js';
import type { ImageSource } from '../../oci/image-source.js';
import { ownPackage } from './version.js';
import { stderrColors } from '../colors.js';
import { writeAll } from '../output.js';
import { readBundleDirMap } from '../../template/bundle-dirs.js';
import { RULE_IDS, type RuleId, type RuleLevel } from '../../rules.js';
import { goStruct, type GoStruct } from '../../go/go-struct.js';
import { marshalIndent } from '../../go/json-encode.js';
import { toYaml } from '../../declcfg/write.js';
import { compareUtf8 } from '../../go/utf8.js';
import { OpmError, UsageError, formatPosition } from '../../errors.js';
import { crdRulesOn } from '../../lint/index.js';
import { errnoText } from '../../go/errno.js';

export interface ValidateFlags {
  output?: string;
  warnings: boolean;
  strict: boolean;
  rule: string[];
  config?: string;
  with: string[];
  crdUpgradeSafety: boolean;
  bundleDirs?: string;
  crdFromImages: boolean;
}

const FORMATS = ['json', 'yaml', 'github', 'sarif'] as const;
type Format = (typeof FORMATS)[number];

/**
 * The machine-readable document: opm's `{passed, error: {message}}`, then the tool and its version,
 * the directory finding paths are relative to (`base`, the catalog directory as given), the counts,
 * and the findings.
 */
function resultDocument(r: ValidateResult, base: string): Record<string, unknown> {
  const doc: Record<string, unknown> = { passed: r.passed };
  if (!r.passed && r.message !== undefined) doc.error = { message: r.message };
  doc.tool = { name: 'opm-ts', version: ownPackage().version };
  doc.base = base;
  doc.counts = r.counts;
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
  for (const key of ['tool', 'base', 'counts'] as const) {
    const x = v[key];
    top[key] = typeof x === 'object' && x !== null ? struct({ ...x }) : x;
  }
  top.findings = findings;
  return marshalIndent(struct(top), '', '  ');
}

/** YAML as opm prints it (sigs.k8s.io/yaml: keys sorted, go-yaml v2 styles), then a blank line. */
function yamlDocument(v: unknown): string {
  return toYaml(v) + '\n';
}

/**
 * Warnings shown with the errors even without --warnings: a misspelt schema (`olm.chanel`) is a blob
 * opm ignores, and its consequences (a default channel without its blob, bundles in no channel)
 * are errors that do not say why.
 */
const EXPLAINS_ERRORS: ReadonlySet<string> = new Set(['blob.schema-misspelt']);

/**
 * Human output: findings grouped per package, tree-shaped like opm's, each with its location under
 * the catalog directory as the user named it (`display`), as are the files messages mention.
 */
export function humanReport(
  r: ValidateResult,
  io: CliIO,
  showWarnings: boolean,
  catalog: { dir: string; display: string },
): string {
  const c = stderrColors(io);
  // Without --warnings, a failing catalog still shows the warnings that explain its errors.
  const failing = r.findings.some((f) => f.severity === 'error');
  const shown = showWarnings
    ? r.findings
    : r.findings.filter((f) => f.severity === 'error' || (failing && EXPLAINS_ERRORS.has(f.rule)));
  // A clean catalog prints nothing; one with warnings only says how many there are.
  if (shown.length === 0) {
    const n = r.findings.length;
    return n === 0 ? '' : `${n} warning${n === 1 ? '' : 's'} (--warnings shows them)\n`;
  }
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
  // With --strict a catalog can fail on warnings alone; it is not an invalid index then.
  const verdict = r.passed
    ? 'catalog is valid, with warnings'
    : errors === 0
      ? c.red('catalog has warnings, which --strict makes fail')
      : c.red('invalid index');
  let out = `${verdict}:\n`;
  keys.forEach((key, gi) => {
    const lastGroup = gi === keys.length - 1;
    out += `${lastGroup ? corner : tee}${key === '' ? 'catalog' : `package ${escapeLine(JSON.stringify(key))}`}:\n`;
    const items = groups.get(key) ?? [];
    items.forEach((f, i) => {
      const branch = (lastGroup ? '    ' : bar) + (i === items.length - 1 ? corner : tee);
      const file = f.file === undefined ? undefined : escapeLine(underCatalog(catalog.display, f.file));
      const loc = file === undefined ? '' : c.cyan(formatPosition({ file, line: f.line }));
      const sev = f.severity === 'error' ? c.red('error') : c.yellow('warning');
      const text = messageUnderCatalog(f.message, catalog.display, isFileUnder(catalog.dir));
      const msg = escapeKeepingLines(text).replace(/\n/g, `\n${lastGroup ? '    ' : bar}    `);
      // Messages name their channel and bundle themselves.
      out += `${branch}${loc}${sev}: ${msg} ${c.dim(`[${f.rule}]`)}\n`;
    });
  });
  const hidden = shown.length === r.findings.length ? '' : ' (--warnings shows them)';
  out += `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}${hidden}\n`;
  return out;
}

/** `opm validate DIR`: loaded only when the command runs (it brings the schema validator). */
export async function runValidate(
  io: CliIO,
  directory: string,
  opts: ValidateFlags,
  cmd: Command,
): Promise<void> {
  const format: Format | undefined =
    opts.output === undefined ? undefined : outputFormat(opts.output, FORMATS);
  const dir = path.resolve(io.cwd, directory);
  const flagLevels = parseRuleFlags(opts.rule);
  const config = await loadSeverityConfig(
    dir,
    opts.config === undefined ? undefined : path.resolve(io.cwd, opts.config),
  );
  // --crd-upgrade-safety turns the crd.* rules on; the configuration and --rule still decide each.
  const crdLevels = opts.crdUpgradeSafety
    ? RULE_IDS.filter((id) => id.startsWith('crd.')).map((id): [RuleId, RuleLevel] => [id, 'error'])
    : [];
  const severities = new Map([...crdLevels, ...config.rules, ...flagLevels]);
  checkPolicySettings(severities, config.policies, config.file);
  if (opts.crdFromImages && !crdRulesOn(severities))
    throw new UsageError('--crd-from-images reads CRDs for the CRD upgrade rules, which are off', {
      hint: 'add --crd-upgrade-safety (or turn a crd.* rule on)',
    });
  const bundleDirs =
    opts.bundleDirs === undefined ? undefined : (await readBundleDirMap(opts.bundleDirs, io.cwd)).dirs;
  const run = (onProgress: ProgressSink, imageSource?: ImageSource): Promise<ValidateResult> =>
    validateCatalog(dir, {
      onProgress,
      displayDir: directory,
      severities,
      policies: config.policies,
      ...(bundleDirs === undefined ? {} : { bundleDirs }),
      crdFromImages: opts.crdFromImages,
      strict: opts.strict,
      with: opts.with,
      cwd: io.cwd,
      ...runOptions(io),
      ...(imageSource === undefined ? {} : { imageSource }),
    });
  // A registry client is set up only when --with names something to pull, or bundle images are.
  const result =
    opts.with.length > 0 || opts.crdFromImages
      ? await withImageSource(cmd, io, (imageSource, onProgress) => run(onProgress, imageSource))
      : await withProgress(cmd, io, (onProgress) => run(onProgress));
  switch (format) {
    case 'json':
      await writeAll(io.stdout, goJsonIndent(resultDocument(result, directory)) + '\n');
      break;
    case 'yaml':
      await writeAll(io.stdout, yamlDocument(resultDocument(result, directory)));
      break;
    case 'sarif': {
      const root = findRepositoryRoot(dir) ?? io.cwd;
      const sarif = toSarif(result.findings, { catalogDir: dir, root, toolVersion: ownPackage().version });
      await writeAll(io.stdout, JSON.stringify(sarif, null, 2) + '\n');
      break;
    }
    case 'github': {
      const workspace = io.env.GITHUB_WORKSPACE;
      const base = workspace !== undefined && workspace !== '' ? path.resolve(io.cwd, workspace) : io.cwd;
      await writeAll(io.stdout, githubAnnotations(result.findings, dir, base));
      await writeAll(io.stderr, summaryLine(directory, result.passed, result.counts) + '\n');
      const summary = io.env.GITHUB_STEP_SUMMARY;
      if (summary !== undefined && summary !== '') {
        const md = markdownSummary(result.findings, {
          shownDir: directory,
          catalogDir: dir,
          base,
          passed: result.passed,
        });
        // Named in the error: a failed write that reaches main.ts unnamed is taken for stdout's.
        await appendFile(path.resolve(io.cwd, summary), md).catch((err: unknown) => {
          throw new OpmError(`write ${summary}: ${errnoText(err)}`, { cause: err });
        });
      }
      break;
    }
    default:
      await writeAll(
        io.stderr,
        humanReport(result, io, opts.warnings || opts.strict, { dir, display: directory }),
      );
  }
  if (!result.passed) throw new ExitCode(1);
}
