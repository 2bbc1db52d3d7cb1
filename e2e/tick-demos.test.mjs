// End-to-end: every tick demo walked to its end with the keyboard in Chromium, with the
// spec's end states checked, screenshots at 1280x800 and 390x844 (light and dark), and
// the time of one Next Tick measured over many ticks (reported, not asserted).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, mkdir } from 'node:fs/promises';
import { launchBrowser, openPage, screenshot } from './support.mjs';

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

// Breaker state at the end of each demo's own run (../shared/spec/01-tick-model.md):
// Demo 1 opened at t = 3 and still waits at t = 5; Demo 2 closed at t = 6; Demo 3 is
// HALF_OPEN again at t = 10; Demos 5 and 7 opened at t = 5 and t = 4.
const END_STATE = { 1: 'OPEN', 2: 'CLOSED', 3: 'HALF_OPEN', 4: null, 5: 'OPEN', 6: null, 7: 'OPEN' };
const PAYMENT_FAILURES = { 4: '4', 5: '2', 6: '0', 7: '0' };

async function demoTicks(page) {
  const text = await page.locator('.tick-counter .of').textContent();
  return Number(/(\d+) ticks/.exec(text)[1]);
}

for (const [name, viewport, colorScheme] of [
  ['desktop', { width: 1280, height: 800 }, 'light'],
  ['phone', { width: 390, height: 844 }, 'dark'],
]) {
  test(`walk Demos 1-7 with the keyboard (${name}, ${colorScheme})`, async () => {
    const { page, problems } = await openPage(browser, viewport, '?demo=1', colorScheme);
    for (let demo = 1; demo <= 7; demo++) {
      await page.getByTestId('demo-heading').filter({ hasText: `Demo ${demo}:` }).waitFor();
      assert.equal(await page.getByTestId('tick-counter').textContent(), '0');
      const ticks = await demoTicks(page);
      // Focus the page body so the shortcuts go to the page, not a control.
      await page.locator('body').click({ position: { x: 1, y: 1 } });
      for (let t = 1; t <= ticks; t++) {
        await page.keyboard.press(t % 2 ? 'n' : ' ');
        await page.getByTestId('tick-counter').filter({ hasText: new RegExp(`^${t}$`) }).waitFor();
      }
      await page.getByTestId('outcome').waitFor();
      const state = await page.getByTestId('breaker-state').count()
        ? await page.getByTestId('breaker-state').textContent()
        : null;
      assert.equal(state, END_STATE[demo], `demo ${demo} ends ${END_STATE[demo]}`);
      if (PAYMENT_FAILURES[demo]) {
        assert.equal(await page.getByTestId('payment-failures').textContent(), PAYMENT_FAILURES[demo]);
      }
      await screenshot(page, `demo-${demo}-${name}-${colorScheme}`);
      // B steps back, R resets.
      await page.keyboard.press('b');
      await page.getByTestId('tick-counter').filter({ hasText: new RegExp(`^${ticks - 1}$`) }).waitFor();
      await page.keyboard.press('r');
      await page.getByTestId('tick-counter').filter({ hasText: /^0$/ }).waitFor();
      if (demo < 7) {
        await page.getByTestId('next-demo').focus();
        await page.keyboard.press('Enter');
      }
    }
    // P plays and pauses.
    await page.locator('body').click({ position: { x: 1, y: 1 } });
    await page.keyboard.press('p');
    await page.getByTestId('tick-counter').filter({ hasText: /^[1-9]/ }).waitFor();
    await page.keyboard.press('p');
    assert.equal(await page.getByTestId('play').textContent(), 'Play');
    assert.deepEqual(problems, [], 'no console errors or failed requests');
    await page.close();
  });
}

