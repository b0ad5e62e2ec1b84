/**
 * Dependencies resolvable within the catalog. OLM resolves a bundle's `olm.package.required`,
 * `olm.gvk.required` and `olm.constraint` properties against the bundles of every catalog on the
 * cluster (operator-framework/operator-lifecycle-manager, pkg/controller/registry/resolver); a
 * requirement no bundle here satisfies is therefore a warning, not an error (another catalog may
 * satisfy it), while a range or constraint OLM cannot even parse is an error. Version ranges are
 * blang/semver ranges (src/model/semver.ts); constraint values are parsed as
 * operator-framework/api pkg/constraints does: unknown keys are refused, and the raw value may not
 * exceed 128 KiB.
 */
import type { Finding } from '../findings.js';
import { isRecord, type JsonValue } from '../go/json-value.js';
import type { Model, ModelBundle } from '../model/model.js';
import { goQuote } from '../go/fmt.js';
import { parseRange, SemverError, type SemverRange } from '../model/semver.js';
import { propertyValue } from '../property/property.js';
import { checkCelRule } from './cel.js';
import {
  bundlePlace,
  finding,
  isDeprecated,
  uniqueBundles,
  type Gvk,
  type LintInput,
  type Provider,
} from './context.js';

/** operator-framework/api pkg/constraints: maxConstraintSize = 2 << 16 bytes. */
const MAX_CONSTRAINT_BYTES = 2 << 16;

/** A predicate over candidate bundles; `undefined` for parts that cannot be judged offline (cel). */
type Requirement =
  | { kind: 'package'; name: string; range: SemverRange; text: string }
  | { kind: 'gvk'; gvk: Gvk }
  | { kind: 'all' | 'any' | 'not'; of: Requirement[] }
  | { kind: 'cel' };

function asProviders(bundles: readonly ModelBundle[], origin: 0 | 1): Provider[] {
  return bundles.map((b) => {
    const parsed = b.propertiesParse;
    const p: Provider = {
      package: b.package.name,
      name: b.name,
      gvks: parsed?.ok === true ? parsed.value.gvks : [],
      deprecated: isDeprecated(b),
      origin,
    };
    if (b.version !== undefined) p.version = b.version;
    return p;
  });
}

/** The bundles of `model` (a catalog, or part of one) as providers, in model order. */
export function providersOf(model: Model, origin: 0 | 1 = 0): Provider[] {
  return asProviders(uniqueBundles(model), origin);
}

function satisfies(c: Provider, r: Requirement): boolean {
  switch (r.kind) {
    case 'package':
      return c.package === r.name && c.version !== undefined && r.range(c.version);
    case 'gvk':
      return c.gvks.some(
        (g) => g.group === r.gvk.group && g.version === r.gvk.version && g.kind === r.gvk.kind,
      );
    case 'all':
      return r.of.every((x) => satisfies(c, x));
    case 'any':
      return r.of.some((x) => satisfies(c, x));
    // A negation or a CEL rule is not judged here: any bundle may satisfy it.
    case 'not':
    case 'cel':
      return true;
  }
}

function describeGvk(g: Gvk): string {
  return `${g.group}/${g.version}, Kind=${g.kind}`;
}

