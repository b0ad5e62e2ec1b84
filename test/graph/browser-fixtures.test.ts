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
import { details, expectAllDrawn, seenLanes } from './page-checks.js';

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

    // Click: the shortest upgrade path from 1.0.0 to the head lights up, the rest dims.
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
    // The clear button is disabled while nothing is selected, so the next stop is the first bundle.
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
    // Lanes first shown start scrolled to their heads, on the right.
    const scrolled = await page.locator('section.package:visible .scroll').evaluateAll((ss) =>
      ss.map((s) => ({
        overflows: s.scrollWidth > s.clientWidth,
        atEnd: s.scrollLeft + s.clientWidth >= s.scrollWidth - 1,
      })),
    );
    expect(scrolled.some((l) => l.overflows)).toBe(true);
    expect(scrolled.every((l) => l.atEnd)).toBe(true);
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
    // The lane opens at its head, on the right.
    const atEnd = await lane
      .locator('.scroll')
      .evaluate((s) => s.scrollWidth > s.clientWidth && s.scrollLeft + s.clientWidth >= s.scrollWidth - 1);
    expect(atEnd).toBe(true);
    const newest = bundleName('operator-000', 9_999);
    await lane.locator(`g.node[data-bundle="${newest}"]`).hover();
    expect(await details(page)).toContain(`head yes`);
    await lane.locator(`g.node[data-bundle="${bundleName('operator-000', 0)}"]`).click();
    expect(await details(page)).toContain('Upgrade path to the head, 9999 steps');
    expect(await lane.locator('path.edge.on-path').count()).toBe(9_999);
    expect(errors).toEqual([]);
    await page.close();
  });
});
