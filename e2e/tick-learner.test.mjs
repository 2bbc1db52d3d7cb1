// End-to-end: the tick demos as a learner meets them. The evidence is on screen when it
// happens, the texts follow the run the learner made, the four protections are compared
// live, and foreign link parameters are ignored. Screenshots of the demos whose lesson
// is a picture (2, 6, 7) at their key tick go to e2e/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, screenshot } from './support.mjs';

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

// Whether the element is wholly inside the viewport (and not under the sticky bar).
async function inViewport(page, locator, top = 0) {
  const box = await locator.boundingBox();
  const { height } = page.viewportSize();
  return box !== null && box.y >= top && box.y + box.height <= height;
}

async function nextTicks(page, n) {
  for (let i = 0; i < n; i++) {
    const before = await page.getByTestId('tick-counter').textContent();
    await page.getByTestId('next-tick').click();
    await page.waitForFunction(
      (b) => document.querySelector('[data-testid=tick-counter]').textContent !== b, before);
  }
}

test('at 1280 x 800 the thread pool, the breaker state and the tick narration are on screen', async () => {
  const { page, problems } = await openPage(browser, DESKTOP, '?demo=5&t=3');
  await page.getByTestId('tick-counter').filter({ hasText: '3' }).waitFor();
  await nextTicks(page, 1);
  assert.ok(await inViewport(page, page.locator('.thread-pool .threads')), 'the thread cells');
  assert.ok(await inViewport(page, page.getByTestId('breaker-state')), 'the breaker state');
  const line = page.getByTestId('narration-live');
  assert.ok(await inViewport(page, line), 'the latest tick in words');
  assert.match(await line.textContent(), /^t = 4/);
  // Scrolled further down, the transport bar keeps Next tick and the tick's line in view.
  await page.mouse.wheel(0, 900);
  await page.waitForTimeout(100);
  await nextTicks(page, 1);
  assert.ok(await inViewport(page, page.getByTestId('next-tick')));
  assert.ok(await inViewport(page, line));
  assert.deepEqual(problems, []);
  await page.close();
});

// On a phone the sticky transport bar is taller than any fixed margin once its summary line
// takes two lines: "Demo done" must put the outcome's heading below it, not under it.
test('on a phone, Demo done shows the outcome’s heading below the transport bar', async () => {
  const { page, problems } = await openPage(browser, PHONE, '?demo=3&t=30');
  await page.getByTestId('demo-done').click();
  await page.waitForTimeout(300);
  const bar = await page.locator('.transport').boundingBox();
  assert.ok(bar.height > 192, `the bar is ${bar.height} px, more than the old 12rem margin`);
  assert.ok(await inViewport(page, page.getByTestId('outcome').locator('h2'), bar.y + bar.height),
    'the heading is below the bar');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the end of a demo is shown where the learner looks, and Play stops there', async () => {
  const { page, problems } = await openPage(browser, DESKTOP, '?demo=4');
  const done = page.getByTestId('demo-done');
  assert.equal(await done.isVisible(), false);
  await page.getByTestId('speed').selectOption('300');
  await page.getByTestId('play').click();
  await done.waitFor({ state: 'visible', timeout: 10_000 });
  await page.waitForTimeout(900);
  assert.equal(await page.getByTestId('tick-counter').textContent(), '6', 'Play stopped at the last tick');
  assert.equal(await page.getByTestId('play').getAttribute('aria-pressed'), 'false');
  await done.click();
  await page.waitForTimeout(300);
  assert.ok(await inViewport(page, page.getByTestId('outcome').locator('h2')), 'the outcome is scrolled into view');
  // Next tick still goes on.
  await nextTicks(page, 1);
  assert.equal(await page.getByTestId('tick-counter').textContent(), '7');
  assert.deepEqual(problems, []);
  await page.close();
});

test('on a phone the transport bar takes at most a quarter of the screen', async () => {
  const { page, problems } = await openPage(browser, PHONE, '?demo=5&t=2', 'dark');
  await page.getByTestId('thread-cell').first().scrollIntoViewIfNeeded();
  const bar = await page.locator('.transport').boundingBox();
  assert.ok(bar.height <= 844 / 4, `the bar is ${bar.height} px high`);
  // Scrolled to the thread pool, the pool is not under the bar.
  await page.locator('.thread-pool').evaluate((el) => el.scrollIntoView());
  await page.waitForTimeout(100);
  const pool = await page.locator('.thread-pool').boundingBox();
  const stuck = await page.locator('.transport').boundingBox();
  assert.ok(pool.y >= stuck.y + stuck.height - 1, 'the thread pool starts below the bar');
  await screenshot(page, 'demo-5-phone-transport');
  assert.deepEqual(problems, []);
  await page.close();
});

