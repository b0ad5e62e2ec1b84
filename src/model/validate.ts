/**
 * Model validation (opm's Model.Validate, operator-registry `alpha/model/model.go`): small named
 * rules, each with a stable rule id. Every rule feeds two outputs: opm's error tree (`invalid
 * index` → package → channel → bundle, rendered as opm does in `alpha/model/error.go`) and flat
 * findings with locations and plainer words for graph problems.
 */
import type { Location } from '../declcfg/types.js';
import type { Finding } from '../findings.js';
import type { RuleId } from '../rules.js';
import { tryParseProperties } from '../property/property.js';
import { goQuote } from '../go/fmt.js';
import {
  bundleLocation,
  bundleVersionString,
  type Model,
  type ModelBundle,
  type ModelChannel,
  type ModelPackage,
} from './model.js';
import { formatRelease } from './release.js';
import { formatSemver, rangeError } from './semver.js';
import { compareUtf8 } from '../go/utf8.js';
import { positionText } from '../errors.js';
import { ChannelGraph } from './channel-graph.js';

/** A node of opm's validation error tree; a string child is a leaf error. */
export interface ValidationNode {
  message: string;
  children: (ValidationNode | string)[];
}

/** Render the tree as opm does: `├── `, `└── `, `│   ` prefixes, trimmed. */
export function renderValidationTree(root: ValidationNode): string {
  let out = '';
  const walk = (node: ValidationNode, prefix: string, isLast: boolean): void => {
    out += `${prefix}${node.message}${node.children.length > 0 ? ':' : ''}\n`;
    // The parent's own connector becomes blank space (it was the last sibling) or a vertical bar.
    const runes = [...prefix];
    const base = runes.length >= 4 ? runes.slice(0, -4).join('') + (isLast ? '    ' : '│   ') : '';
    node.children.forEach((child, i) => {
      const last = i === node.children.length - 1;
      const p = base + (last ? '└── ' : '├── ');
      if (typeof child === 'string') out += `${p}${child}\n`;
      else walk(child, p, last);
    });
  };
  walk(root, '', true);
  return out.trim();
}

interface Scope {
  node: ValidationNode;
  findings: Finding[];
}

function place(f: Finding, loc: Location | undefined, pkg?: string, ch?: string, b?: string): Finding {
  if (loc !== undefined) {
    f.file = loc.file;
    f.line = loc.line;
  }
  if (pkg) f.package = pkg;
  if (ch) f.channel = ch;
  if (b) f.bundle = b;
  return f;
}

/**
 * Record one problem: `opmText` goes into opm's tree (when given), the finding (when given) into
 * the flat list. Some problems appear in only one of the two: opm's tree keeps its own wording,
 * and findings skip what conversion already reported.
 */
function report(scope: Scope, opmText: string | undefined, f: Finding | undefined): void {
  if (opmText !== undefined) scope.node.children.push(opmText);
  if (f !== undefined) scope.findings.push(f);
}

function err(rule: RuleId, message: string): Finding {
  return { rule, severity: 'error', message };
}

// ---------------------------------------------------------------------------------------------
// Replaces chain

function describeLoc(b: ModelBundle | undefined): string {
  const loc = b?.blob?.loc;
  return loc ? ` (${positionText(loc)})` : '';
}

