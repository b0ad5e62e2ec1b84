// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
// `filter` on a real catalog: every output validates, a channel or a version range keeps exactly
// the bundles it should (worked out here from the input with semver.org's ordering written out
// below, not with the filter's code), and heads only keeps one bundle per channel.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { render } from '../../src/action/render/render.js';
import { filterCatalog } from '../../src/curate/filter.js';
import { parseFilterConfig } from '../../src/curate/filter-config.js';
import type { Bundle, Channel, DeclarativeConfig } from '../../src/declcfg/types.js';
import { convertToModel } from '../../src/model/convert.js';
import { corpusPath } from '../corpus.js';
import { runOpm } from '../run-cli.js';

const catalogDir = corpusPath('community-catalog-v4.21');
let cfg: DeclarativeConfig;
let tmp: string;

beforeAll(async () => {
  cfg = await render({ refs: [catalogDir] });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-filter-corpus-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** semver.org precedence: numbers, then a pre-release sorts before its release, identifier by identifier. */
function compareVersions(a: string, b: string): number {
  const parse = (v: string): { nums: number[]; pre: string[] } => {
    const core = v.split('+')[0] ?? '';
    const dash = core.indexOf('-');
    const main = dash < 0 ? core : core.slice(0, dash);
    return { nums: main.split('.').map(Number), pre: dash < 0 ? [] : core.slice(dash + 1).split('.') };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  if (x.pre.length === 0 || y.pre.length === 0)
    return y.pre.length - x.pre.length === 0 ? 0 : x.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i];
    const q = y.pre[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn && Number(p) !== Number(q)) return Math.sign(Number(p) - Number(q));
    if (pn !== qn) return pn ? -1 : 1;
    if (p !== q) return p < q ? -1 : 1;
  }
  return 0;
}
const inRange = (v: string, min: string, max: string): boolean =>
  compareVersions(v, min) >= 0 && compareVersions(v, max) <= 0;

function versionOf(b: Bundle): string {
  const p = (b.properties ?? []).find((x) => x.type === 'olm.package');
  const v = (p?.value as { version?: unknown } | undefined)?.version;
  return typeof v === 'string' ? v : '';
}

function errorsOf(c: DeclarativeConfig): string[] {
  return convertToModel(c)
    .findings.filter((f) => f.severity === 'error')
    .map((f) => f.message);
}

/** Entries no other entry of the channel replaces or skips. */
function heads(ch: Channel): string[] {
  const pointed = new Set<string>();
  for (const e of ch.entries ?? []) {
    if (e.replaces) pointed.add(e.replaces);
    for (const s of e.skips ?? []) pointed.add(s);
  }
  return (ch.entries ?? []).map((e) => e.name).filter((n) => !pointed.has(n));
}

const packages = (): string[] => [...new Set(cfg.packages.map((p) => p.name))].sort();
const channelsOf = (pkg: string): Channel[] => cfg.channels.filter((c) => c.package === pkg);
const select = (yaml: string): ReturnType<typeof filterCatalog> =>
  filterCatalog(cfg, { packages: parseFilterConfig(yaml, 'selection.yaml'), headsOnly: false });
const bundleNames = (c: DeclarativeConfig): string[] => c.bundles.map((b) => b.name).sort();

describe.sequential('filter on community-catalog-v4.21', () => {
  it('the input validates, so every output must', () => {
    expect(errorsOf(cfg)).toEqual([]);
    expect(packages().length).toBeGreaterThan(20);
  });

  it('each package on its own: the same package, valid', () => {
    for (const pkg of packages()) {
      const out = select(`- name: ${pkg}\n`).config;
      expect(errorsOf(out), pkg).toEqual([]);
      expect(out.packages.map((p) => p.name)).toEqual([pkg]);
      const all = cfg.bundles.filter(
        (b) =>
          b.package === pkg && channelsOf(pkg).some((c) => (c.entries ?? []).some((e) => e.name === b.name)),
      );
      expect(bundleNames(out), pkg).toEqual(all.map((b) => b.name).sort());
    }
  });

  it('each channel on its own: exactly the bundles of its entries, valid', () => {
    let channels = 0;
    for (const pkg of packages()) {
      for (const ch of channelsOf(pkg)) {
        const out = select(
          `- name: ${pkg}\n  defaultChannel: ${ch.name}\n  channels:\n  - name: ${ch.name}\n`,
        ).config;
        expect(errorsOf(out), `${pkg}/${ch.name}`).toEqual([]);
        expect(out.channels.map((c) => c.name)).toEqual([ch.name]);
        expect(bundleNames(out)).toEqual([...new Set((ch.entries ?? []).map((e) => e.name))].sort());
        channels++;
      }
    }
    expect(channels).toBeGreaterThan(50);
  });

  it('a version range inside each channel: exactly the bundles whose version is in it, valid', () => {
    let ranges = 0;
    for (const pkg of packages()) {
      for (const ch of channelsOf(pkg)) {
        const byName = new Map(cfg.bundles.filter((b) => b.package === pkg).map((b) => [b.name, b]));
        const versions = [
          ...new Set((ch.entries ?? []).map((e) => versionOf(byName.get(e.name) as Bundle))),
        ].sort(compareVersions);
        if (versions.length < 4) continue;
        // From the second lowest to the second highest: the head and the oldest bundle go.
        const min = versions[1] as string;
        const max = versions[versions.length - 2] as string;
        const expected = (ch.entries ?? [])
          .map((e) => e.name)
          .filter((n) => {
            const v = versionOf(byName.get(n) as Bundle);
            return inRange(v, min, max);
          })
          .sort();
        const out = select(
          `- name: ${pkg}\n  defaultChannel: ${ch.name}\n  channels:\n  - name: ${ch.name}\n    minVersion: ${min}\n    maxVersion: ${max}\n`,
        ).config;
        expect(errorsOf(out), `${pkg}/${ch.name} ${min}..${max}`).toEqual([]);
        expect(bundleNames(out), `${pkg}/${ch.name} ${min}..${max}`).toEqual(expected);
        ranges++;
      }
    }
    expect(ranges).toBeGreaterThan(20);
  });

  it('heads only: one bundle per kept channel, the channel head', () => {
    for (const pkg of packages()) {
      const chs = channelsOf(pkg);
      const listed = chs.map((c) => `  - name: ${c.name}\n`).join('');
      const out = filterCatalog(cfg, {
        packages: parseFilterConfig(`- name: ${pkg}\n  channels:\n${listed}`, 'selection.yaml'),
        headsOnly: true,
      }).config;
      expect(errorsOf(out), pkg).toEqual([]);
      expect(out.channels).toHaveLength(chs.length);
      for (const c of out.channels) {
        const original = chs.find((x) => x.name === c.name) as Channel;
        expect(
          c.entries?.map((e) => e.name),
          `${pkg}/${c.name}`,
        ).toEqual(heads(original));
      }
      expect(bundleNames(out)).toEqual([...new Set(chs.flatMap(heads))].sort());
    }
  });

  it('through the command line: filter --output-dir, then validate and render the result', async () => {
    const pkg = 'project-quay';
    const ch = channelsOf(pkg).find((c) => c.name === 'stable-3.10') as Channel;
    const selection = path.join(tmp, 'selection.yaml');
    writeFileSync(
      selection,
      `packages:\n- name: ${pkg}\n  defaultChannel: stable-3.10\n  channels:\n  - name: stable-3.10\n    minVersion: 3.10.2\n    maxVersion: 3.10.6\n`,
    );
    const out = path.join(tmp, 'quay');
    const r = await runOpm(['filter', catalogDir, '--config', selection, '--output-dir', out, '-o', 'yaml']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect((await runOpm(['validate', out])).code).toBe(0);
    const rendered = JSON.parse(
      `[${(await runOpm(['render', out])).stdout.replace(/\n}\n{/g, '\n},\n{')}]`,
    ) as {
      schema: string;
      name: string;
    }[];
    const byName = new Map(cfg.bundles.filter((b) => b.package === pkg).map((b) => [b.name, b]));
    const expected = (ch.entries ?? [])
      .map((e) => e.name)
      .filter((n) => inRange(versionOf(byName.get(n) as Bundle), '3.10.2', '3.10.6'))
      .sort();
    expect(
      rendered
        .filter((b) => b.schema === 'olm.bundle')
        .map((b) => b.name)
        .sort(),
    ).toEqual(expected);
    expect(expected).toHaveLength(5);
  });
});
