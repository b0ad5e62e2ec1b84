/**
 * The diff for people: text for a terminal (colours through `Paint`, which the command line gives)
 * and Markdown for a pull-request comment. Upgrade impact comes first, then one group per package.
 */
import { compareUtf8 } from '../go/utf8.js';
import { mdCode } from '../util/markdown.js';
import type { CatalogDiff, DeprecationRef } from './diff.js';
import { impactSentence, type UpgradeImpact } from './upgrade-impact.js';

export interface Paint {
  added(s: string): string;
  removed(s: string): string;
  changed(s: string): string;
  impact(s: string): string;
  heading(s: string): string;
}

const NO_PAINT: Paint = {
  added: (s) => s,
  removed: (s) => s,
  changed: (s) => s,
  impact: (s) => s,
  heading: (s) => s,
};

type Sign = '+' | '-' | '~' | '!';

/**
 * How a format writes a value taken from the catalog: a name, a property type, a deprecation
 * message. Every such value goes through it (Markdown puts each in a code span, so none can forge
 * structure in a pull-request comment).
 */
type Name = (s: string) => string;

interface Item {
  sign: Sign;
  /** Built with `name()` around every value from the catalog, so each format can mark them. */
  text: (name: Name) => string;
}

interface Group {
  title: (name: Name) => string;
  items: Item[];
}

const list = (xs: readonly string[], name: Name): string =>
  xs.length === 0 ? '(none)' : xs.map(name).join(', ');

function deprecationWhat(d: DeprecationRef, name: Name): string {
  if (d.schema === 'olm.package') return 'the package';
  const kind = d.schema === 'olm.channel' ? 'channel' : d.schema === 'olm.bundle' ? 'bundle' : name(d.schema);
  return `${kind} ${name(d.name)}`;
}

/** Impacts of removed packages and channels are told once per channel, with the bundles listed. */
function impactItems(impacts: readonly UpgradeImpact[]): Item[] {
  const items: Item[] = [];
  const grouped = new Map<string, UpgradeImpact[]>();
  for (const i of impacts) {
    if (i.reason === 'stranded' || i.reason === 'removed') {
      items.push({ sign: '!', text: (name) => impactSentence(i, name) });
      continue;
    }
    const key = `${i.package}\0${i.channel}`;
    const g = grouped.get(key);
    if (g === undefined) grouped.set(key, [i]);
    else g.push(i);
  }
  for (const g of grouped.values()) {
    const first = g[0] as UpgradeImpact;
    const what = first.reason === 'package-removed' ? 'the package was removed' : 'the channel was removed';
    items.push({
      sign: '!',
      text: (name) =>
        `users on ${list(
          g.map((i) => i.bundle),
          name,
        )} in channel ${name(first.channel)} of package ${name(first.package)} can no longer upgrade: ${what}`,
    });
  }
  return items;
}