/** Go's encoding/json matches field names case-insensitively; unknown fields are refused. */
function fieldsOf(
  obj: Record<string, unknown>,
  known: readonly string[],
  where: string,
): { get: (k: string) => unknown; error?: string } {
  const map = new Map<string, unknown>();
  for (const [k, v] of Object.entries(obj)) {
    const match = known.find((n) => n.toLowerCase() === k.toLowerCase());
    if (match === undefined) return { get: () => undefined, error: `${where}: unknown field ${goQuote(k)}` };
    map.set(match, v);
  }
  return { get: (k) => map.get(k) };
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

type Parsed =
  | { ok: true; req: Requirement }
  | {
      ok: false;
      rule: 'constraint.invalid' | 'constraint.cel-invalid' | 'dependency.range-invalid';
      message: string;
    };

function parseRangeOf(text: string, where: string): Parsed | SemverRange {
  try {
    return parseRange(text);
  } catch (e) {
    if (!(e instanceof SemverError)) throw e;
    return {
      ok: false,
      rule: 'dependency.range-invalid',
      message: `${where}: versionRange ${goQuote(text)} is not a valid range: ${e.message}`,
    };
  }
}

const CONSTRAINT_KEYS = ['failureMessage', 'cel', 'package', 'gvk', 'all', 'any', 'not', 'none'] as const;

/** Parse an olm.constraint value (or a nested constraint) into a requirement. */
function parseConstraint(v: unknown, where: string): Parsed {
  if (!isRecord(v))
    return { ok: false, rule: 'constraint.invalid', message: `${where}: value is not an object` };
  const f = fieldsOf(v, CONSTRAINT_KEYS, where);
  if (f.error !== undefined) return { ok: false, rule: 'constraint.invalid', message: f.error };
  const present = CONSTRAINT_KEYS.filter(
    (k) => k !== 'failureMessage' && f.get(k) !== undefined && f.get(k) !== null,
  );
  // `none` is the deprecated spelling of `not`; when both are set OLM ignores `none`.
  const kinds = present.includes('not') ? present.filter((k) => k !== 'none') : present;
  // No constraint, or several in one value: the JSON Schema check (schema.olm.bundle) reports
  // that shape; nothing is judged here.
  const kind = kinds.length === 1 ? kinds[0] : undefined;
  if (kind === undefined) return { ok: true, req: { kind: 'cel' } };
  const body = f.get(kind);
  const at = `${where}.${kind}`;
  if (!isRecord(body))
    return { ok: false, rule: 'constraint.invalid', message: `${at}: value is not an object` };
  switch (kind) {
    case 'cel': {
      const g = fieldsOf(body, ['rule'], at);
      if (g.error !== undefined) return { ok: false, rule: 'constraint.invalid', message: g.error };
      const rule = str(g.get('rule'));
      const problem = checkCelRule(rule);
      if (problem !== undefined) {
        return {
          ok: false,
          rule: 'constraint.cel-invalid',
          message: `${at}.rule ${goQuote(rule)}: ${problem.message} (column ${problem.column})`,
        };
      }
      return { ok: true, req: { kind: 'cel' } };
    }
    case 'package': {
      const g = fieldsOf(body, ['packageName', 'versionRange'], at);
      if (g.error !== undefined) return { ok: false, rule: 'constraint.invalid', message: g.error };
      const text = str(g.get('versionRange'));
      const range = parseRangeOf(text, at);
      if (typeof range !== 'function') return range;
      return { ok: true, req: { kind: 'package', name: str(g.get('packageName')), range, text } };
    }
    case 'gvk': {
      const g = fieldsOf(body, ['group', 'version', 'kind'], at);
      if (g.error !== undefined) return { ok: false, rule: 'constraint.invalid', message: g.error };
      return {
        ok: true,
        req: {
          kind: 'gvk',
          gvk: { group: str(g.get('group')), version: str(g.get('version')), kind: str(g.get('kind')) },
        },
      };
    }
    default: {
      const g = fieldsOf(body, ['constraints'], at);
      if (g.error !== undefined) return { ok: false, rule: 'constraint.invalid', message: g.error };
      const list = g.get('constraints');
      if (!Array.isArray(list)) {
        return { ok: false, rule: 'constraint.invalid', message: `${at}: constraints must be a list` };
      }
      const of: Requirement[] = [];
      for (let i = 0; i < list.length; i++) {
        const r = parseConstraint(list[i], `${at}.constraints[${i}]`);
        if (!r.ok) return r;
        of.push(r.req);
      }
      const compound = kind === 'all' || kind === 'any' ? kind : 'not';
      return { ok: true, req: { kind: compound, of } };
    }
  }
}

function describe(r: Requirement): string {
  switch (r.kind) {
    case 'package':
      return `package ${goQuote(r.name)} in range ${goQuote(r.text)}`;
    case 'gvk':
      return `an API ${describeGvk(r.gvk)}`;
    case 'cel':
      return 'a cel rule';
    default:
      return `${r.kind}(${r.of.map(describe).join(', ')})`;
  }
}

function unsatisfiedRule(r: Requirement): 'dependency.package-unsatisfied' | 'dependency.gvk-unsatisfied' {
  if (r.kind === 'gvk') return 'dependency.gvk-unsatisfied';
  if ((r.kind === 'all' || r.kind === 'any') && r.of.every((x) => x.kind === 'gvk'))
    return 'dependency.gvk-unsatisfied';
  return 'dependency.package-unsatisfied';
}

export function dependencyFindings(input: LintInput): Finding[] {
  const out: Finding[] = [];
  // The whole catalog's bundles: given when the model is only part of the catalog.
  const here = uniqueBundles(input.model);
  const pool = [
    ...(input.providers ?? asProviders(here, 0)),
    ...input.others.flatMap((m) => providersOf(m, 1)),
  ];
  for (const b of here) {
    const place = bundlePlace(b);
    const checks: { req: Requirement; what: string }[] = [];
    b.properties.forEach((p, i) => {
      const where = `properties[${i}] ${p.type}`;
      const v: JsonValue | undefined = propertyValue(p);
      if (p.type === 'olm.package.required' && isRecord(v)) {
        const g = fieldsOf(v, ['packageName', 'versionRange'], where);
        const name = str(g.get('packageName'));
        const text = str(g.get('versionRange'));
        const range = parseRangeOf(text, where);
        if (typeof range !== 'function') {
          if (!range.ok) out.push(finding(range.rule, range.message, place));
          return;
        }
        checks.push({ req: { kind: 'package', name, range, text }, what: where });
      } else if (p.type === 'olm.gvk.required' && isRecord(v)) {
        const g = fieldsOf(v, ['group', 'version', 'kind'], where);
        checks.push({
          req: {
            kind: 'gvk',
            gvk: { group: str(g.get('group')), version: str(g.get('version')), kind: str(g.get('kind')) },
          },
          what: where,
        });
      } else if (p.type === 'olm.constraint') {
        if (JSON.stringify(v ?? null).length > MAX_CONSTRAINT_BYTES) {
          out.push(
            finding(
              'constraint.invalid',
              `${where}: the value is larger than OLM's limit of ${MAX_CONSTRAINT_BYTES} bytes`,
              place,
            ),
          );
          return;
        }
        const r = parseConstraint(v, where);
        if (!r.ok) out.push(finding(r.rule, r.message, place));
        else checks.push({ req: r.req, what: where });
      }
    });
    for (const { req, what } of checks) {
      const matching = pool.filter((c) => satisfies(c, req));
      const live = matching.filter((c) => !c.deprecated);
      if (matching.length === 0) {
        out.push(
          finding(
            unsatisfiedRule(req),
            `${what}: no bundle provides ${describe(req)}${input.others.length > 0 ? ' in this catalog or the --with catalogs' : ' in this catalog'}`,
            place,
          ),
        );
      } else if (live.length === 0) {
        const names = matching
          .slice(0, 3)
          .map((c) => c.name)
          .join(', ');
        out.push(
          finding(
            'dependency.deprecated-only',
            `${what}: ${describe(req)} is provided only by deprecated bundles (${names}${matching.length > 3 ? ', …' : ''})`,
            place,
          ),
        );
      } else if (!live.some((c) => c.origin === 0)) {
        const names = live
          .slice(0, 3)
          .map((c) => `${c.package}/${c.name}`)
          .join(', ');
        out.push(
          finding(
            'dependency.other-catalog',
            `${what}: ${describe(req)} is provided only by another catalog (${names}${live.length > 3 ? ', …' : ''})`,
            place,
          ),
        );
      }
    }
  }
  return out;
}
