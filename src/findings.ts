/**
 * Findings are what validation reports: data, not exceptions. Every finding carries a stable rule id
 * and, where known, the file and line of the blob at fault and the package/channel/bundle it is about.
 */

import type { RuleId, Severity } from './rules.js';

export type { RuleId, Severity };

export interface Finding {
  /** Stable rule id, e.g. `channel.multiple-heads`, `parse.yaml`, `schema.olm.bundle` (src/rules.ts). */
  rule: RuleId;
  severity: Severity;
  message: string;
  file?: string;
  line?: number;
  package?: string;
  channel?: string;
  bundle?: string;
}

/** Stable order: by file (byte order), line, then rule and message. Findings without a file go last. */
export function compareFindings(a: Finding, b: Finding): number {
  if (a.file !== b.file) {
    if (a.file === undefined) return 1;
    if (b.file === undefined) return -1;
    return a.file < b.file ? -1 : 1;
  }
  const la = a.line ?? 0;
  const lb = b.line ?? 0;
  if (la !== lb) return la - lb;
  if (a.rule !== b.rule) return a.rule < b.rule ? -1 : 1;
  if (a.message !== b.message) return a.message < b.message ? -1 : 1;
  return 0;
}

export function sortFindings(findings: Finding[]): Finding[] {
  return [...findings].sort(compareFindings);
}
