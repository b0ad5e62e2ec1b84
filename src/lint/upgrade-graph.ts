/**
 * Upgrade graph health, as OLM resolves upgrades within a channel: an installed bundle X may
 * upgrade to Y when Y replaces X, Y skips X, or X's version is in Y's skipRange. opm checks only the
 * replaces chain (src/model/validate.ts); these rules look at the whole graph. Channels that fail
 * opm's own graph checks (no head, several heads, a cycle, stranded bundles) are left to those.
 */
import type { Finding } from '../findings.js';
import { goQuote } from '../go/fmt.js';
import type { ModelBundle, ModelChannel, ModelPackage } from '../model/model.js';
import { ChannelGraph, VersionIndex } from '../model/channel-graph.js';
import { compareSemver, formatSemver } from '../model/semver.js';
import { finding, packages, sortedByName, type LintInput } from './context.js';

/** The versions of all bundles of a package, for skipRange matches across its channels. */
function packageVersions(p: ModelPackage): VersionIndex<string> {
  const items: { item: string; version: NonNullable<ModelBundle['version']> }[] = [];
  for (const c of p.channels.values()) {
    for (const b of c.bundles.values())
      if (b.version !== undefined) items.push({ item: b.name, version: b.version });
  }
  return new VersionIndex(items);
}

/** Names, the first 20 of them: a channel of hundreds of bundles must not make a page-long line. */
function listed(names: string[]): string {
  const shown = names.slice(0, 20).join(', ');
  return names.length > 20 ? `${shown} and ${names.length - 20} more` : shown;
}

function channelFindings(ch: ModelChannel, versions: () => VersionIndex<string>, out: Finding[]): void {
  const place = { loc: ch.loc, package: ch.package.name, channel: ch.name };
  const graph = ChannelGraph.fromModel(ch);
  const a = graph.chain();
  const head = a.heads[0];
  const healthy =
    a.heads.length === 1 && a.cycle === undefined && a.stranded.length === 0 && head !== undefined;
  if (!healthy) return;
  const byName = (n: string): ModelBundle | undefined => ch.bundles.get(n);

  const reached = graph.reaching([head]);
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
    const range = graph.skipRangeOf(y);
    if (range !== undefined) {
      // Any bundle of the package counts: users switching channels upgrade through skipRange too.
      if (!versions().someMatching(range, (x) => x !== y.name)) {
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
    let index: VersionIndex<string> | undefined;
    const versions = (): VersionIndex<string> => (index ??= packageVersions(p));
    for (const ch of sortedByName(p.channels.values())) {
      if (ch.synthesized || ch.bundles.size === 0) continue;
      channelFindings(ch, versions, out);
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
