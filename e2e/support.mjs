// Shared helpers for the end-to-end tests: Debian's chromium driven by playwright-core.
import { chromium } from 'playwright-core';
import { mkdir } from 'node:fs/promises';

export const BASE_URL = process.env.BASE_URL ?? 'http://127.0.0.1:8080/';
const SCREENSHOTS = new URL('./screenshots/', import.meta.url);

export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
}

// Opens the page at `path` (in the given colour scheme) and collects console errors, page
// errors and failed requests.
export async function openPage(browser, viewport, path = '', colorScheme = 'light') {
  const page = await browser.newPage({ viewport, colorScheme });
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()}`));
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  await page.goto(new URL(path, BASE_URL).href);
  return { page, problems };
}

// On a phone a lab's controls are a sheet at the bottom of the screen, closed at first:
// open it by its button (nothing to do where the button is hidden, on a wider screen).
export async function openControls(page, { keyboard = false } = {}) {
  const toggle = page.getByTestId('lab-controls-toggle');
  await toggle.waitFor({ state: 'attached' });
  if (!(await toggle.isVisible()) || (await toggle.getAttribute('aria-expanded')) === 'true') return;
  if (keyboard) {
    await toggle.focus();
    await page.keyboard.press('Enter');
  } else {
    await toggle.click();
  }
  await page.locator('[data-testid=lab-controls-toggle][aria-expanded=true]').waitFor();
}

export async function screenshot(page, name) {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname, fullPage: true });
}