test('what happened follows the learner’s settings', async () => {
  const { page, problems } = await openPage(browser, DESKTOP, '?demo=5&minimumNumberOfCalls=2');
  await nextTicks(page, 6);
  const failures = (await page.getByTestId('payment-failures').textContent()).trim();
  assert.equal(failures, '1', 'the spec’s rules with minimumNumberOfCalls = 2: one payment fails');
  const outcome = await page.getByTestId('outcome').textContent();
  assert.match(outcome, /1 payment failed|one payment failed/i);
  assert.match(outcome, /t = 4/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a protection changed mid-run is narrated once', async () => {
  const { page, problems } = await openPage(browser, DESKTOP, '?demo=4');
  await nextTicks(page, 1);
  await page.getByTestId('protection-select').selectOption('circuit_breaker');
  const said = [];
  for (let i = 0; i < 4; i++) {
    await nextTicks(page, 1);
    said.push(await page.getByTestId('narration').textContent());
  }
  const mentions = said.filter((text) => /protection is now circuit breaker/i.test(text));
  assert.equal(mentions.length, 1, `the change is told at t = 2 only: ${JSON.stringify(said)}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the four protections side by side: 4, 2, 0, 0 failed payments on Demo 4', async () => {
  const { page, problems } = await openPage(browser, DESKTOP, '?demo=4');
  await page.getByTestId('tick-counter').waitFor();
  const open = page.getByTestId('compare-open');
  const table = page.getByTestId('compare-table');
  // Once, or again if the first click came before the page was ready for it.
  for (let i = 0; i < 2 && !(await table.isVisible()); i++) {
    if (await open.count()) await open.click();
    await table.waitFor({ timeout: 5000 }).catch(() => {});
  }
  await table.waitFor();
  const rows = await page.getByTestId('compare-row').evaluateAll((rows) => rows.map((r) => [
    r.getAttribute('data-protection'),
    r.querySelector('[data-testid=compare-payment-failures]').textContent.trim(),
  ]));
  assert.deepEqual(rows, [['none', '4'], ['circuit_breaker', '2'], ['bulkhead', '0'], ['breaker_and_bulkhead', '0']]);
  assert.deepEqual(problems, []);
  await page.close();
});

test('parameters that are not ours are ignored silently', async () => {
  const { page, problems } = await openPage(browser, DESKTOP, '?demo=4&utm_source=x&fbclid=abc');
  await page.getByTestId('tick-counter').waitFor();
  assert.equal(await page.getByTestId('notice').isVisible(), false);
  assert.deepEqual(problems, []);
  await page.close();
});

test('every demo page has its own title', async () => {
  const { page, problems } = await openPage(browser, DESKTOP, '?demo=5');
  await page.getByTestId('tick-counter').waitFor();
  assert.equal(await page.title(), 'Demo 5: Slow service, circuit breaker — Resilience Playground');
  await page.getByTestId('next-demo').click();
  await page.waitForFunction(() => document.title.startsWith('Demo 6:'));
  assert.deepEqual(problems, []);
  await page.close();
});

for (const [demo, t, name] of [[2, 6, 'half-open-path'], [6, 3, 'bulkhead-compartments'], [7, 4, 'window-reasons']]) {
  test(`Demo ${demo} at t = ${t}: ${name} (screenshots)`, async () => {
    for (const [viewport, scheme, label] of [[DESKTOP, 'light', 'desktop-light'], [PHONE, 'dark', 'phone-dark']]) {
      const { page, problems } = await openPage(browser, viewport, `?demo=${demo}&t=${t}`, scheme);
      await page.getByTestId('tick-counter').filter({ hasText: String(t) }).waitFor();
      await screenshot(page, `demo-${demo}-t${t}-${name}-${label}`);
      assert.deepEqual(problems, []);
      await page.close();
    }
  });
}
