// The time a person waits for the HTML page of a package: drawing it (build, layout, write) and
// chromium showing it, then answering a hover and a selection. Chromium's own start is not counted:
// the browser is open already when someone opens a page.
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { loadCatalogDir } from '../src/declcfg/load.js';
import { drawGraph } from '../src/graph/draw.js';

export async function graphPage(catalog: string, pkg: string, out: string): Promise<number> {
  const { cfg } = await loadCatalogDir(catalog, { elidePayloads: true });
  const browser = await chromium.launch({
    executablePath: process.env.OPM_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const t0 = performance.now();
    writeFileSync(out, drawGraph(cfg, 'html', { packageName: pkg }));
    await page.goto(pathToFileURL(out).href, { waitUntil: 'load' });
    const nodes = page.locator('section.lane g.node');
    // A lane opens at its head: focus brings the oldest bundles into its window, as Tab does.
    await nodes.nth(1).focus();
    await nodes.nth(1).hover();
    await page.locator('#details h2').waitFor();
    await nodes.nth(0).focus();
    await nodes.nth(0).click();
    await page.locator('g.node.selected').waitFor();
    const ms = performance.now() - t0;
    if (errors.length > 0) throw new Error(`page errors: ${errors.join('; ')}`);
    return ms;
  } finally {
    await browser.close();
  }
}