test('a link reproduces the learner’s view', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=4');
  await page.getByTestId('next-tick').click();
  await page.getByTestId('next-tick').click();
  await page.getByTestId('protection-select').selectOption('bulkhead');
  await page.getByTestId('next-tick').click();
  await page.getByTestId('tick-counter').filter({ hasText: /^3$/ }).waitFor();
  // The address is written a moment after the last change.
  await page.waitForURL(/t=3/);
  const url = page.url();
  assert.match(url, /demo=4/);
  assert.match(url, /t=3/);
  assert.match(url, /changes=3\.bulkhead/);
  const cells = async (p) => p.locator('[data-testid=thread-cell][data-owner=recommendations]').count();
  const before = await cells(page);
  const { page: again, problems: againProblems } = await openPage(browser, { width: 1280, height: 800 }, url.slice(url.indexOf('?')));
  await again.getByTestId('tick-counter').filter({ hasText: /^3$/ }).waitFor();
  assert.equal(await cells(again), before);
  assert.equal(await again.getByTestId('protection-select').inputValue(), 'bulkhead');
  assert.deepEqual([...problems, ...againProblems], []);
  await page.close();
  await again.close();
});

// One Next Tick: click -> the page updated (the counter shows the tick) -> style and layout
// forced, in one task. Per demo: 300 ticks in a row from t = 0 (the demo's story, then the
// run going on), and the demo's own ticks again and again (Reset between walks, untimed).
// Reported, not asserted: the machines vary too much for a bound.
test('time of one Next Tick per demo (handler, DOM update, style and layout)', async () => {
  const results = {};
  const allProblems = [];
  for (let demo = 1; demo <= 7; demo++) {
    const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, `?demo=${demo}`);
    await page.getByTestId('next-tick').waitFor();
    results[demo] = await page.evaluate(async () => {
      const button = document.querySelector('[data-testid=next-tick]');
      const reset = document.querySelector('[data-testid=reset]');
      const counter = document.querySelector('[data-testid=tick-counter]');
      const demoTicks = Number(/(\d+) ticks/.exec(document.querySelector('.tick-counter .of').textContent)[1]);
      const settle = () => new Promise((r) => setTimeout(r, 0));
      async function oneTick() {
        const expected = String(Number(counter.textContent) + 1);
        const start = performance.now();
        button.click();
        // Leptos applies signal changes in microtasks: wait until the counter shows the tick.
        for (let spins = 0; counter.textContent !== expected && spins < 10000; spins++) {
          await Promise.resolve();
        }
        const updated = performance.now();
        void document.body.offsetHeight; // force style and layout of the new DOM
        const laidOut = performance.now();
        await settle();
        return [updated - start, laidOut - start];
      }
      async function toZero() {
        reset.click();
        for (let spins = 0; counter.textContent !== '0' && spins < 10000; spins++) {
          await Promise.resolve();
        }
        void document.body.offsetHeight;
        await settle();
      }
      const run = [];
      for (let i = 0; i < 300; i++) run.push(await oneTick());
      const own = [];
      for (let walk = 0; walk < 20; walk++) {
        await toZero();
        for (let t = 0; t < demoTicks; t++) own.push(await oneTick());
      }
      const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)];
      const round = (x) => Math.round(x * 100) / 100;
      const stats = (samples) => ({
        ticks: samples.length,
        dom_median_ms: round(median(samples.map((s) => s[0]))),
        with_layout_median_ms: round(median(samples.map((s) => s[1]))),
        with_layout_p95_ms: round(p95(samples.map((s) => s[1]))),
      });
      return { run_of_300: stats(run), own_ticks: stats(own) };
    });
    allProblems.push(...problems);
    await page.close();
  }
  await mkdir(new URL('./results/', import.meta.url), { recursive: true });
  await writeFile(new URL('./results/next-tick.json', import.meta.url), JSON.stringify(results, null, 2));
  for (const [demo, r] of Object.entries(results)) {
    console.log(`Next Tick, Demo ${demo}: ${r.run_of_300.with_layout_median_ms} ms median over 300 ticks, ${r.own_ticks.with_layout_median_ms} ms over the demo's own ticks (p95 ${r.run_of_300.with_layout_p95_ms} / ${r.own_ticks.with_layout_p95_ms} ms)`);
  }
  for (const r of Object.values(results)) assert.equal(r.run_of_300.ticks, 300);
  assert.deepEqual(allProblems, []);
});
