// Where one Next Tick's time goes, from Chromium's own trace: per tick, the click to the
// laid-out page (as e2e/tick-demos.test.mjs measures it), and the main thread's script,
// style and layout inside that span, with layout's dirty and total objects. Not part of
// the test command; run it against a built and served dist/:
//
//   node scripts/serve-dist.mjs dist 8123 &
//   DEMO=3 BASE_URL=http://127.0.0.1:8123/ node scripts/next-tick-breakdown.mjs
//
// CSS='.panel.breaker{display:none}' adds a rule first (the page's CSP is bypassed for this
// test context only), to see what one part of the page costs.
import { launchBrowser } from '../e2e/support.mjs';

const demo = Number(process.env.DEMO ?? 3);
const TICKS = Number(process.env.TICKS ?? 300);
const browser = await launchBrowser();
const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
await page.goto(new URL(`?demo=${demo}`, process.env.BASE_URL ?? 'http://127.0.0.1:8080/').href);
await page.getByTestId('next-tick').waitFor();
await page.waitForTimeout(500);
if (process.env.CSS) await page.addStyleTag({ content: process.env.CSS });
await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing'] });
const spans = await page.evaluate(async (ticks) => {
  const button = document.querySelector('[data-testid=next-tick]');
  const counter = document.querySelector('[data-testid=tick-counter]');
  const out = [];
  for (let i = 0; i < ticks; i++) {
    const expected = String(Number(counter.textContent) + 1);
    performance.mark('tick');
    const start = performance.now();
    button.click();
    for (let spins = 0; counter.textContent !== expected && spins < 10000; spins++) await Promise.resolve();
    void document.body.offsetHeight;
    out.push(performance.now() - start);
    performance.mark('laid-out');
    await new Promise((r) => setTimeout(r, 0));
  }
  return out;
}, TICKS);
const events = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
await browser.close();

const starts = events.filter((e) => e.name === 'tick').map((e) => e.ts);
const ends = events.filter((e) => e.name === 'laid-out').map((e) => e.ts);
const KINDS = { FunctionCall: 'script', UpdateLayoutTree: 'style', Layout: 'layout' };
const per = { script: [], style: [], layout: [] };
const dirty = [];
starts.forEach((a, i) => {
  const b = ends[i];
  const sum = { script: 0, style: 0, layout: 0 };
  for (const e of events) {
    if (e.ph !== 'X' || e.ts < a || e.ts > b || !KINDS[e.name]) continue;
    // Thread time where the trace has it: another process's work does not count.
    sum[KINDS[e.name]] += (e.tdur ?? e.dur) / 1000;
    if (e.name === 'Layout' && e.args?.beginData) dirty.push(e.args.beginData.dirtyObjects / e.args.beginData.totalObjects);
  }
  for (const k of Object.keys(sum)) per[k].push(sum[k]);
});
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? 0;
console.log(`Demo ${demo}, ${TICKS} ticks${process.env.CSS ? ` with ${process.env.CSS}` : ''}: click to laid out, median ${median(spans).toFixed(2)} ms`);
for (const [k, v] of Object.entries(per)) console.log(`  ${k}: median ${median(v).toFixed(2)} ms a tick`);
console.log(`  layout's dirty objects: median ${(100 * median(dirty)).toFixed(0)} % of the page's`);
