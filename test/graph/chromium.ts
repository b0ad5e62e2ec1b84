/// <reference lib="dom" />
/**
 * The real browser for the page tests: Debian's chromium (`.ci/run` installs it), driven by
 * playwright-core over the DevTools protocol. No browser is downloaded; OPM_CHROMIUM may name
 * another binary.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';

export function chromiumPath(): string {
  const p = process.env.OPM_CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(p)) {
    throw new Error(
      `no browser at ${p}: install Debian's chromium (apt-get install chromium) or set OPM_CHROMIUM`,
    );
  }
  return p;
}

export async function launch(): Promise<Browser> {
  // No sandbox: CI runs as root, where chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-gpu'] });
}

/** A page that records console errors and uncaught exceptions. */
export async function openPage(
  browser: Browser,
  options: { colorScheme?: 'light' | 'dark'; width?: number; height?: number } = {},
): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({
    viewport: { width: options.width ?? 1400, height: options.height ?? 900 },
    colorScheme: options.colorScheme ?? 'light',
  });
  const errors: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e: Error) => errors.push(e.message));
  // Nothing may be fetched: the picture and the page are self-contained.
  await page.route(/^(?!file:|data:|about:)/, (route) => {
    errors.push(`network request: ${route.request().url()}`);
    return route.abort();
  });
  return { page, errors };
}

/** Where screenshots go: $OPM_SCREENSHOT_DIR, else `test-output/graph/` in the project (ignored by git). */
export function screenshotDir(): string {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const dir = process.env.OPM_SCREENSHOT_DIR ?? path.join(root, 'test-output', 'graph');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A screenshot of an SVG document at its own size (a full-page capture of a bare SVG document does
 * not finish in chromium, so the viewport is made as large as the picture instead). Returns its path.
 */
export async function svgScreenshot(page: Page, name: string): Promise<string> {
  const size = await page.evaluate(() => {
    const svg = document.documentElement;
    return { width: Number(svg.getAttribute('width')), height: Number(svg.getAttribute('height')) };
  });
  await page.setViewportSize({ width: Math.min(size.width, 4000), height: Math.min(size.height, 8000) });
  const shot = path.join(screenshotDir(), name);
  await page.screenshot({ path: shot });
  return shot;
}
