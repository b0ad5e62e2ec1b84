/**
 * SARIF 2.1.0 (OASIS, sarif-v2.1.0) as GitHub code scanning reads it: one run, the tool's rules
 * with their description, help text and documentation link, and one result per finding with a
 * physical location relative to the repository root (`%SRCROOT%`), so the results land on the
 * files of the repository that was checked out.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Finding } from '../findings.js';
import { RULE_IDS, ruleHelpUri, ruleInfo, type RuleId } from '../rules.js';

export interface SarifOptions {
  /** Absolute path of the catalog directory (finding paths are relative to it). */
  catalogDir: string;
  /** Absolute path the locations are relative to: the repository root. */
  root: string;
  toolVersion: string;
}

/** The nearest directory holding `.git` (a directory, or a file in a worktree) at or above `dir`. */
export function findRepositoryRoot(dir: string): string | undefined {
  let cur = path.resolve(dir);
  for (;;) {
    if (existsSync(path.join(cur, '.git'))) return cur;
    const up = path.dirname(cur);
    if (up === cur) return undefined;
    cur = up;
  }
}

const SRCROOT = '%SRCROOT%';

/** A URI reference for `abs` relative to `root` (forward slashes, each segment percent-encoded). */
function relativeUri(root: string, abs: string): { uri: string; uriBaseId?: string } {
  const rel = path.relative(root, abs);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return { uri: pathToFileURL(abs).href };
  const uri = rel === '' ? '.' : rel.split(path.sep).map(encodeURIComponent).join('/');
  return { uri, uriBaseId: SRCROOT };
}

function level(f: Finding): 'error' | 'warning' {
  return f.severity;
}

/** `channel.multiple-heads` → `ChannelMultipleHeads` (SARIF's rule name is an identifier-like label). */
function ruleName(id: RuleId): string {
  return id
    .split(/[.-]/)
    .map((w) => (w === '' ? '' : (w[0] ?? '').toUpperCase() + w.slice(1)))
    .join('');
}

export function toSarif(findings: readonly Finding[], opts: SarifOptions): Record<string, unknown> {
  const index = new Map(RULE_IDS.map((id, i) => [id, i]));
  const rules = RULE_IDS.map((id) => {
    const info = ruleInfo(id);
    return {
      id,
      name: ruleName(id),
      shortDescription: { text: info.description },
      fullDescription: { text: info.description },
      help: { text: info.help, markdown: `${info.help}\n\n[Rule \`${id}\`](${ruleHelpUri(id)})` },
      helpUri: ruleHelpUri(id),
      defaultConfiguration: {
        level: info.severity === 'off' ? 'none' : info.severity,
        enabled: info.severity !== 'off',
      },
      properties: { tags: [info.opm ? 'opm' : 'opm-ts', id.split('.')[0] ?? ''] },
    };
  });
  const results = findings.map((f) => {
    const abs = f.file === undefined ? opts.catalogDir : path.resolve(opts.catalogDir, f.file);
    const physicalLocation: Record<string, unknown> = { artifactLocation: relativeUri(opts.root, abs) };
    if (f.line !== undefined && f.line > 0) physicalLocation.region = { startLine: f.line };
    const location: Record<string, unknown> = { physicalLocation };
    const scope = [f.package, f.channel, f.bundle].filter((x): x is string => x !== undefined);
    if (scope.length > 0) {
      location.logicalLocations = [
        { fullyQualifiedName: scope.join('/'), kind: f.bundle !== undefined ? 'object' : 'namespace' },
      ];
    }
    return {
      ruleId: f.rule,
      ruleIndex: index.get(f.rule) ?? 0,
      level: level(f),
      message: { text: f.message },
      locations: [location],
    };
  });
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'opm-ts',
            informationUri: 'https://www.npmjs.com/package/opm-ts',
            version: opts.toolVersion,
            semanticVersion: opts.toolVersion,
            rules,
          },
        },
        originalUriBaseIds: { [SRCROOT]: { uri: pathToFileURL(opts.root + path.sep).href } },
        results,
        columnKind: 'unicodeCodePoints',
      },
    ],
  };
}
