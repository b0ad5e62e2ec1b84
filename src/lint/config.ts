/**
 * Severity configuration for `opm validate`. A file named `.opm-validate.yaml` (or `.yml`, or
 * `.opm-validate.json`) is looked for in the catalog directory and each directory above it; the
 * nearest one applies. Its format (schemas/opm-validate-config.json):
 *
 *   rules:                      # rule id -> error | warning | off
 *     upgrade.downgrade-edge: error
 *     policy.image-digest: warning
 *   policies:
 *     channelNames: [stable, fast, "candidate-*"]   # for policy.channel-name
 *
 * `--rule id=severity` flags override the file. Rules opm enforces cannot be configured: the
 * verdict on a catalog opm would reject stays a failure.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { isMap, type Node as YamlNode } from 'yaml';
import { OpmError, UsageError, type SourcePosition } from '../errors.js';
import { errnoText } from '../go/errno.js';
import { readBoundedFile } from '../util/read-bounded.js';
import { parseConfigDocument } from '../yaml/config-text.js';
import type { Finding } from '../findings.js';
import { isRuleId, ruleInfo, type RuleId, type RuleLevel } from '../rules.js';
import type { LintPolicies } from './context.js';

const CONFIG_FILE_NAMES = ['.opm-validate.yaml', '.opm-validate.yml', '.opm-validate.json'] as const;

export interface SeverityConfig {
  /** The configuration file read, if any. */
  file?: string;
  rules: Map<RuleId, RuleLevel>;
  policies: LintPolicies;
}

const LEVELS: readonly RuleLevel[] = ['error', 'warning', 'off'];

/** The nearest configuration file in `dir` or above it. */
async function findConfigFile(dir: string): Promise<string | undefined> {
  let cur = path.resolve(dir);
  for (;;) {
    for (const name of CONFIG_FILE_NAMES) {
      const candidate = path.join(cur, name);
      try {
        if ((await stat(candidate)).isFile()) return candidate;
      } catch {
        // not there
      }
    }
    const up = path.dirname(cur);
    if (up === cur) return undefined;
    cur = up;
  }
}

/** Why a rule cannot take a level, or undefined when it can. */
function levelProblem(id: string, level: string): string | undefined {
  if (!isRuleId(id)) return `unknown rule ${JSON.stringify(id)} (README.md lists the rules)`;
  if (!LEVELS.includes(level as RuleLevel)) {
    return `rule ${id}: severity ${JSON.stringify(level)} is not one of error, warning, off`;
  }
  if (ruleInfo(id).opm) return `rule ${id} is one opm enforces; its severity cannot be changed`;
  return undefined;
}

/** Parse a configuration file's text. Problems are OpmErrors naming the file and line. */
export function parseConfig(text: string, file: string): SeverityConfig {
  // Parse errors, nesting too deep and excessive aliasing are OpmErrors with file and line.
  const { doc, counter } = parseConfigDocument(text, file, { uniqueKeys: true });
  const at = (line: number | undefined): SourcePosition => (line === undefined ? { file } : { file, line });
  const fail = (message: string, node?: YamlNode | null): never => {
    const offset = node?.range?.[0];
    throw new OpmError(message, { at: at(offset === undefined ? undefined : counter.linePos(offset).line) });
  };
  const out: SeverityConfig = { file, rules: new Map(), policies: {} };
  const root = doc.contents;
  if (root === null) return out;
  if (!isMap(root)) return fail('the configuration must be a mapping with rules and policies', root);
  for (const pair of root.items) {
    const key = String((pair.key as { value?: unknown } | null)?.value ?? '');
    const value = pair.value as YamlNode | null;
    if (key === 'rules') {
      if (value === null) continue;
      if (!isMap(value)) return fail('rules must map rule ids to error, warning or off', value);
      for (const r of value.items) {
        const id = String((r.key as { value?: unknown } | null)?.value ?? '');
        const level = String((r.value as { value?: unknown } | null)?.value ?? '');
        const problem = levelProblem(id, level);
        if (problem !== undefined) return fail(problem, (r.key as YamlNode | null) ?? value);
        out.rules.set(id as RuleId, level as RuleLevel);
      }
    } else if (key === 'policies') {
      if (value === null) continue;
      const policies: unknown = value.toJSON();
      if (typeof policies !== 'object' || policies === null || Array.isArray(policies)) {
        return fail('policies must be a mapping', value);
      }
      for (const [k, v] of Object.entries(policies)) {
        if (k !== 'channelNames')
          return fail(`unknown policy setting ${JSON.stringify(k)} (known: channelNames)`, value);
        if (!Array.isArray(v) || !v.every((x): x is string => typeof x === 'string' && x !== '')) {
          return fail(
            'policies.channelNames must be a list of channel names (* matches any characters)',
            value,
          );
        }
        out.policies.channelNames = v;
      }
    } else {
      return fail(
        `unknown key ${JSON.stringify(key)} (known: rules, policies)`,
        (pair.key as YamlNode | null) ?? root,
      );
    }
  }
  return out;
}

