// The longest main-thread task after each change of a control, from Chromium's own trace:
// for each of 30 changes, the longest `RunTask` on the renderer's main thread in the
// 400 ms after it; printed as median / p95. Not part of the test command (it takes about
// a minute per line); run it against a built and served dist/:
//
//   node scripts/serve-dist.mjs dist 8123 &
//   BASE_URL=http://127.0.0.1:8123/ node scripts/interaction-timing.mjs   (DEMO=14: one demo)
import { launchBrowser, openPage } from '../e2e/support.mjs';

const CHANGES = 30;
const WINDOW_MS = 400;
// [demo, event ('input', 'change' or 'click'), test id, values (for a click: test ids)]
const INTERACTIONS = [
  [8, 'input', 'lab-control-degradedCapacityPercent', ['10', '30', '90', '50', '5']],
  [8, 'input', 'lab-control-retries', ['0', '5', '3', '10']],
  [9, 'input', 'lab-control-capacityPerSlot', ['50', '200', '120', '400']],
  [9, 'change', 'lab-control-mode', ['none', 'full', 'equal', 'decorrelated']],
  [10, 'click', 'sandbox-send-success', ['sandbox-send-success', 'sandbox-send-failure', 'sandbox-advance']],
  [12, 'input', 'lab-control-queueCapacity', ['100', '300', '50', '600', '200']],
  [12, 'click', 'bo-step-0', ['bo-step-0', 'bo-step-1', 'bo-step-3', 'bo-step-2', 'bo-step-4']],
  [12, 'click', 'lab-control-retryBulkheadFull', []],
  [13, 'change', 'lab-control-scenario', ['decline-storm', 'quoter-stall', 'connection-reset', 'lost-response', 'provider-timeouts', 'game-day']],
  [13, 'change', 'lab-control-order', ['resilience4j', 'breaker-outside-retry']],
  [13, 'change', 'lab-control-bulkheads', ['separate', 'shared', 'none']],
  [11, 'change', 'lab-control-bulkhead', ['none', 'semaphore', 'thread-pool']],
  [11, 'input', 'lab-control-vendorSlowAtS', ['10', '30', '50', '20']],
  // The second the cells show: the 24 cells written again.
  [11, 'input', 'pool-scrubber', ['5', '30', '12', '50', '23']],
  [14, 'input', 'box-scrubber', ['5', '30', '12', '50', '23']],
  [14, 'change', 'lab-control-scenario', ['retry-storm', 'payment-system', 'cascading-failure']],
  // The same with the diagram in view (the select above it): the new drawing on screen.
  [14, 'change', 'lab-control-scenario', ['retry-storm', 'payment-system', 'cascading-failure'], '.box-panel'],
  // An edit of the system: each click adds a timeline entry, and the run is made again.
  [14, 'click', 'box-add-entry', []],
  // Demo 15: the learner's own system (one run, then the verdict and the map redrawn), and
  // a policy's setting (its 63 runs made in slices, then every chart redrawn).
  [15, 'input', 'lab-control-yourLoad', ['50', '90', '30', '70']],
  [15, 'change', 'lab-control-yourPolicy', ['grpc', 'resilience4j', 'finagle', 'retry-budget']],
  [15, 'input', 'lab-control-grpc.maxTokens', ['20', '10', '50', '5']],
];
// A page that makes its first run in slices is measured once that run is in.
const SETTLED = { 15: '[data-testid=policies-busy]:empty' };
// DEMO=14 measures one demo's lines only.
const ONLY = process.env.DEMO ? Number(process.env.DEMO) : null;

const browser = await launchBrowser();
for (const [demo, kind, testid, values, inView] of INTERACTIONS.filter(([d]) => ONLY === null || d === ONLY)) {
  const { page } = await openPage(browser, { width: 1280, height: 800 }, `?demo=${demo}`);
  await page.getByTestId(testid).waitFor({ state: 'attached' });
  if (SETTLED[demo]) await page.locator(SETTLED[demo]).waitFor({ state: 'attached', timeout: 120_000 });
  // A learner changes a control they can see, with what it changes around it: a panel out
  // of view may be neither laid out nor painted (Demo 14's content-visibility).
  await (inView ? page.locator(inView).first() : page.getByTestId(testid)).scrollIntoViewIfNeeded();
  await page.waitForTimeout(1500);
  await browser.startTracing(page, { categories: ['blink.user_timing', 'devtools.timeline', 'disabled-by-default-devtools.timeline'] });
  for (let i = 0; i < CHANGES; i++) {
    const value = values.length ? values[i % values.length] : '';
    await page.evaluate(([testid, kind, value]) => {
      const el = document.querySelector(`[data-testid="${kind === 'click' && value ? value : testid}"]`);
      performance.mark('change');
      if (kind === 'click') el.click();
      else { el.value = value; el.dispatchEvent(new Event(kind, { bubbles: true })); }
    }, [testid, kind, value]);
    await page.waitForTimeout(WINDOW_MS);
  }
  const events = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
  const mark = events.find((e) => e.name === 'change');
  const tasks = events.filter((e) => e.name === 'RunTask' && e.ph === 'X' && e.pid === mark.pid && e.tid === mark.tid);
  const worst = events.filter((e) => e.name === 'change' && e.pid === mark.pid).map((e) => e.ts)
    .map((ts) => Math.max(0, ...tasks.filter((t) => t.ts + t.dur >= ts && t.ts < ts + WINDOW_MS * 1000).map((t) => t.dur / 1000)))
    .sort((a, b) => a - b);
  const q = (p) => worst[Math.min(worst.length - 1, Math.floor(p * worst.length))].toFixed(1);
  console.log(`Demo ${demo} ${testid} (${kind}${inView ? `, ${inView} in view` : ''}): longest task per change, median ${q(0.5)} ms, p95 ${q(0.95)} ms (${worst.length} changes)`);
  await page.close();
}
await browser.close();
