/**
 * Beyond opm: the rules of `opm validate` that apply to one bundle, run on an unpacked bundle image
 * by `alpha bundle validate` — misspelt CSV annotation keys, an icon whose bytes are not its declared
 * media type, olm.maxOpenShiftVersion values that are no version, dependency ranges OLM cannot parse,
 * CEL constraints that do not compile. Warnings with the file (as in the image) and line; they never
 * change opm's verdict.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Finding } from '../../findings.js';
import type { RuleId } from '../../rules.js';
import { goQuote } from '../../go/fmt.js';
import { compareUtf8 } from '../../go/utf8.js';
import { decodeFirstDocument } from '../../bundle/decode.js';
import { detectMediaType } from '../../util/icon-type.js';
import { rangeError } from '../../model/semver.js';
import { intendedKey, tolerantVersionError } from '../../lint/metadata.js';
import { checkCelRule } from '../../lint/cel.js';
import { dependenciesOf } from '../../authoring/content/dependency-checks.js';
import { isObj, list, obj, str } from '../../authoring/content/go-values.js';

/** The 1-based line of the first occurrence of `needle` in `text` (1 when absent). */
function lineOf(text: string, needle: string): number {
  const at = text.indexOf(needle);
  return at === -1 ? 1 : text.slice(0, at).split('\n').length;
}

function warning(rule: RuleId, message: string, file: string, line: number): Finding {
  return { rule, severity: 'warning', message, file, line };
}

async function documents(dir: string): Promise<Array<{ name: string; text: string; doc: unknown }>> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort(compareUtf8);
  } catch {
    return [];
  }
  const out: Array<{ name: string; text: string; doc: unknown }> = [];
  for (const name of names) {
    try {
      const text = await readFile(path.join(dir, name), 'utf8');
      const d = decodeFirstDocument(text);
      out.push({ name, text, doc: 'value' in d ? d.value : undefined });
    } catch {
      // opm's checks report what does not parse.
    }
  }
  return out;
}

function csvFindings(file: string, text: string, csv: unknown): Finding[] {
  const out: Finding[] = [];
  const annotations = obj(obj(csv, 'metadata'), 'annotations') ?? {};
  for (const key of Object.keys(annotations).sort(compareUtf8)) {
    const meant = intendedKey(key);
    if (meant === undefined) continue;
    const how =
      key.toLowerCase() === meant.toLowerCase() ? 'differs only by case from' : 'looks like a misspelling of';
    out.push(
      warning(
        'metadata.annotation-key',
        `CSV annotation ${goQuote(key)} ${how} ${goQuote(meant)}, which OLM reads; as written it is ignored`,
        file,
        lineOf(text, key),
      ),
    );
  }
  const props = annotations['olm.properties'];
  if (typeof props === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(props);
    } catch {
      parsed = undefined;
    }
    for (const p of Array.isArray(parsed) ? parsed : []) {
      if (!isObj(p) || p.type !== 'olm.maxOpenShiftVersion') continue;
      const v = p.value;
      const text2 =
        typeof v === 'number' ? String(v) : typeof v === 'string' ? v.replace(/^"+|"+$/g, '') : undefined;
      const problem =
        text2 === undefined
          ? 'the value is not a version string'
          : text2 === ''
            ? undefined
            : tolerantVersionError(text2);
      if (problem !== undefined)
        out.push(
          warning(
            'metadata.max-openshift-version',
            `olm.maxOpenShiftVersion (CSV annotation olm.properties): ${problem}`,
            file,
            lineOf(text, 'olm.maxOpenShiftVersion'),
          ),
        );
    }
  }
  for (const icon of list(obj(csv, 'spec'), 'icon')) {
    const data = str(icon, 'base64data');
    if (data === '') continue;
    const declared = str(icon, 'mediatype');
    const detected = detectMediaType(Buffer.from(data, 'base64'));
    const base = declared.split(';', 1)[0]?.trim().toLowerCase() ?? '';
    const aliases: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/svg': 'image/svg+xml' };
    if (detected === (aliases[base] ?? base)) continue;
    const what = detected === '' ? 'bytes of no known image type' : `${detected} bytes`;
    out.push(
      warning(
        'metadata.icon-mediatype',
        `the CSV icon is declared ${goQuote(declared)} but holds ${what}${detected === '' ? '' : `; set mediatype to ${goQuote(detected)}`}`,
        file,
        lineOf(text, 'base64data'),
      ),
    );
  }
  return out;
}

function dependencyFindings(file: string, text: string, deps: unknown[]): Finding[] {
  const out: Finding[] = [];
  for (const d of deps) {
    const type = str(d, 'type');
    const value = isObj(d) ? d.value : undefined;
    if (type === 'olm.package') {
      const range = str(value, 'version');
      const bad = range === '' ? undefined : rangeError(range);
      if (bad !== undefined)
        out.push(
          warning(
            'dependency.range-invalid',
            `olm.package dependency on ${goQuote(str(value, 'packageName'))}: version range ${goQuote(range)}: ${bad}`,
            file,
            lineOf(text, range),
          ),
        );
    }
    if (type === 'olm.constraint') {
      const rule = str(obj(value, 'cel'), 'rule');
      const bad = rule === '' ? undefined : checkCelRule(rule);
      if (bad !== undefined)
        out.push(
          warning(
            'constraint.cel-invalid',
            `olm.constraint cel rule ${goQuote(rule)}: column ${bad.column}: ${bad.message}`,
            file,
            lineOf(text, 'rule'),
          ),
        );
    }
  }
  return out;
}

/** The one-bundle rules on the bundle unpacked at `root`; files named as in the image. */
export async function bundleRuleFindings(root: string): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const m of await documents(path.join(root, 'manifests')))
    if (isObj(m.doc) && m.doc.kind === 'ClusterServiceVersion')
      out.push(...csvFindings(`manifests/${m.name}`, m.text, m.doc));
  for (const m of await documents(path.join(root, 'metadata'))) {
    const deps = dependenciesOf(m.doc);
    if (deps !== undefined) out.push(...dependencyFindings(`metadata/${m.name}`, m.text, deps));
  }
  return out;
}
