// needs-browser: chromium (/usr/bin/chromium or $OPM_CHROMIUM); without it this file is left out, loudly (vitest.config.ts).
/// <reference lib="dom" />
/**
 * The graph page of a long channel in a real browser: zoom, pan, the overview, keyboard use, the
 * order of channels and the counts in the text, on a package of 150 bundles generated here
 * (releaseLinePackage). Screenshots of it go to test-output/graph/ (screenshotDir) to be looked at.
 */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawGraph } from '../../src/graph/draw.js';
import { launch, openPage, screenshotDir } from './chromium.js';
import { catalog, releaseBundle, releaseLinePackage } from './generated-catalogs.js';
import { details, laneView, type LaneView } from './page-checks.js';
import { drawnChannels, parseSvg } from './svg-tree.js';

const VERSION_ORDER = ['candidate-3.15', 'fast-3.14', 'stable', 'stable-3.6', 'stable-3.10', 'stable-3.14'];

let browser: Browser;
let tmp: string;
let url: string;

beforeAll(async () => {
  browser = await launch();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-graph-zoom-'));
  const file = path.join(tmp, 'aurora.html');
  writeFileSync(file, drawGraph(releaseLinePackage(), 'html'));
  url = pathToFileURL(file).href;
});
afterAll(async () => {
  await browser.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** The page at the stable lane alone, its window focused. */
async function stableLane(): Promise<{ page: Page; errors: string[] }> {
  const opened = await openPage(browser);
  await opened.page.goto(`${url}#aurora-operator/stable`);
  await opened.page.locator('section.lane[data-channel="stable"] .scroll').focus();
  return opened;
}

const stable = (page: Page): Promise<LaneView> => laneView(page, 'stable');

/** The lane point under a point of the window (in window pixels). */
const under = (v: LaneView, px: number, py: number) => ({ x: v.x + px / v.scale, y: v.y + py / v.scale });

/** The whole lane is in the window. */
function showsAll(v: LaneView): boolean {
  return (
    v.x <= v.lane.x + 0.01 &&
    v.y <= v.lane.y + 0.01 &&
    v.x + v.w >= v.lane.x + v.lane.w - 0.01 &&
    v.y + v.h >= v.lane.y + v.lane.h - 0.01
  );
}

async function shoot(page: Page, name: string): Promise<string> {
  const shot = path.join(screenshotDir(), name);
  await page.screenshot({ path: shot });
  console.log(`screenshot: ${shot}`);
  expect(statSync(shot).size).toBeGreaterThan(10_000);
  return shot;
}

describe('the graph page of a package of 150 bundles (1400×900)', () => {
  it('lists channels in the order of their versions, default first or not, in the page, the picker and the SVG', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(url);
    const lanes = await page
      .locator('section.lane')
      .evaluateAll((ls) => ls.map((l) => l.getAttribute('data-channel')));
    expect(lanes).toEqual(VERSION_ORDER);
    const options = await page
      .locator('#pick-channel option')
      .evaluateAll((os) => os.map((o) => o.textContent));
    expect(options).toEqual([
      'all channels',
      ...VERSION_ORDER.map((c) => (c === 'stable' ? 'stable (default)' : c)),
    ]);
    const svg = drawGraph(releaseLinePackage(), 'svg');
    expect(drawnChannels(parseSvg(svg)).map((l) => l.channel)).toEqual(VERSION_ORDER);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says 1 bundle, 20 bundles, 1 channel, 6 channels, in the page and in the SVG', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(url);
    const counts = await page.locator('section.lane h3 .count').allTextContents();
    expect(counts).toEqual([
      '1 bundle',
      '10 bundles',
      '150 bundles',
      '20 bundles',
      '20 bundles',
      '20 bundles',
    ]);
    expect(await page.locator('section.package .note').first().textContent()).toContain('6 channels');
    const single = path.join(tmp, 'single.html');
    writeFileSync(single, drawGraph(catalog(1, 1), 'html'));
    await page.goto(pathToFileURL(single).href);
    const text = await page.locator('body').innerText();
    expect(text).toMatch(/\b1 channel\b/);
    expect(text).toMatch(/\b1 bundle\b/);
    expect(text).not.toMatch(/\b1 (bundle|channel|problem|step)s\b/);
    const svg = drawGraph(releaseLinePackage(), 'svg');
    expect(svg).toContain('>1 bundle</text>');
    expect(svg).toContain('>150 bundles</text>');
    expect(svg).not.toMatch(/\b1 (bundle|channel)s\b/);
    expect(drawGraph(catalog(1, 1), 'svg')).toContain('· 1 channel</text>');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('opens a long lane at its head, at actual size, with an overview; short lanes have none', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(url);
    const v = await stable(page);
    expect(v.scale).toBe(1);
    // 150 bundles in one row would be 35,000 px wide: the lane is wrapped onto rows of about the
    // window's shape, oldest at the top left.
    expect(v.lane.w).toBeLessThan(5_000);
    expect(v.lane.w / v.lane.h).toBeGreaterThan(1.5);
    expect(v.lane.w / v.lane.h).toBeLessThan(4);
    const node = (name: string) =>
      page.locator(`section.lane[data-channel="stable"] g.node[data-bundle="${name}"]`);
    const ys = await page
      .locator('section.lane[data-channel="stable"] g.node:not(.unlisted)')
      .evaluateAll((ns) => ns.map((n) => /,([-\d.]+)\)/.exec(n.getAttribute('transform') ?? '')?.[1]));
    expect(new Set(ys).size).toBeGreaterThanOrEqual(8);
    // The window shows the head, at its right.
    const hb = await node(releaseBundle(14, 9)).boundingBox();
    if (hb === null) throw new Error('no head');
    expect(hb.x).toBeGreaterThan(v.screen.left + v.screen.width / 2);
    expect(hb.x + hb.width).toBeLessThanOrEqual(v.screen.left + v.screen.width + 2);
    expect(hb.y).toBeGreaterThan(v.screen.top);
    expect(hb.y + hb.height).toBeLessThan(v.screen.top + v.screen.height);
    // A lane larger than its window has an overview; one that fits (the candidate's one bundle) none.
    const withOverview: string[] = [];
    for (const channel of VERSION_ORDER) {
      const lv = await laneView(page, channel);
      const has = await page.locator(`section.lane[data-channel="${channel}"] svg.overview`).count();
      expect(has, channel).toBe(lv.lane.w > lv.screen.width || lv.lane.h > lv.screen.height ? 1 : 0);
      if (has > 0) withOverview.push(channel);
    }
    expect(withOverview).toContain('stable');
    expect(withOverview).not.toContain('candidate-3.15');
    // The overview draws every bundle in a few paths, not an element per bundle.
    expect(
      await page.locator('section.lane[data-channel="stable"] svg.overview path').count(),
    ).toBeLessThanOrEqual(3);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('zoom: + and - keys, Ctrl+wheel around the pointer, the buttons, 0 to fit, 1 for actual size', async () => {
    const { page, errors } = await stableLane();
    expect((await stable(page)).scale).toBe(1);
    await page.keyboard.press('+');
    expect((await stable(page)).scale).toBe(1.25);
    await page.keyboard.press('-');
    await page.keyboard.press('-');
    expect((await stable(page)).scale).toBe(0.8);
    await page.keyboard.press('1');
    expect((await stable(page)).scale).toBe(1);

    // Ctrl+wheel zooms in around the pointer: the lane point under it stays under it.
    const before = await stable(page);
    const [px, py] = [300, 60];
    const fixed = under(before, px, py);
    await page.mouse.move(before.screen.left + px, before.screen.top + py);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -200);
    await page.keyboard.up('Control');
    await expect.poll(async () => (await stable(page)).scale).toBeGreaterThan(1.2);
    const after = await stable(page);
    expect(under(after, px, py).x).toBeCloseTo(fixed.x, 0);
    // (Up and down, a lane lower than its window stays in the middle of it.)
    if (after.lane.h * after.scale > after.screen.height)
      expect(under(after, px, py).y).toBeCloseTo(fixed.y, 0);
    else expect(after.y + after.h / 2).toBeCloseTo(after.lane.y + after.lane.h / 2, 1);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, 400);
    await page.keyboard.up('Control');
    await expect.poll(async () => (await stable(page)).scale).toBeLessThan(after.scale);

    // Fit shows the whole lane; the buttons do what the keys do.
    await page.keyboard.press('0');
    const fitted = await stable(page);
    // Wrapped, the whole channel fits at about a quarter of its size, not at 3% as one row would.
    expect(fitted.scale).toBeGreaterThan(0.2);
    expect(showsAll(fitted)).toBe(true);
    const bar = page.locator('section.lane[data-channel="stable"] .zoom-bar');
    await bar.getByRole('button', { name: 'actual size (1)' }).click();
    expect((await stable(page)).scale).toBe(1);
    await bar.getByRole('button', { name: 'zoom in (+)' }).click();
    expect((await stable(page)).scale).toBe(1.25);
    expect(await bar.locator('.zoom-level').textContent()).toBe('125%');
    await bar.getByRole('button', { name: 'fit the whole channel (0)' }).click();
    expect(showsAll(await stable(page))).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('pan: arrow keys, Home and End, Shift+wheel and dragging move the view; a drag selects nothing', async () => {
    const { page, errors } = await stableLane();
    const start = await stable(page);
    await page.keyboard.press('ArrowLeft');
    const left = await stable(page);
    expect(left.x).toBeCloseTo(start.x - start.screen.width / 8, 1);
    await page.keyboard.press('Shift+ArrowLeft');
    expect((await stable(page)).x).toBeCloseTo(left.x - start.screen.width / 2, 1);
    // Home goes to the oldest bundles (top left), End back to the head.
    await page.keyboard.press('Home');
    expect((await stable(page)).x).toBeCloseTo(start.lane.x, 1);
    expect((await stable(page)).y).toBeCloseTo(start.lane.y, 1);
    await page.keyboard.press('ArrowRight');
    expect((await stable(page)).x).toBeCloseTo(start.lane.x + start.screen.width / 8, 1);
    await page.keyboard.press('ArrowDown');
    expect((await stable(page)).y).toBeCloseTo(start.lane.y + start.screen.height / 8, 1);
    await page.keyboard.press('End');
    expect((await stable(page)).x).toBeCloseTo(start.x, 1);
    expect((await stable(page)).y).toBeCloseTo(start.y, 1);

    // Shift+wheel goes along the lane.
    const w0 = await stable(page);
    await page.mouse.move(w0.screen.left + 400, w0.screen.top + 40);
    await page.keyboard.down('Shift');
    await page.mouse.wheel(0, -300);
    await page.keyboard.up('Shift');
    await expect.poll(async () => (await stable(page)).x).toBeLessThan(w0.x);

    // Dragging from a bundle moves the picture with the pointer, and does not select the bundle.
    const node = page.locator(
      `section.lane[data-channel="stable"] g.node[data-bundle="${releaseBundle(14, 7)}"]`,
    );
    const nb = await node.boundingBox();
    if (nb === null) throw new Error('bundle not on screen');
    const d0 = await stable(page);
    await page.mouse.move(nb.x + 20, nb.y + 10);
    await page.mouse.down();
    for (let step = 1; step <= 5; step++) await page.mouse.move(nb.x + 20 + step * 60, nb.y + 10);
    await page.mouse.up();
    const d1 = await stable(page);
    expect(d1.x).toBeCloseTo(d0.x - 300, 0);
    expect(await page.locator('g.node.selected').count()).toBe(0);
    // A click without moving still selects.
    await page.keyboard.press('End');
    await node.click();
    expect(await page.locator('g.node.selected').getAttribute('data-bundle')).toBe(releaseBundle(14, 7));
    expect(errors).toEqual([]);
    await page.close();
  });

  it('overview: its marker follows the view, and a click or a drag there moves the view', async () => {
    const { page, errors } = await stableLane();
    const overview = page.locator('section.lane[data-channel="stable"] svg.overview');
    const marker = overview.locator('rect.overview-view');
    const markerAt = async () => {
      const a = (k: string) => marker.getAttribute(k).then(Number);
      return { x: await a('x'), y: await a('y'), w: await a('width'), h: await a('height') };
    };
    const centre = (b: { x: number; y: number; width: number; height: number } | null) => ({
      x: (b?.x ?? NaN) + (b?.width ?? NaN) / 2,
      y: (b?.y ?? NaN) + (b?.height ?? NaN) / 2,
    });
    // The marker is the window: where it is in the lane, and as large.
    const v = await stable(page);
    expect(await markerAt()).toEqual({
      x: expect.closeTo(v.x, 1),
      y: expect.closeTo(v.y, 1),
      w: expect.closeTo(v.w, 1),
      h: expect.closeTo(v.h, 1),
    });
    const atHead = centre(await marker.boundingBox());
    await page.keyboard.press('Home');
    const m = await markerAt();
    expect([m.x, m.y]).toEqual([expect.closeTo(v.lane.x, 1), expect.closeTo(v.lane.y, 1)]);
    const atStart = centre(await marker.boundingBox());
    // On screen it went up and left, from the head's corner to the first bundle's.
    expect(atStart.x).toBeLessThan(atHead.x - 20);
    expect(atStart.y).toBeLessThan(atHead.y - 20);

    // A click at the middle of the overview centres the view on the middle of the lane.
    const ob = await overview.boundingBox();
    if (ob === null) throw new Error('no overview');
    const mid = centre(ob);
    await page.mouse.click(mid.x, mid.y);
    const c = await stable(page);
    expect(Math.abs(c.x + c.w / 2 - (c.lane.x + c.lane.w / 2))).toBeLessThan(c.lane.w * 0.03);
    expect(Math.abs(c.y + c.h / 2 - (c.lane.y + c.lane.h / 2))).toBeLessThan(c.lane.h * 0.03);
    const clicked = centre(await marker.boundingBox());
    expect(Math.abs(clicked.x - mid.x)).toBeLessThan(3);
    expect(Math.abs(clicked.y - mid.y)).toBeLessThan(3);
    // Dragging across it moves the view with the pointer, and the marker with it.
    const perPixel = (await markerAt()).w / ((await marker.boundingBox())?.width ?? NaN);
    await page.mouse.move(mid.x - ob.width / 4, mid.y);
    await page.mouse.down();
    const d0 = await stable(page);
    await page.mouse.move(mid.x + ob.width / 4, mid.y, { steps: 4 });
    await page.mouse.up();
    const d1 = await stable(page);
    expect((d1.x - d0.x) / ((ob.width / 2) * perPixel)).toBeCloseTo(1, 1);
    const dragged = centre(await marker.boundingBox());
    expect(Math.abs(dragged.x - (mid.x + ob.width / 4))).toBeLessThan(3);
    // A click on the overview is not a click on the window under it: nothing is selected.
    expect(await page.locator('g.node.selected').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('keyboard: Tab reaches the window, then its bundles, and a bundle out of view is brought into it', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${url}#aurora-operator/stable`);
    await page.locator('#pick-channel').focus();
    // The clear button is disabled: next come the zoom buttons, then the window, then its bundles.
    const stops: string[] = [];
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      stops.push(
        await page.evaluate(() => {
          const a = document.activeElement;
          return a?.getAttribute('aria-label') ?? a?.getAttribute('data-bundle') ?? a?.tagName ?? '';
        }),
      );
    }
    expect(stops.slice(0, 4)).toEqual([
      'zoom out (-)',
      'zoom in (+)',
      'fit the whole channel (0)',
      'actual size (1)',
    ]);
    expect(stops[4]).toMatch(/^channel stable: drag or use the arrow keys/);
    // The first bundle is the oldest, at the far left, out of the window that opened at the head.
    expect(stops[5]).toMatch(new RegExp(`^${releaseBundle(0, 0).replace(/\./g, '\\.')}`));
    const v = await stable(page);
    const first = await page
      .locator(`section.lane[data-channel="stable"] g.node[data-bundle="${releaseBundle(0, 0)}"]`)
      .boundingBox();
    expect(first?.x).toBeGreaterThanOrEqual(v.screen.left);
    expect((first?.x ?? 0) + (first?.width ?? 0)).toBeLessThanOrEqual(v.screen.left + v.screen.width);
    expect(await details(page)).toContain('version 3.0.0');
    await page.keyboard.press('Enter');
    expect(await details(page)).toContain('Upgrade path to the head');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('screenshots: opened at the head, fitted, zoomed in on a region, and every channel', async () => {
    const { page, errors } = await stableLane();
    const opened = await shoot(page, 'aurora-150-opened.png');
    await page.keyboard.press('0');
    const fitted = await shoot(page, 'aurora-150-fitted.png');
    // Zoomed in on the fix release 3.7.5 (it replaces 3.7.3 and skips 3.7.4) and 3.8.0's skipRange.
    const fix = page.locator(
      `section.lane[data-channel="stable"] g.node[data-bundle="${releaseBundle(7, 5)}"]`,
    );
    await page.keyboard.press('1');
    await page.keyboard.press('+');
    await page.keyboard.press('+');
    await fix.focus();
    const zoomed = await stable(page);
    expect(zoomed.scale).toBeCloseTo(1.5625, 2);
    // Names are drawn at least as large as the page's own small text.
    const nameHeight = await fix.locator('text.name').evaluate((t) => t.getBoundingClientRect().height);
    expect(nameHeight).toBeGreaterThanOrEqual(16);
    const region = await shoot(page, 'aurora-150-zoomed.png');
    await page.locator('#pick-channel').selectOption({ label: 'all channels' });
    const all = await shoot(page, 'aurora-150-channels.png');
    for (const f of [opened, fitted, region, all]) expect(existsSync(f)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });
});
