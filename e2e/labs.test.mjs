// End-to-end: the retry labs (Demos 8 and 9) load without errors, follow their controls,
// and the time to recompute and redraw a chart while a slider moves is measured
// (reported, not asserted).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, mkdir } from 'node:fs/promises';
import { launchBrowser, openPage, screenshot } from './support.mjs';

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

for (const [name, viewport, colorScheme] of [
  ['desktop', { width: 1280, height: 800 }, 'light'],
  ['phone', { width: 390, height: 844 }, 'dark'],
]) {
  test(`Demos 8 and 9 by keyboard (${name}, ${colorScheme})`, async () => {
    const { page, problems } = await openPage(browser, viewport, '?demo=7', colorScheme);
    await page.getByTestId('next-demo').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('demo-heading').filter({ hasText: 'Demo 8:' }).waitFor();
    await page.locator('[data-testid=amp-successes-canvas][data-render-count]').waitFor();
    assert.match(await page.getByTestId('amp-successes-summary').textContent(), /3 retries, the provider never recovers/);
    // Arrow keys move a slider: fewer retries, new summary.
    const before = await page.getByTestId('amp-successes-summary').textContent();
    await page.getByTestId('amp-6').focus();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(
      (old) => document.querySelector('[data-testid=amp-successes-summary]').textContent !== old, before);
    await screenshot(page, `demo-8-${name}-${colorScheme}`);

    await page.getByTestId('next-demo').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('demo-heading').filter({ hasText: 'Demo 9:' }).waitFor();
    await page.getByTestId('jitter-mode').focus();
    await page.getByTestId('jitter-mode').selectOption('full');
    await page.getByTestId('jit-calls-summary').filter({ hasText: 'everyone was served' }).waitFor();
    await page.getByTestId('jitter-overlay').check();
    await page.getByTestId('new-seed').click();
    await screenshot(page, `demo-9-${name}-${colorScheme}`);
    assert.deepEqual(problems, [], 'no console errors or failed requests');
    await page.close();
  });
}

// Moves a slider through its range one step at a time and times each input event until
// every chart of the page has redrawn (the canvases count their redraws).
async function timeSlider(page, sliderId, steps) {
  return page.evaluate(async ({ sliderId, steps }) => {
    const slider = document.querySelector(`[data-testid=${sliderId}]`);
    const canvases = [...document.querySelectorAll('canvas[data-render-count]')];
    const count = () => canvases.map((c) => c.getAttribute('data-render-count')).join();
    const times = [];
    for (let i = 0; i < steps; i++) {
      const min = Number(slider.min), max = Number(slider.max), step = Number(slider.step);
      const value = min + ((i * step) % (max - min + step));
      if (String(value) === slider.value) continue;
      const drawn = count();
      const start = performance.now();
      slider.value = String(value);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
      for (let spins = 0; count() === drawn && spins < 100000; spins++) await Promise.resolve();
      times.push(performance.now() - start);
      await new Promise((r) => setTimeout(r, 0));
    }
    const sorted = [...times].sort((a, b) => a - b);
    return { moves: times.length, median_ms: sorted[Math.floor(sorted.length / 2)], p95_ms: sorted[Math.floor(sorted.length * 0.95)] };
  }, { sliderId, steps });
}

test('recompute and redraw while a slider moves, median', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=8');
  await page.locator('[data-testid=amp-offered-canvas][data-render-count]').waitFor();
  const labA = await timeSlider(page, 'amp-2', 60); // capacity while degraded
  await page.goto(new URL('?demo=9', page.url()).href);
  await page.locator('[data-testid=jit-waiting-canvas][data-render-count]').waitFor();
  const labB = await timeSlider(page, 'jit-1', 60); // server capacity
  await page.getByTestId('jitter-overlay').check();
  const labBAll = await timeSlider(page, 'jit-1', 60);
  const result = { lab_a_two_charts: labA, lab_b_two_charts: labB, lab_b_all_four_modes: labBAll };
  await mkdir(new URL('./results/', import.meta.url), { recursive: true });
  await writeFile(new URL('./results/lab-redraw.json', import.meta.url), JSON.stringify(result, null, 2));
  console.log(`Lab redraw timing: ${JSON.stringify(result)}`);
  assert.ok(labA.moves > 10 && labB.moves > 10);
  assert.deepEqual(problems, []);
  await page.close();
});