function groups(d: CatalogDiff): Group[] {
  const out: Group[] = [];
  if (d.packagesAdded.length + d.packagesRemoved.length > 0) {
    out.push({
      title: () => 'packages',
      items: [
        ...d.packagesAdded.map((p): Item => ({ sign: '+', text: (name) => `package ${name(p)}` })),
        ...d.packagesRemoved.map((p): Item => ({ sign: '-', text: (name) => `package ${name(p)}` })),
      ],
    });
  }
  const byPackage = new Map<string, Item[]>();
  const add = (pkg: string, item: Item): void => {
    let items = byPackage.get(pkg);
    if (items === undefined) byPackage.set(pkg, (items = []));
    items.push(item);
  };
  for (const c of d.defaultChannelsChanged) {
    add(c.package, { sign: '~', text: (name) => `default channel ${name(c.before)} → ${name(c.after)}` });
  }
  for (const c of d.packagesChanged) {
    add(c.package, { sign: '~', text: (name) => `package blob changed: ${c.changed.map(name).join(', ')}` });
  }
  for (const c of d.channelsAdded)
    add(c.package, { sign: '+', text: (name) => `channel ${name(c.channel)}` });
  for (const c of d.channelsRemoved)
    add(c.package, { sign: '-', text: (name) => `channel ${name(c.channel)}` });
  for (const b of d.bundlesAdded) add(b.package, { sign: '+', text: (name) => `bundle ${name(b.bundle)}` });
  for (const b of d.bundlesRemoved) add(b.package, { sign: '-', text: (name) => `bundle ${name(b.bundle)}` });
  for (const b of d.bundlesChanged) {
    add(b.package, {
      sign: '~',
      text: (name) => `bundle ${name(b.bundle)} changed although released: ${b.changed.map(name).join(', ')}`,
    });
  }
  for (const e of d.entriesAdded) {
    add(e.package, { sign: '+', text: (name) => `entry ${name(e.bundle)} in channel ${name(e.channel)}` });
  }
  for (const e of d.entriesRemoved) {
    add(e.package, { sign: '-', text: (name) => `entry ${name(e.bundle)} in channel ${name(e.channel)}` });
  }
  for (const e of d.edgesChanged) {
    const show = (v: string | string[], name: Name): string =>
      Array.isArray(v) ? `[${list(v, name)}]` : v === '' ? '(none)' : name(v);
    add(e.package, {
      sign: '~',
      text: (name) =>
        `${name(e.bundle)} in channel ${name(e.channel)}: ${e.field} ${show(e.before, name)} → ${show(e.after, name)}`,
    });
  }
  for (const x of d.deprecationsAdded) {
    add(x.package, {
      sign: '+',
      text: (name) => `deprecation of ${deprecationWhat(x, name)}: ${name(JSON.stringify(x.message))}`,
    });
  }
  for (const x of d.deprecationsRemoved) {
    add(x.package, {
      sign: '-',
      text: (name) => `deprecation of ${deprecationWhat(x, name)}: ${name(JSON.stringify(x.message))}`,
    });
  }
  for (const x of d.deprecationsChanged) {
    add(x.package, {
      sign: '~',
      text: (name) =>
        `deprecation of ${deprecationWhat(x, name)}: ${name(JSON.stringify(x.before))} → ${name(JSON.stringify(x.message))}`,
    });
  }
  for (const pkg of [...byPackage.keys()].sort(compareUtf8)) {
    out.push({ title: (name) => `package ${name(pkg)}`, items: byPackage.get(pkg) ?? [] });
  }
  return out;
}

function paintSign(p: Paint, sign: Sign, s: string): string {
  if (sign === '+') return p.added(s);
  if (sign === '-') return p.removed(s);
  if (sign === '!') return p.impact(s);
  return p.changed(s);
}

/**
 * Text for a terminal; '' when nothing differs. `escape` makes each line safe to show (catalog
 * names may hold control characters) before it is coloured.
 */
export function diffText(
  d: CatalogDiff,
  paint: Paint = NO_PAINT,
  escape: (s: string) => string = (s) => s,
): string {
  const plain = (s: string): string => s;
  let out = '';
  const impacts = impactItems(d.upgradeImpact);
  if (impacts.length > 0) {
    out += `${paint.impact(`upgrade impact: ${d.upgradeImpact.length} bundle${d.upgradeImpact.length === 1 ? '' : 's'} can no longer upgrade`)}\n`;
    for (const i of impacts) out += `  ${paint.impact(escape(`${i.sign} ${i.text(plain)}`))}\n`;
  }
  for (const g of groups(d)) {
    out += `${paint.heading(escape(g.title(plain)))}\n`;
    for (const i of g.items) out += `  ${paintSign(paint, i.sign, escape(`${i.sign} ${i.text(plain)}`))}\n`;
  }
  return out;
}

const MARKDOWN_SIGN: Record<Sign, string> = { '+': 'added', '-': 'removed', '~': 'changed', '!': '⚠️' };

/**
 * Markdown for a pull-request comment. Every value from the catalog is written as a code span
 * (mdCode), so the comment's structure is this function's alone.
 */
export function diffMarkdown(d: CatalogDiff): string {
  let out = '## Catalog diff\n\n';
  const impacts = impactItems(d.upgradeImpact);
  const gs = groups(d);
  if (impacts.length === 0 && gs.length === 0) return `${out}No changes.\n`;
  if (impacts.length > 0) {
    out += `### ⚠️ Upgrade impact: ${d.upgradeImpact.length} bundle${d.upgradeImpact.length === 1 ? '' : 's'} can no longer upgrade\n\n`;
    for (const i of impacts) out += `- ${i.text(mdCode)}\n`;
    out += '\n';
  } else {
    out += 'No upgrade impact: every bundle that could upgrade still can.\n\n';
  }
  for (const g of gs) {
    out += `### ${g.title(mdCode)}\n\n`;
    for (const i of g.items) out += `- ${MARKDOWN_SIGN[i.sign]}: ${i.text(mdCode)}\n`;
    out += '\n';
  }
  return out;
}
