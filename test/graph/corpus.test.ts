// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
// needs-browser: chromium (/usr/bin/chromium or $OPM_CHROMIUM); without it this file is left out, loudly (vitest.config.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeclarativeConfig } from '../../src/declcfg/types.js';
import { loadCatalogDirOrThrow } from '../../src/declcfg/load.js';
import { drawGraph } from '../../src/graph/draw.js';
import { corpusPath } from '../corpus.js';
import { launch, openPage, screenshotDir, svgScreenshot } from './chromium.js';
import { expectedChannels } from './graph-expectations.js';
import { details, expectAllDrawn, seenLanes } from './page-checks.js';
import { drawnChannels, parseSvg } from './svg-tree.js';

// The largest package of the catalog (bundles × channels) and a few of other shapes.
const PACKAGES = ['project-quay', 'sailoperator', 'hive-operator', 'infinispan', 'konflux-operator'];

let cfg: DeclarativeConfig;
let browser: Browser;
let tmp: string;

beforeAll(async () => {
  cfg = await loadCatalogDirOrThrow(corpusPath('community-catalog-v4.21'));
  browser = await launch();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-graph-corpus-'));
});
afterAll(async () => {
  await browser.close();
  rmSync(tmp, { recursive: true, force: true });
});

function write(pkg: string, format: 'svg' | 'html'): { text: string; url: string } {
  const text = drawGraph(cfg, format, { packageName: pkg });
  const file = path.join(tmp, `${pkg}.${format}`);
  writeFileSync(file, text);
  return { text, url: pathToFileURL(file).href };
}

describe.each(PACKAGES)('render-graph of community-catalog-v4.21 package %s', (pkg) => {
  it('SVG: well-formed XML with a node per bundle and an edge per replaces, skips and skipRange; the same bytes twice', () => {
    const { text } = write(pkg, 'svg');
    expect(drawGraph(cfg, 'svg', { packageName: pkg })).toBe(text);
    const drawn = drawnChannels(parseSvg(text));
    const expected = expectedChannels(cfg, pkg);
    expect(expected.length).toBeGreaterThan(0);
    expect(drawn.map((d) => d.channel).sort()).toEqual(expected.map((e) => e.channel).sort());
    for (const e of expected) {
      const d = drawn.find((x) => x.channel === e.channel);
      expect(d?.nodes.map((n) => n.name).sort(), e.channel).toEqual(e.nodes);
      expect(d?.edges, e.channel).toEqual(e.edges);
    }
  });

  it('SVG in chromium: every bundle a visible node, every edge drawn, no console errors', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(write(pkg, 'svg').url);
    expectAllDrawn(await seenLanes(page, 'g.channel'), expectedChannels(cfg, pkg));
    const shot = await svgScreenshot(page, `${pkg}.svg.png`);
    console.log(`screenshot: ${shot}`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('HTML in chromium: every lane drawn, hover shows details, the oldest bundle of the default channel lights its path to the head', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(write(pkg, 'html').url);
    expectAllDrawn(await seenLanes(page, 'section.lane'), expectedChannels(cfg, pkg));

    const defaultChannel = cfg.packages.find((p) => p.name === pkg)?.defaultChannel ?? '';
    const lane = page.locator(`section.lane[data-channel="${defaultChannel}"]`);
    const oldest = lane.locator('g.node[data-index="0"]');
    const name = (await oldest.getAttribute('data-bundle')) ?? '';
    const bundle = cfg.bundles.find((b) => b.package === pkg && b.name === name);
    // The lane opens at its head; focus brings the oldest bundle into its window.
    await oldest.focus();
    await oldest.hover();
    const shown = await details(page);
    expect(shown).toContain(name);
    expect(shown).toContain(`image ${bundle?.image ?? '?'}`);
    expect(shown).toMatch(/version \d+\.\d+\.\d+/);

    await oldest.click();
    const onPath = await lane.locator('g.node.on-path').count();
    expect(onPath).toBeGreaterThan(0);
    expect(await lane.locator('path.edge.on-path').count()).toBe(onPath - 1);
    expect(await lane.locator('g.node.on-path.head').count()).toBe(1);
    expect(await details(page)).toContain('Upgrade path to the head');

    const shot = path.join(screenshotDir(), `${pkg}.html.png`);
    await page.screenshot({ path: shot });
    console.log(`screenshot: ${shot}`);
    expect(errors).toEqual([]);
    await page.close();
  });
});
