/**
 * Findings are what validation reports: data, not exceptions. Every finding carries a stable rule id
 * and, where known, the file and line of the blob at fault and the package/channel/bundle it is about.
 */
import { posix } from 'node:path';
import { compareUtf8 } from './go/utf8.js';

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

/**
 * Stable order: by file (byte order), line, then rule and message, then what they are about (so the
 * order never depends on the order the checks ran in). Findings without a file go last.
 */
function compareFindings(a: Finding, b: Finding): number {
  if (a.file !== b.file) {
    if (a.file === undefined) return 1;
    if (b.file === undefined) return -1;
    return compareUtf8(a.file, b.file);
  }
  const la = a.line ?? 0;
  const lb = b.line ?? 0;
  if (la !== lb) return la - lb;
  return (
    compareUtf8(a.rule, b.rule) ||
    compareUtf8(a.message, b.message) ||
    compareUtf8(a.severity, b.severity) ||
    compareUtf8(a.package ?? '', b.package ?? '') ||
    compareUtf8(a.channel ?? '', b.channel ?? '') ||
    compareUtf8(a.bundle ?? '', b.bundle ?? '')
  );
}

/** A sorted copy of `findings`, in the stable order validate reports them: file, line, rule, message, place. */
export function sortFindings(findings: Finding[]): Finding[] {
  return [...findings].sort(compareFindings);
}

/**
 * Two sorted lists as one, as sortFindings would sort them one after the other (on a tie, `a`'s
 * first), without sorting again.
 */
export function mergeSortedFindings(a: readonly Finding[], b: readonly Finding[]): Finding[] {
  const out: Finding[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as Finding;
    const y = b[j] as Finding;
    if (compareFindings(y, x) < 0) {
      out.push(y);
      j++;
    } else {
      out.push(x);
      i++;
    }
  }
  while (i < a.length) out.push(a[i++] as Finding);
  while (j < b.length) out.push(b[j++] as Finding);
  return out;
}

/**
 * A catalog file's path as a person can open it from where the command ran: under the catalog
 * directory as the user named it (`catalog` + `foo/index.yaml` is `catalog/foo/index.yaml`; `.`
 * leaves it as it is). Findings and load errors name files relative to the catalog directory; the
 * machine outputs keep that base, human text uses this.
 */
export function underCatalog(display: string, file: string): string {
  return posix.join(display, file);
}

/** `foo/index.yaml:12` inside a message, after a space or an opening parenthesis. */
const MESSAGE_POSITION = /(?<=[\s(])([^\s():]+\.(?:yaml|yml|json)):(\d+)/g;

/**
 * A message's own mentions of catalog files (`first defined at foo/index.yaml:5`, a head's
 * `(foo/index.yaml:12)`), put under the catalog directory as the user named it. `isCatalogFile`
 * tells which relative paths are files of the catalog, so no other text is touched.
 */
export function messageUnderCatalog(
  message: string,
  display: string,
  isCatalogFile: (file: string) => boolean,
): string {
  if (posix.normalize(display) === '.') return message;
  return message.replace(MESSAGE_POSITION, (whole, file: string, line: string) =>
    isCatalogFile(file) ? `${underCatalog(display, file)}:${line}` : whole,
  );
}
