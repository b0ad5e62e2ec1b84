// needs-browser: chromium (/usr/bin/chromium or $OPM_CHROMIUM); without it this file is left out, loudly (vitest.config.ts).
/// <reference lib="dom" />
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogDirOrThrow } from '../../src/declcfg/load.js';
import { drawGraph } from '../../src/graph/draw.js';
import { launch, openPage, screenshotDir, svgScreenshot } from './chromium.js';
import { expectedChannels } from './graph-expectations.js';
import { bundleName, catalog } from './generated-catalogs.js';
import { details, expectAllDrawn, laneView, seenLanes } from './page-checks.js';

const testdata = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../testdata/graph');
let browser: Browser;
let tmp: string;

beforeAll(async () => {
  browser = await launch();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-graph-'));
});
afterAll(async () => {
  await browser.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function write(name: string, format: 'svg' | 'html', pkg = ''): Promise<string> {
  const cfg = await loadCatalogDirOrThrow(path.join(testdata, name, 'catalog'));
  const file = path.join(tmp, `${name}${pkg === '' ? '' : `-${pkg}`}.${format}`);
  writeFileSync(file, drawGraph(cfg, format, { packageName: pkg }));
  return pathToFileURL(file).href;
}

describe('the drawn graph in chromium (testdata/graph)', () => {
  it('shows every bundle and edge of the SVG, with no console errors', async () => {
    for (const name of ['several-channels', 'problems']) {
      const cfg = await loadCatalogDirOrThrow(path.join(testdata, name, 'catalog'));
      const { page, errors } = await openPage(browser);
      await page.goto(await write(name, 'svg'));
      for (const pkg of new Set(cfg.packages.map((p) => p.name))) {
        const seen = await seenLanes(page, `g.package[data-package="${pkg}"] g.channel`);
        expectAllDrawn(seen, expectedChannels(cfg, pkg));
      }
      const shot = await svgScreenshot(page, `${name}.svg.png`);
      console.log(`screenshot: ${shot}`);
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it('the page: every lane, hover details, path to the head by mouse and keyboard, pickers', async () => {
    const name = 'several-channels';
    const cfg = await loadCatalogDirOrThrow(path.join(testdata, name, 'catalog'));
    const { page, errors } = await openPage(browser);
    await page.goto(await write(name, 'html'));
    expectAllDrawn(await seenLanes(page, 'section.lane'), expectedChannels(cfg));

    // Hover: the details panel shows version, image, skipRange and the properties summary.
    const lane = page.locator('section.lane[data-channel="stable"]');
    await lane.locator('g.node[data-bundle="nimbus-operator.v1.2.1"]').hover();
    const hovered = await details(page);
    expect(hovered).toContain('nimbus-operator.v1.2.1');
    expect(hovered).toContain('version 1.2.1');
    expect(hovered).toContain('image registry.example.com/nimbus/nimbus-operator-bundle:v1.2.1');
    expect(hovered).toContain('skipRange >=1.1.0 <1.2.1');
    expect(hovered).toContain('olm.gvk ×2');
    expect(hovered).toContain('head yes');
    await lane.locator('g.node[data-bundle="nimbus-operator.v1.1.1"]').hover();
    expect(await details(page)).toContain('deprecated 1.1.1 can lose bucket policies');

    // Click: the shortest upgrade path from 1.0.0 to the head lights up, the rest dims. The lane
    // is wider than its window, which opened at the head: Home goes to its oldest bundles.
    await lane.locator('.scroll').focus();
    await page.keyboard.press('Home');
    await lane.locator('g.node[data-bundle="nimbus-operator.v1.0.0"]').click();
    const onPath = await lane
      .locator('g.node.on-path')
      .evaluateAll((ns) => ns.map((n) => n.getAttribute('data-bundle')));
    expect(onPath).toEqual(['nimbus-operator.v1.0.0', 'nimbus-operator.v1.1.0', 'nimbus-operator.v1.2.1']);
    expect(await lane.locator('path.edge.on-path').count()).toBe(2);
    expect(await lane.locator('svg.has-path').count()).toBe(1);
    expect(await details(page)).toContain('Upgrade path to the head, 2 steps');

    // Keyboard: Tab from the channel picker reaches a bundle; Enter selects it; Escape clears.
    await page.keyboard.press('Escape');
    expect(await page.locator('.on-path').count()).toBe(0);
    await page.locator('#pick-channel').selectOption({ label: 'stable-v0' });
    expect(await page.locator('section.lane:visible').count()).toBe(1);
    await page.locator('#pick-channel').focus();
    // The clear button is disabled while nothing is selected, so the next stops are the lane's
    // zoom buttons, its window, then its first bundle.
    const stops: string[] = [];
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      stops.push(await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? ''));
    }
    expect(stops.slice(0, 4)).toEqual([
      'zoom out (-)',
      'zoom in (+)',
      'fit the whole channel (0)',
      'actual size (1)',
    ]);
    expect(stops[4]).toMatch(/^channel stable-v0: drag or use the arrow keys to move/);
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.getAttribute('data-bundle'));
    expect(focused).toBe('nimbus-operator.v0.9.0');
    expect(await details(page)).toContain('version 0.9.0');
    await page.keyboard.press('Enter');
    expect(await page.locator('g.node.selected').getAttribute('data-bundle')).toBe('nimbus-operator.v0.9.0');
    expect(await details(page)).toContain('Upgrade path to the head, 1 step');
    expect(page.url()).toMatch(/#nimbus-operator\/stable-v0$/);

    const shot = path.join(screenshotDir(), `${name}.html.png`);
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`screenshot: ${shot}`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the page in dark mode and in print', async () => {
    const { page, errors } = await openPage(browser, { colorScheme: 'dark' });
    await page.goto(await write('problems', 'html'));
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(bg).toBe('rgb(15, 23, 42)');
    await page.locator('#pick-package').selectOption({ label: 'broken-operator' });
    const stranded = page.locator(
      'section.lane[data-channel="stable"] g.node[data-bundle="broken-operator.v2.0.0"]',
    );
    await stranded.hover();
    expect(await details(page)).toContain('has stranded bundles');
    const shot = path.join(screenshotDir(), 'problems.html.dark.png');
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`screenshot: ${shot}`);
    await page.emulateMedia({ media: 'print', colorScheme: 'dark' });
    expect(await page.locator('.pickers').isVisible()).toBe(false);
    expect(await page.locator('#details').isVisible()).toBe(false);
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
      'rgb(255, 255, 255)',
    );
    expect(errors).toEqual([]);
    await page.close();
  });

  it('opens a page of several packages at the package a link names', async () => {
    // Narrow, so that lanes are wider than the window and scroll.
    const { page, errors } = await openPage(browser, { width: 480 });
    await page.goto(`${await write('problems', 'html')}#tidy-operator`);
    expect(await page.locator('section.package:visible').getAttribute('data-package')).toBe('tidy-operator');
    await page.locator('#pick-package').selectOption({ label: 'broken-operator' });
    expect(await page.locator('section.package:visible').getAttribute('data-package')).toBe(
      'broken-operator',
    );
    // Lanes first shown open at their heads, on the right of the window.
    for (const channel of ['stable', 'fast', 'preview']) {
      const v = await laneView(page, channel);
      expect(v.scale, channel).toBe(1);
      const heads = await page
        .locator(`section.package:visible section.lane[data-channel="${channel}"] g.node.head`)
        .evaluateAll((hs) => hs.map((h) => h.getBoundingClientRect().right));
      if (heads.length === 0) continue;
      const right = Math.max(...heads);
      expect(right, channel).toBeLessThanOrEqual(v.screen.left + v.screen.width + 2);
      expect(right, channel).toBeGreaterThan(v.screen.left + v.screen.width / 2);
    }
    // Narrow, the widest lane does not fit: it has an overview.
    expect(await page.locator('section.package:visible svg.overview').count()).toBeGreaterThan(0);
    expect(await page.locator('section.lane:visible').count()).toBe(3);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a page of 10,000 bundles in one lane: hover, and the path from the oldest to the head', async () => {
    const cfg = catalog(1, 10_000);
    const file = path.join(tmp, 'lane-10000.html');
    writeFileSync(file, drawGraph(cfg, 'html'));
    const { page, errors } = await openPage(browser);
    await page.goto(pathToFileURL(file).href);
    const lane = page.locator('section.lane[data-channel="stable"]');
    expect(await lane.locator('g.node').count()).toBe(10_000);
    // The lane is wrapped onto rows, opens at its head and has an overview of three paths (not an
    // element per bundle).
    const newest = bundleName('operator-000', 9_999);
    const v = await laneView(page, 'stable');
    expect(v.lane.w).toBeLessThan(40_000);
    const hb = await lane.locator(`g.node[data-bundle="${newest}"]`).boundingBox();
    expect(hb?.x).toBeGreaterThan(v.screen.left);
    expect((hb?.x ?? 0) + (hb?.width ?? 0)).toBeLessThanOrEqual(v.screen.left + v.screen.width + 2);
    expect(await lane.locator('svg.overview path').count()).toBeLessThanOrEqual(3);
    await lane.locator(`g.node[data-bundle="${newest}"]`).hover();
    expect(await details(page)).toContain(`head yes`);
    // Zoom to fit, then back to the head.
    await lane.locator('.scroll').focus();
    await page.keyboard.press('0');
    const fitted = await laneView(page, 'stable');
    expect(fitted.scale).toBeLessThan(0.1);
    expect(fitted.w).toBeGreaterThanOrEqual(fitted.lane.w - 0.01);
    await page.keyboard.press('End');
    await page.keyboard.press('1');
    expect((await laneView(page, 'stable')).scale).toBe(1);
    // The oldest is rows away: focusing it brings it into the window.
    await lane.locator(`g.node[data-bundle="${bundleName('operator-000', 0)}"]`).focus();
    await lane.locator(`g.node[data-bundle="${bundleName('operator-000', 0)}"]`).click();
    expect(await details(page)).toContain('Upgrade path to the head, 9999 steps');
    expect(await lane.locator('path.edge.on-path').count()).toBe(9_999);
    expect(errors).toEqual([]);
    await page.close();
  });
});
