// Accessibility, checked by axe-core (its WCAG 2 A and AA rules and best practices) on every
// page of the course, in light and in dark: each demo after a few ticks or its first run,
// with what it shows only on request (the comparison, the teacher notes), the two dialogs,
// the front page and the overview, and Demo 14 at a phone's width, where its diagram
// scrolls. Any violation fails, with the rule and where it is. Then what axe does not
// check: at 320 px wide (a small phone, or a desktop zoomed to 400 %) no page scrolls
// sideways (WCAG 1.4.10), whatever it has open. Reading order, the words themselves and the
// keyboard flows are tested elsewhere by hand-written checks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { launchBrowser, BASE_URL } from './support.mjs';

const AXE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

// The page at `path`, in a context where axe's script may run (the site's CSP allows no
// script but its own; bypassed for this test context only).
async function open(path, viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ viewport, bypassCSP: true });
  const page = await context.newPage();
  await page.goto(new URL(path, BASE_URL).href);
  return { page, context };
}

// axe's violations on the page as it is, in light and then in dark, one line each.
async function violations(page) {
  const found = [];
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE });
    const lines = await page.evaluate(async () => {
      const { violations } = await window.axe.run(document, { resultTypes: ['violations'] });
      return violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}: ${v.help}`);
    });
    found.push(...lines.map((line) => `${colorScheme}: ${line}`));
  }
  return found;
}

// A demo ready to be read: a few ticks played, or its first run in.
async function ready(page, demo) {
  await page.getByTestId('demo-heading').waitFor();
  if (demo <= 7) {
    for (let i = 0; i < 6; i++) await page.getByTestId('next-tick').click();
  } else if (demo === 14) {
    await page.getByTestId('box-status').filter({ hasText: / s simulated, \d+ events\./ }).waitFor({ timeout: 60_000 });
  } else if (demo === 15) {
    await page.locator('[data-testid=policies-busy]:empty').waitFor({ state: 'attached', timeout: 90_000 });
  }
  // The charts and panels drawn in the tasks after the first.
  await page.waitForTimeout(500);
}

test('every demo, with its comparison and teacher notes, has no axe violations', async () => {
  const problems = [];
  for (let demo = 1; demo <= 15; demo++) {
    const { page, context } = await open(`?demo=${demo}`);
    await ready(page, demo);
    if (await page.getByTestId('compare-open').count()) await page.getByTestId('compare-open').click();
    if (demo === 14) {
      await page.getByTestId('box-compare').click();
      await page.locator('[data-testid=box-compare-table] tbody tr').first().waitFor({ timeout: 90_000 });
    }
    await page.locator('[data-testid=teacher-notes] summary').click();
    // The notes come from the tools part, loaded on this first opening.
    await page.waitForFunction(() => document.querySelector('[data-testid=teacher-notes]').textContent.length > 300);
    problems.push(...(await violations(page)).map((v) => `Demo ${demo}, ${v}`));
    await context.close();
  }
  assert.deepEqual(problems, []);
});

test('the dialogs, the front page and the overview have no axe violations', async () => {
  const problems = [];
  for (const demo of [3, 12]) {
    const { page, context } = await open(`?demo=${demo}`);
    await ready(page, demo);
    await page.getByTestId('export-r4j').click();
    await page.getByTestId('export-r4j-text').filter({ hasText: /\S/ }).waitFor();
    problems.push(...(await violations(page)).map((v) => `Demo ${demo}, config dialog, ${v}`));
    await page.keyboard.press('Escape');
    await page.getByTestId('embed-open').click();
    await page.getByTestId('embed-dialog').waitFor();
    problems.push(...(await violations(page)).map((v) => `Demo ${demo}, embed dialog, ${v}`));
    await context.close();
  }
  for (const path of ['', '?overview=1']) {
    const { page, context } = await open(path);
    await page.locator('main h1').first().waitFor();
    await page.waitForTimeout(500);
    problems.push(...(await violations(page)).map((v) => `${path || 'front page'}, ${v}`));
    await context.close();
  }
  assert.deepEqual(problems, []);
});

test('Demo 14 on a phone has no axe violations, and its diagram scrolls by keyboard', async () => {
  const { page, context } = await open('?demo=14', { width: 390, height: 844 });
  await ready(page, 14);
  assert.deepEqual(await violations(page), []);
  const diagram = page.locator('.box-diagram-scroll');
  await diagram.focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('.box-diagram-scroll').scrollLeft > 0);
  await context.close();
});

test('at 320 px wide, with every section open, no page scrolls sideways', async () => {
  const wide = [];
  for (let demo = 1; demo <= 15; demo++) {
    const { page, context } = await open(`?demo=${demo}`, { width: 320, height: 640 });
    await ready(page, demo);
    await page.evaluate(() => { for (const details of document.querySelectorAll('details')) details.open = true; });
    await page.waitForTimeout(300);
    // What is wider than the screen, outside the regions made to scroll sideways.
    const over = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      if (document.documentElement.scrollWidth <= width) return [];
      return [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > width + 1 && !e.closest('[role=region], .demo-list ol'))
        .slice(0, 3)
        .map((e) => `${e.tagName.toLowerCase()}.${e.getAttribute('class') ?? ''}`);
    });
    if (over.length) wide.push(`Demo ${demo}: ${over.join(', ')}`);
    await context.close();
  }
  assert.deepEqual(wide, []);
});
