/**
 * The diff for people: text for a terminal (colours through `Paint`, which the command line gives)
 * and Markdown for a pull-request comment. Upgrade impact comes first, then one group per package.
 */
import { compareUtf8 } from '../go/utf8.js';
import { marshal } from '../go/json-encode.js';
import type { RelatedImage } from '../declcfg/types.js';
import { mdCode } from '../util/markdown.js';
import type { CatalogDiff, ContentChange, DeprecationRef, EdgeChange } from './diff.js';
import { impactSentence, type UpgradeImpact } from './upgrade-impact.js';
import type { CrdEdgeProblem } from './crd-edges.js';

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
 * structure in a pull-request comment; text escapes control characters).
 */
type Name = (s: string) => string;

/** What a format does with the pieces of a line. */
interface Style {
  name: Name;
  /** The part of a line that tells what a list gained (green in a terminal). */
  added: (s: string) => string;
  /** The part that tells what a list lost (red in a terminal). */
  removed: (s: string) => string;
}

type Line = (style: Style) => string;

interface Item {
  sign: Sign;
  /** Built with `style.name()` around every value from the catalog, so each format can mark them. */
  text: Line;
  /** Lines under the item: what each list-valued aspect of a changed blob gained and lost. */
  details?: Line[];
}

interface Group {
  title: (name: Name) => string;
  items: Item[];
}

const list = (xs: readonly string[], name: Name): string =>
  xs.length === 0 ? '(none)' : xs.map(name).join(', ');

/**
 * `added a, b; removed c`: what a list gained and lost, never the whole lists (a bundle's `skips`
 * can hold twenty names of which one changed).
 */
function delta<T>(
  added: readonly T[],
  removed: readonly T[],
  show: (x: T, style: Style) => string,
  style: Style,
): string {
  const parts: string[] = [];
  const all = (xs: readonly T[]): string => xs.map((x) => show(x, style)).join(', ');
  if (added.length > 0) parts.push(style.added(`added ${all(added)}`));
  if (removed.length > 0) parts.push(style.removed(`removed ${all(removed)}`));
  return parts.join('; ');
}

/**
 * Property values longer than this are told by their length: an `olm.bundle.object` or
 * `olm.csv.metadata` value runs to kilobytes that nobody reads in a review line (`-o json` has them).
 */
const LONGEST_SHOWN_VALUE = 200;

function showValue(field: string, v: unknown, style: Style): string {
  if (field === 'relatedImages' && typeof v === 'object' && v !== null) {
    const r = v as Partial<RelatedImage>;
    const image = style.name(r.image ?? '');
    return r.name === undefined || r.name === '' ? image : `${image} (${style.name(r.name)})`;
  }
  const json = marshal(v, false);
  return json.length <= LONGEST_SHOWN_VALUE ? style.name(json) : `a value of ${json.length} characters`;
}

/** One line per list-valued aspect of a changed blob, in the order of `changed`. */
function contentDetails(c: ContentChange): Line[] {
  const lines: Line[] = [];
  for (const field of c.changed) {
    const added = c.added[field] ?? [];
    const removed = c.removed[field] ?? [];
    if (added.length + removed.length === 0) continue;
    lines.push(
      (style) => `${style.name(field)}: ${delta(added, removed, (v, st) => showValue(field, v, st), style)}`,
    );
  }
  return lines;
}

function edgeText(e: EdgeChange, style: Style): string {
  const where = `${e.field} of ${style.name(e.bundle)} in channel ${style.name(e.channel)}`;
  const { before, after } = e;
  if (Array.isArray(before) || Array.isArray(after)) {
    const b = Array.isArray(before) ? before : [];
    const a = Array.isArray(after) ? after : [];
    // A diff built by an older version, or by hand, may lack the two lists.
    const added = e.added ?? a.filter((x) => !b.includes(x));
    const removed = e.removed ?? b.filter((x) => !a.includes(x));
    return `${where}: ${delta(added, removed, (x, st) => st.name(x), style)}`;
  }
  const show = (v: string): string => (v === '' ? '(none)' : style.name(v));
  return `${where}: ${show(before)} → ${show(after)}`;
}

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
      items.push({ sign: '!', text: ({ name }) => impactSentence(i, name) });
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
      text: ({ name }) =>
        `users on ${list(
          g.map((i) => i.bundle),
          name,
        )} in channel ${name(first.channel)} of package ${name(first.package)} can no longer upgrade: ${what}`,
    });
  }
  return items;
}

/** One line per CRD problem of a new upgrade edge, with its validate rule. */
function crdItems(problems: readonly CrdEdgeProblem[]): Item[] {
  return problems.map((p) => ({
    sign: '!',
    text: ({ name }) =>
      `upgrade ${name(p.from)} -> ${name(p.to)} (${p.edge}) in channel ${name(p.channel)} of package ${name(p.package)}: CRD ${name(JSON.stringify(p.crd))}: ${name(p.message)} [${p.rule}]`,
  }));
}

const crdHeading = (n: number): string =>
  `CRD upgrade safety: ${n} problem${n === 1 ? '' : 's'} on new upgrade edges`;