/** Read the configuration: the file given, else the nearest one upward from `catalogDir`. */
export async function loadSeverityConfig(catalogDir: string, explicit?: string): Promise<SeverityConfig> {
  const file = explicit ?? (await findConfigFile(catalogDir));
  if (file === undefined) return { rules: new Map(), policies: {} };
  let text: string;
  try {
    text = await readBoundedFile(file);
  } catch (e) {
    const reason = e instanceof Error && 'code' in e && e.code === 'ENOENT' ? 'no such file' : errnoText(e);
    throw new OpmError(`cannot read the configuration file: ${reason}`, { at: { file } });
  }
  return parseConfig(text, file);
}

/**
 * Settings a turned-on rule cannot do without: policy.channel-name needs the list of names. An
 * OpmError when one is missing (a rule that silently checks nothing would look like a pass).
 */
export function checkPolicySettings(
  levels: ReadonlyMap<RuleId, RuleLevel>,
  policies: LintPolicies,
  file?: string,
): void {
  const level = levels.get('policy.channel-name') ?? ruleInfo('policy.channel-name').severity;
  if (level !== 'off' && (policies.channelNames === undefined || policies.channelNames.length === 0)) {
    throw new OpmError(
      `policy.channel-name is turned on but no channel names are allowed: set policies.channelNames in ${file ?? 'a .opm-validate.yaml beside or above the catalog'}`,
    );
  }
}

/** `--rule id=severity` flags. */
export function parseRuleFlags(flags: readonly string[]): Map<RuleId, RuleLevel> {
  const out = new Map<RuleId, RuleLevel>();
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    if (eq === -1)
      throw new UsageError(`invalid --rule ${JSON.stringify(flag)}: expected id=error|warning|off`);
    const id = flag.slice(0, eq).trim();
    const level = flag.slice(eq + 1).trim();
    const problem = levelProblem(id, level);
    if (problem !== undefined) throw new UsageError(`invalid --rule ${JSON.stringify(flag)}: ${problem}`);
    out.set(id as RuleId, level as RuleLevel);
  }
  return out;
}

/**
 * Give each finding of a configurable rule the configured severity (or drop it when off).
 * Rules opm enforces keep the severity they were reported with.
 */
export function applySeverities(
  findings: readonly Finding[],
  levels: ReadonlyMap<RuleId, RuleLevel>,
): Finding[] {
  const out: Finding[] = [];
  for (const f of findings) {
    const info = ruleInfo(f.rule);
    if (info.opm) {
      out.push(f);
      continue;
    }
    const configured = levels.get(f.rule);
    // Rules beyond opm report at their default severity; opm-ts's own checks of parsing and
    // schemas report what they found (a duplicate key is an error or a warning by where it is).
    const level = configured ?? (isLintRule(f.rule) ? info.severity : f.severity);
    if (level === 'off') continue;
    out.push(level === f.severity ? f : { ...f, severity: level });
  }
  return out;
}

/** Rules computed by src/lint (their findings carry no severity of their own). */
function isLintRule(id: RuleId): boolean {
  return /^(dependency|constraint|upgrade|metadata|policy)\./.test(id);
}