function validateReplacesChain(ch: ModelChannel, scope: Scope): void {
  const a = ChannelGraph.fromModel(ch).chain();
  const where = (f: Finding): Finding => place(f, ch.loc, ch.package.name, ch.name);
  if (a.heads.length === 0) {
    report(
      scope,
      'no channel head found in graph',
      where(
        err(
          'channel.no-head',
          `channel ${goQuote(ch.name)} has no head: every bundle is replaced or skipped by another, so the upgrade graph has no entry point`,
        ),
      ),
    );
    return;
  }
  if (a.heads.length > 1) {
    // A listed bundle without a blob is reported as a missing entry (channel.entry-bundle-missing);
    // counting it as a head too would report one mistake twice.
    const real = a.heads.filter((n) => ch.bundles.get(n)?.blob !== undefined);
    const names = real.map((n) => `${n}${describeLoc(ch.bundles.get(n))}`).join(', ');
    report(
      scope,
      `multiple channel heads found in graph: ${a.heads.join(', ')}`,
      real.length < 2
        ? undefined
        : where(
            err(
              'channel.multiple-heads',
              `channel ${goQuote(ch.name)} has ${real.length} heads (bundles nothing replaces or skips): ${names}; exactly one is allowed — link the others with replaces or skips`,
            ),
          ),
    );
    return;
  }
  if (a.cycle !== undefined) {
    report(
      scope,
      `detected cycle in replaces chain of upgrade graph: ${a.cycle.join(' -> ')}`,
      where(
        err(
          'channel.cycle',
          `channel ${goQuote(ch.name)} has a cycle in its replaces chain: ${a.cycle.join(' -> ')}`,
        ),
      ),
    );
    return;
  }
  if (a.stranded.length > 0) {
    let edge = '';
    if (a.tail !== undefined) {
      edge =
        a.tail.replaces === ''
          ? `; the chain from head ${goQuote(a.heads[0] ?? '')} ends at ${goQuote(a.tail.name)}, which replaces nothing`
          : `; the chain from head ${goQuote(a.heads[0] ?? '')} ends at ${goQuote(a.tail.name)}, whose replaces ${goQuote(a.tail.replaces)} is not in the channel or is skipped`;
    }
    report(
      scope,
      `channel contains one or more stranded bundles: ${a.stranded.join(', ')}`,
      where(
        err(
          'channel.stranded',
          `channel ${goQuote(ch.name)} has stranded bundles (not reachable from the head by replaces, and not skipped): ${a.stranded.join(', ')}${edge}`,
        ),
      ),
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Bundles

function validateBundle(b: ModelBundle): { node: ValidationNode; findings: Finding[] } {
  const scope: Scope = { node: { message: `invalid bundle ${goQuote(b.name)}`, children: [] }, findings: [] };
  const loc = bundleLocation(b);
  const at = (f: Finding): Finding => place(f, loc, b.package.name, b.channel.name, b.name);
  const missingBlob = b.blob === undefined;

  if (b.name === '') report(scope, 'name must be set', at(err('bundle.name-empty', 'name must be set')));

  if (b.release.length > 0 && b.version !== undefined) {
    const norm = `${b.package.name}-v${formatSemver(b.version)}-${formatRelease(b.release)}`;
    if (b.name !== norm) {
      const msg = `name ${goQuote(b.name)} does not match normalized name ${goQuote(norm)}`;
      report(scope, msg, at(err('bundle.name-not-normalized', msg)));
    }
  }

  const parsed = b.propertiesParse ?? tryParseProperties(b.properties);
  if (!parsed.ok) {
    // Conversion reported it already, with the bundle's name.
    report(scope, parsed.error.message, undefined);
  }

  b.skips.forEach((s, i) => {
    if (s === '') {
      const msg = `skip[${i}] is empty`;
      report(
        scope,
        msg,
        place(err('bundle.skip-empty', msg), b.channel.loc, b.package.name, b.channel.name, b.name),
      );
    }
  });

  if (b.skipRange !== '') {
    const e = rangeError(b.skipRange);
    if (e !== undefined) {
      const msg = `invalid skipRange ${goQuote(b.skipRange)}: ${e}`;
      report(
        scope,
        msg,
        place(
          err('bundle.skip-range-invalid', `channel entry ${goQuote(b.name)}: ${msg}`),
          b.channel.loc,
          b.package.name,
          b.channel.name,
          b.name,
        ),
      );
    }
  }

  if (parsed.ok && parsed.value.packages.length !== 1) {
    const msg = 'must be exactly one property with type "olm.package"';
    // A bundle without blob is reported once, as a missing channel entry bundle.
    report(
      scope,
      msg,
      missingBlob || b.blobReported ? undefined : at(err('bundle.package-property-count', msg)),
    );
  }

  if (b.image === '' && !b.hasObjects) {
    const msg = 'bundle image must be set';
    report(
      scope,
      msg,
      missingBlob
        ? undefined
        : at(
            err(
              'bundle.image-unset',
              `${msg} (the bundle has neither an image nor olm.bundle.object properties)`,
            ),
          ),
    );
  }

  if (b.deprecation !== undefined && b.deprecation.message === '') {
    const msg = 'invalid deprecation: message must be set';
    report(
      scope,
      msg,
      place(err('deprecation.message-empty', msg), b.deprecation.loc, b.package.name, undefined, b.name),
    );
  }

  if (b.version !== undefined && b.version.build.length > 0 && b.release.length > 0) {
    const msg = 'cannot use build metadata in version with a release version';
    report(scope, msg, at(err('bundle.build-metadata-with-release', msg)));
  }
  return scope;
}

// ---------------------------------------------------------------------------------------------
// Channels and packages

function byName<T extends { name: string }>(items: Iterable<T>): T[] {
  return [...items].sort((a, b) => compareUtf8(a.name, b.name));
}

function validateChannel(ch: ModelChannel): Scope {
  const scope: Scope = {
    node: { message: `invalid channel ${goQuote(ch.name)}`, children: [] },
    findings: [],
  };
  const at = (f: Finding): Finding => place(f, ch.loc, ch.package.name, ch.name);
  if (ch.bundles.size === 0) {
    const msg = 'channel must contain at least one bundle';
    report(
      scope,
      msg,
      ch.synthesized
        ? at(
            err(
              'package.default-channel-missing',
              `default channel ${goQuote(ch.name)} of package ${goQuote(ch.package.name)} has no olm.channel blob`,
            ),
          )
        : at(err('channel.empty', `channel ${goQuote(ch.name)} has no entries`)),
    );
  } else {
    validateReplacesChain(ch, scope);
  }
  for (const b of byName(ch.bundles.values())) {
    const r = validateBundle(b);
    if (r.node.children.length > 0) scope.node.children.push(r.node);
    scope.findings.push(...r.findings);
  }
  if (ch.deprecation !== undefined && ch.deprecation.message === '') {
    const msg = 'invalid deprecation: message must be set';
    report(
      scope,
      msg,
      place(err('deprecation.message-empty', msg), ch.deprecation.loc, ch.package.name, ch.name),
    );
  }
  return scope;
}

/**
 * Duplicate versions across all channels of a package, keyed by version string (build metadata and
 * release count; one bundle name in several channels is not a duplicate).
 */
function duplicateVersions(p: ModelPackage): Map<string, ModelBundle[]> {
  const byVersion = new Map<string, Map<string, ModelBundle>>();
  for (const ch of p.channels.values()) {
    for (const b of ch.bundles.values()) {
      const v = bundleVersionString(b);
      let m = byVersion.get(v);
      if (m === undefined) byVersion.set(v, (m = new Map()));
      if (!m.has(b.name)) m.set(b.name, b);
    }
  }
  const out = new Map<string, ModelBundle[]>();
  for (const v of [...byVersion.keys()].sort(compareUtf8)) {
    const m = byVersion.get(v);
    if (m !== undefined && m.size > 1) out.set(v, byName(m.values()));
  }
  return out;
}

function validatePackage(p: ModelPackage): Scope {
  const scope: Scope = {
    node: { message: `invalid package ${goQuote(p.name)}`, children: [] },
    findings: [],
  };
  const at = (f: Finding): Finding => place(f, p.loc, p.name);
  if (p.defaultChannel === undefined) {
    const msg = 'default channel must be set';
    report(
      scope,
      msg,
      at(err('package.default-channel-unset', `package ${goQuote(p.name)} has no defaultChannel`)),
    );
  }
  if (p.channels.size === 0) {
    const msg = 'package must contain at least one channel';
    report(scope, msg, at(err('package.no-channels', `package ${goQuote(p.name)} has no channels`)));
  }
  for (const ch of byName(p.channels.values())) {
    const r = validateChannel(ch);
    if (r.node.children.length > 0) scope.node.children.push(r.node);
    scope.findings.push(...r.findings);
  }
  const dups = duplicateVersions(p);
  if (dups.size > 0) {
    const parts = [...dups.entries()].map(([v, bs]) => `{${v}: [${bs.map((b) => b.name).join(', ')}]}`);
    const opmText = `duplicate versions found in bundles: [${parts.join(' ')}]`;
    scope.node.children.push(opmText);
    for (const [v, bs] of dups) {
      // Bundles without a blob have no version; they are reported as missing already.
      const real = bs.filter((b) => b.blob !== undefined);
      if (real.length < 2) continue;
      const first = real[0];
      const names = real.map((b) => `${b.name}${describeLoc(b)}`).join(', ');
      scope.findings.push(
        place(
          err('package.duplicate-versions', `version ${v} is used by several bundles: ${names}`),
          first?.blob?.loc,
          p.name,
          undefined,
          first?.name,
        ),
      );
    }
  }
  if (p.deprecation !== undefined && p.deprecation.message === '') {
    const msg = 'invalid deprecation: message must be set';
    report(scope, msg, place(err('deprecation.message-empty', msg), p.deprecation.loc, p.name));
  }
  return scope;
}

/** Validate the whole model; `tree` is set when opm would report errors. */
export function validateModel(model: Model): { tree?: ValidationNode; findings: Finding[] } {
  const root: ValidationNode = { message: 'invalid index', children: [] };
  const findings: Finding[] = [];
  for (const p of byName(model.values())) {
    const r = validatePackage(p);
    if (r.node.children.length > 0) root.children.push(r.node);
    findings.push(...r.findings);
  }
  return root.children.length > 0 ? { tree: root, findings } : { findings };
}