function groups(d: CatalogDiff): Group[] {
  const out: Group[] = [];
  if (d.packagesAdded.length + d.packagesRemoved.length > 0) {
    out.push({
      title: () => 'packages',
      items: [
        ...d.packagesAdded.map((p): Item => ({ sign: '+', text: ({ name }) => `package ${name(p)}` })),
        ...d.packagesRemoved.map((p): Item => ({ sign: '-', text: ({ name }) => `package ${name(p)}` })),
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
    add(c.package, { sign: '~', text: ({ name }) => `default channel ${name(c.before)} → ${name(c.after)}` });
  }
  for (const c of d.packagesChanged) {
    add(c.package, {
      sign: '~',
      text: ({ name }) => `package blob changed: ${c.changed.map(name).join(', ')}`,
      details: contentDetails(c),
    });
  }
  for (const c of d.channelsAdded)
    add(c.package, { sign: '+', text: ({ name }) => `channel ${name(c.channel)}` });
  for (const c of d.channelsRemoved)
    add(c.package, { sign: '-', text: ({ name }) => `channel ${name(c.channel)}` });
  for (const b of d.bundlesAdded)
    add(b.package, { sign: '+', text: ({ name }) => `bundle ${name(b.bundle)}` });
  for (const b of d.bundlesRemoved)
    add(b.package, { sign: '-', text: ({ name }) => `bundle ${name(b.bundle)}` });
  for (const b of d.bundlesChanged) {
    add(b.package, {
      sign: '~',
      text: ({ name }) =>
        `bundle ${name(b.bundle)} changed although released: ${b.changed.map(name).join(', ')}`,
      details: contentDetails(b),
    });
  }
  for (const e of d.entriesAdded) {
    add(e.package, {
      sign: '+',
      text: ({ name }) => `entry ${name(e.bundle)} in channel ${name(e.channel)}`,
    });
  }
  for (const e of d.entriesRemoved) {
    add(e.package, {
      sign: '-',
      text: ({ name }) => `entry ${name(e.bundle)} in channel ${name(e.channel)}`,
    });
  }
  for (const e of d.edgesChanged) add(e.package, { sign: '~', text: (style) => edgeText(e, style) });
  for (const x of d.deprecationsAdded) {
    add(x.package, {
      sign: '+',
      text: ({ name }) => `deprecation of ${deprecationWhat(x, name)}: ${name(JSON.stringify(x.message))}`,
    });
  }
  for (const x of d.deprecationsRemoved) {
    add(x.package, {
      sign: '-',
      text: ({ name }) => `deprecation of ${deprecationWhat(x, name)}: ${name(JSON.stringify(x.message))}`,
    });
  }
  for (const x of d.deprecationsChanged) {
    add(x.package, {
      sign: '~',
      text: ({ name }) =>
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
 * Text for a terminal; '' when nothing differs. `escape` makes each value from the catalog safe to
 * show (catalog names may hold control characters) before the line is coloured: by its sign, with
 * what a list gained in the added colour and what it lost in the removed one.
 */
export function diffText(
  d: CatalogDiff,
  paint: Paint = NO_PAINT,
  escape: (s: string) => string = (s) => s,
): string {
  const style: Style = { name: escape, added: paint.added, removed: paint.removed };
  let out = '';
  const impacts = impactItems(d.upgradeImpact);
  if (impacts.length > 0) {
    out += `${paint.impact(`upgrade impact: ${d.upgradeImpact.length} bundle${d.upgradeImpact.length === 1 ? '' : 's'} can no longer upgrade`)}\n`;
    for (const i of impacts) out += `  ${paint.impact(`${i.sign} ${i.text(style)}`)}\n`;
  }
  // A diff built by an older version, or by hand, may lack the list.
  const crd = (d.crdUpgrades as CrdEdgeProblem[] | undefined) ?? [];
  if (crd.length > 0) {
    out += `${paint.impact(crdHeading(crd.length))}\n`;
    for (const i of crdItems(crd)) out += `  ${paint.impact(`${i.sign} ${i.text(style)}`)}\n`;
  }
  for (const g of groups(d)) {
    out += `${paint.heading(g.title(escape))}\n`;
    for (const i of g.items) {
      out += `  ${paintSign(paint, i.sign, `${i.sign} ${i.text(style)}`)}\n`;
      for (const line of i.details ?? []) out += `    ${paintSign(paint, i.sign, line(style))}\n`;
    }
  }
  return out;
}

const MARKDOWN_SIGN: Record<Sign, string> = { '+': 'added', '-': 'removed', '~': 'changed', '!': '⚠️' };

const MARKDOWN_STYLE: Style = { name: mdCode, added: (s) => s, removed: (s) => s };

/**
 * Markdown for a pull-request comment. Every value from the catalog is written as a code span
 * (mdCode), so the comment's structure is this function's alone.
 */
export function diffMarkdown(d: CatalogDiff): string {
  let out = '## Catalog diff\n\n';
  const impacts = impactItems(d.upgradeImpact);
  const gs = groups(d);
  const crd = (d.crdUpgrades as CrdEdgeProblem[] | undefined) ?? [];
  if (impacts.length === 0 && gs.length === 0 && crd.length === 0) return `${out}No changes.\n`;
  if (impacts.length > 0) {
    out += `### ⚠️ Upgrade impact: ${d.upgradeImpact.length} bundle${d.upgradeImpact.length === 1 ? '' : 's'} can no longer upgrade\n\n`;
    for (const i of impacts) out += `- ${i.text(MARKDOWN_STYLE)}\n`;
    out += '\n';
  } else {
    out += 'No upgrade impact: every bundle that could upgrade still can.\n\n';
  }
  if (crd.length > 0) {
    out += `### ⚠️ ${crdHeading(crd.length)}\n\n`;
    for (const i of crdItems(crd)) out += `- ${i.text(MARKDOWN_STYLE)}\n`;
    out += '\n';
  }
  for (const g of gs) {
    out += `### ${g.title(mdCode)}\n\n`;
    for (const i of g.items) {
      out += `- ${MARKDOWN_SIGN[i.sign]}: ${i.text(MARKDOWN_STYLE)}\n`;
      for (const line of i.details ?? []) out += `  - ${line(MARKDOWN_STYLE)}\n`;
    }
    out += '\n';
  }
  return out;
}
