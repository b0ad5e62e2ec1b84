/**
 * Policies a catalog's maintainers may turn on (all off by default): images pinned by digest, a
 * description and an icon on every package, channel names from an agreed list.
 */
import type { Finding } from '../findings.js';
import { goQuote } from '../go/fmt.js';
import { bundlePlace, finding, packages, sortedByName, uniqueBundles, type LintInput } from './context.js';

/** `name@algorithm:hex` (the OCI digest form), e.g. `quay.io/x/y@sha256:…`. */
const DIGEST = /@[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$/;

function isPinned(image: string): boolean {
  return DIGEST.test(image);
}

/** `*` matches any run of characters; everything else is literal. */
function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('*')
    .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

export function policyFindings(input: LintInput): Finding[] {
  const out: Finding[] = [];
  for (const b of uniqueBundles(input.model)) {
    const place = bundlePlace(b);
    if (b.image !== '' && !isPinned(b.image)) {
      out.push(
        finding('policy.image-digest', `bundle image ${goQuote(b.image)} is not pinned by digest`, place),
      );
    }
    const seen = new Set<string>();
    for (const ri of b.relatedImages) {
      if (ri.image === '' || isPinned(ri.image) || seen.has(ri.image) || ri.image === b.image) continue;
      seen.add(ri.image);
      out.push(
        finding('policy.image-digest', `related image ${goQuote(ri.image)} is not pinned by digest`, place),
      );
    }
  }
  const allowed = input.policies.channelNames?.map(globToRegExp);
  for (const p of packages(input.model)) {
    const place = { loc: p.loc, package: p.name };
    if (p.description.trim() === '') {
      out.push(finding('policy.package-description', `package ${goQuote(p.name)} has no description`, place));
    }
    if (p.icon === undefined || p.icon.base64data === '') {
      out.push(finding('policy.package-icon', `package ${goQuote(p.name)} has no icon`, place));
    }
    if (allowed === undefined) continue;
    for (const ch of sortedByName(p.channels.values())) {
      if (ch.synthesized || allowed.some((r) => r.test(ch.name))) continue;
      out.push(
        finding(
          'policy.channel-name',
          `channel name ${goQuote(ch.name)} is not in the allowed list (${(input.policies.channelNames ?? []).join(', ')})`,
          { loc: ch.loc, package: p.name, channel: ch.name },
        ),
      );
    }
  }
  return out;
}
