/**
 * Upgrade graph health, as OLM resolves upgrades within a channel: an installed bundle X may
 * upgrade to Y when Y replaces X, Y skips X, or X's version is in Y's skipRange. opm checks only the
 * replaces chain (src/model/validate.ts); these rules look at the whole graph. Channels that fail
 * opm's own graph checks (no head, several heads, a cycle, stranded bundles) are left to those.
 */
import type { Finding } from '../findings.js';
import { goQuote } from '../go/fmt.js';
import type { ModelBundle, ModelChannel } from '../model/model.js';
import { compareSemver, formatSemver, parseRange, SemverError, type SemverRange } from '../model/semver.js';
import { analyzeChain } from '../model/validate.js';
import { finding, packages, sortedByName, type LintInput } from './context.js';

function tryRange(text: string): SemverRange | undefined {
  if (text === '') return undefined;
  try {
    return parseRange(text);
  } catch (e) {
    if (e instanceof SemverError) return undefined;
    throw e;
  }
}

/** Bundles that can reach `head` by upgrades (reverse search from the head). */
function reachingHead(
  ch: ModelChannel,
  head: string,
  ranges: ReadonlyMap<string, SemverRange | undefined>,
): Set<string> {
  const bundles = [...ch.bundles.values()];
  const reached = new Set<string>([head]);
  const queue = [head];
  for (let target = queue.pop(); target !== undefined; target = queue.pop()) {
    const y = ch.bundles.get(target);
    if (y === undefined) continue;
    const range = ranges.get(y.name);
    for (const x of bundles) {
      if (reached.has(x.name)) continue;
      const edge =
        y.replaces === x.name ||
        y.skips.includes(x.name) ||
        (range !== undefined && x.version !== undefined && range(x.version));
      if (edge) {
        reached.add(x.name);
        queue.push(x.name);
      }
    }
  }
  return reached;
}

/** Names, the first 20 of them: a channel of hundreds of bundles must not make a page-long line. */
function listed(names: string[]): string {
  const shown = names.slice(0, 20).join(', ');
  return names.length > 20 ? `${shown} and ${names.length - 20} more` : shown;
}

function channelFindings(ch: ModelChannel, out: Finding[]): void {
  const place = { loc: ch.loc, package: ch.package.name, channel: ch.name };
  const a = analyzeChain(ch);
  const head = a.heads[0];
  const healthy =
    a.heads.length === 1 && a.cycle === undefined && a.stranded.length === 0 && head !== undefined;
  if (!healthy) return;
  const byName = (n: string): ModelBundle | undefined => ch.bundles.get(n);

  // Each skipRange parsed once, for the reachability search and the unmatched-range check.
  const ranges = new Map<string, SemverRange | undefined>(
    [...ch.bundles.values()].map((b) => [b.name, tryRange(b.skipRange)]),
  );
  const reached = reachingHead(ch, head, ranges);
  const stranded = sortedByName(
    [...ch.bundles.values()].filter((b) => b.blob !== undefined && !reached.has(b.name)),
  );
  if (stranded.length > 0) {
    out.push(
      finding(
        'upgrade.stranded',
        `channel ${goQuote(ch.name)}: ${listed(stranded.map((b) => b.name))} cannot upgrade to the head ${goQuote(head)}: no chain of replaces, skips or skipRange leads there`,
        place,
      ),
    );
  }
  const h = byName(head);
  if (h?.deprecation !== undefined && ch.deprecation === undefined && ch.package.deprecation === undefined) {
    out.push(
      finding(
        'upgrade.deprecated-head',
        `channel ${goQuote(ch.name)}: its head ${goQuote(head)} is deprecated, so new installs get a deprecated bundle`,
        place,
      ),
    );
  }

  for (const y of sortedByName(ch.bundles.values())) {
    if (y.version === undefined) continue;
    const yv = y.version;
    const targets = [
      ...(y.replaces === '' ? [] : [['replaces', y.replaces] as const]),
      ...y.skips.map((s) => ['skips', s] as const),
    ];
    for (const [how, name] of targets) {
      const x = byName(name);
      if (x?.version === undefined || compareSemver(x.version, yv) <= 0) continue;
      out.push(
        finding(
          'upgrade.downgrade-edge',
          `channel ${goQuote(ch.name)}: ${y.name} (${formatSemver(yv)}) ${how} ${x.name}, a higher version (${formatSemver(x.version)}): upgrading along this edge goes backwards`,
          { ...place, bundle: y.name },
        ),
      );
    }
    const range = ranges.get(y.name);
    if (range !== undefined) {
      // Any bundle of the package counts: users switching channels upgrade through skipRange too.
      const matched = [...ch.package.channels.values()].some((c) =>
        [...c.bundles.values()].some((x) => x.name !== y.name && x.version !== undefined && range(x.version)),
      );
      if (!matched) {
        out.push(
          finding(
            'upgrade.skip-range-unmatched',
            `channel ${goQuote(ch.name)}: the skipRange ${goQuote(y.skipRange)} of ${y.name} matches no other bundle of the package`,
            { ...place, bundle: y.name },
          ),
        );
      }
    }
  }
}

export function upgradeGraphFindings(input: LintInput): Finding[] {
  const out: Finding[] = [];
  for (const p of packages(input.model)) {
    for (const ch of sortedByName(p.channels.values())) {
      if (ch.synthesized || ch.bundles.size === 0) continue;
      channelFindings(ch, out);
    }
    const dc = p.defaultChannel;
    if (dc !== undefined && !dc.synthesized && dc.deprecation !== undefined && p.deprecation === undefined) {
      out.push(
        finding(
          'upgrade.deprecated-default-channel',
          `package ${goQuote(p.name)}: its default channel ${goQuote(dc.name)} is deprecated, so default installs land on a deprecated channel`,
          { loc: p.loc, package: p.name },
        ),
      );
    }
  }
  return out;
}
