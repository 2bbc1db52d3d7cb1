// Demo 14's diagram while the clock plays: frames per second (from requestAnimationFrame
// timestamps in the page) and the main thread's work (Chromium's trace: each `RunTask` on
// the renderer's main thread), for each scenario at its busiest variant, playing at 20
// simulated seconds a wall second (a redraw of every box and every dot 20 times a second).
// Not part of the test command; run it against a built and served dist/:
//
//   node scripts/serve-dist.mjs dist 8123 &
//   BASE_URL=http://127.0.0.1:8123/ node scripts/frame-timing.mjs
import { launchBrowser, openPage } from '../e2e/support.mjs';

const SECONDS = 4;
const LINKS = [
  'scenario=cascading-failure&variant=unprotected',
  'scenario=rate-limiter&variant=token-bucket',
  'scenario=flash-sale&variant=scale-out',
];

const q = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const browser = await launchBrowser();
for (const link of LINKS) {
  const { page } = await openPage(browser, { width: 1280, height: 800 }, `?demo=14&${link}`);
  await page.getByTestId('box-status').filter({ hasText: / s simulated, \d+ events\./ }).waitFor({ timeout: 60000 });
  await page.getByTestId('box-speed').selectOption('20');
  await page.getByTestId('box-scrubber').fill('0');
  await page.waitForTimeout(500);
  await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
  const frames = await page.evaluate(async (seconds) => {
    document.querySelector('[data-testid=box-play]').click();
    const stamps = [];
    await new Promise((done) => {
      const frame = (t) => {
        stamps.push(t);
        if (t - stamps[0] < seconds * 1000) requestAnimationFrame(frame); else done();
      };
      requestAnimationFrame(frame);
    });
    document.querySelector('[data-testid=box-play]').click();
    return stamps;
  }, SECONDS);
  const events = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
  const gaps = frames.slice(1).map((t, i) => t - frames[i]).sort((a, b) => a - b);
  const main = events.find((e) => e.name === 'TracingStartedInBrowser' || e.name === 'RunTask');
  // The renderer's main thread: where the page's script ran (the longest thread of `FunctionCall`s).
  const calls = events.filter((e) => e.name === 'FunctionCall' && e.ph === 'X');
  const thread = calls.length ? calls[0] : main;
  const tasks = events
    .filter((e) => e.name === 'RunTask' && e.ph === 'X' && e.pid === thread.pid && e.tid === thread.tid)
    .map((e) => e.dur / 1000)
    .sort((a, b) => a - b);
  const fps = (1000 / q(gaps, 0.5)).toFixed(0);
  // The clock's redraws (a new second: every box, cell and dot) are the tasks over 1 ms;
  // the rest are the browser's own frames.
  const redraws = tasks.filter((d) => d >= 1);
  console.log(
    `Demo 14 ${link}: ${frames.length} frames in ${SECONDS} s, frame interval median ${q(gaps, 0.5).toFixed(1)} ms (${fps} fps), ` +
      `p95 ${q(gaps, 0.95).toFixed(1)} ms; main-thread tasks median ${q(tasks, 0.5).toFixed(2)} ms, p95 ${q(tasks, 0.95).toFixed(2)} ms, ` +
      `longest ${tasks[tasks.length - 1].toFixed(2)} ms (${tasks.length} tasks); ` +
      `redraws (tasks over 1 ms): ${redraws.length}, median ${redraws.length ? q(redraws, 0.5).toFixed(2) : '-'} ms, p95 ${redraws.length ? q(redraws, 0.95).toFixed(2) : '-'} ms`,
  );
  await page.close();
}
await browser.close();
