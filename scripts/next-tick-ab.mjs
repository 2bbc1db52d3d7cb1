// What a part of a tick demo costs Next Tick, paired in one page: style rules are swapped
// in turn (none first), each for a block of ticks from a reset, round after round, so the
// machine's drift hits every variant alike. Prints, per variant, the median and the mean of
// the middle half of "click to laid out" (as e2e/tick-demos.test.mjs measures it; the
// browser rounds each time to 0.1 ms, and the middle half's mean sees below that). Not part
// of the test command; run it against a built and served dist/:
//
//   node scripts/serve-dist.mjs dist 8123 &
//   DEMO=3 BASE_URL=http://127.0.0.1:8123/ \
//     VARIANTS='.state-diagram{display:none};;.panels{display:none}' node scripts/next-tick-ab.mjs
//
// Two builds instead: URLS='http://127.0.0.1:8123/,http://127.0.0.1:8124/' opens both
// side by side and alternates the blocks between them (run it in both orders). A copy of a
// dist/ whose stylesheet was edited by hand needs the page's integrity hash renewed, or the
// browser drops the whole sheet (and the page gets faster for the wrong reason).
//
// BLOCK (20) ticks per variant and ROUNDS (30) rounds. SKIP (0) ticks are played untimed
// after each reset: the test command's figure is over 300 ticks, most of them after the
// demo's story, where the breaker keeps cycling (SKIP=100 measures those). BY_KIND=1 also
// sorts the ticks by what happened in them (the story's first 20 ticks, the breaker's
// state change read from the tick's summary line, or none): where the breaker cycles, the
// median sits between the quiet ticks and those with a state change.
import { launchBrowser } from '../e2e/support.mjs';

const demo = Number(process.env.DEMO ?? 3);
const BLOCK = Number(process.env.BLOCK ?? 20);
const ROUNDS = Number(process.env.ROUNDS ?? 30);
const SKIP = Number(process.env.SKIP ?? 0);
const urls = (process.env.URLS ?? process.env.BASE_URL ?? 'http://127.0.0.1:8080/').split(',');
const variants = process.env.URLS ? [''] : ['', ...(process.env.VARIANTS ?? '').split(';;').filter(Boolean)];
const browser = await launchBrowser();
const pages = [];
for (const url of urls) {
  // The page's CSP allows no inline style; bypassed for this test context only.
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  await page.goto(new URL(`?demo=${demo}`, url).href);
  await page.getByTestId('next-tick').waitFor();
  await page.evaluate(() => document.head.append(Object.assign(document.createElement('style'), { id: 'next-tick-ab' })));
  pages.push(page);
}
await new Promise((r) => setTimeout(r, 500));

// One block: `css` in force, a reset, then `block` ticks; their times in ms.
const ticks = (page, css) => page.evaluate(async ([css, block, skip]) => {
  document.getElementById('next-tick-ab').textContent = css;
  const button = document.querySelector('[data-testid=next-tick]');
  const counter = document.querySelector('[data-testid=tick-counter]');
  const reset = [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Reset');
  reset.click();
  await new Promise((r) => setTimeout(r, 30));
  for (let i = 0; i < skip; i++) {
    button.click();
    await new Promise((r) => setTimeout(r, 0));
  }
  void document.body.offsetHeight;
  const summary = document.querySelector('[data-testid=narration-live]');
  const out = [];
  for (let i = 0; i < block; i++) {
    const expected = String(Number(counter.textContent) + 1);
    const start = performance.now();
    button.click();
    for (let spins = 0; counter.textContent !== expected && spins < 10000; spins++) await Promise.resolve();
    void document.body.offsetHeight;
    const ms = performance.now() - start;
    const t = skip + i + 1;
    const kind = t <= 20 ? 'the story (t <= 20)' : (/Breaker: (\S+ → \S+?)\./.exec(summary.textContent)?.[1] ?? 'no state change');
    out.push([ms, kind]);
    await new Promise((r) => setTimeout(r, 0));
  }
  return out;
}, [css, BLOCK, SKIP]);

const runs = pages.flatMap((page, p) => variants.map((css) => ({ page, css, label: css || (pages.length > 1 ? urls[p] : '(the page as built)'), times: [], kinds: new Map() })));
for (let round = 0; round < ROUNDS; round++) {
  for (const run of runs) {
    await run.page.bringToFront();
    for (const [ms, kind] of await ticks(run.page, run.css)) {
      run.times.push(ms);
      if (!run.kinds.has(kind)) run.kinds.set(kind, []);
      run.kinds.get(kind).push(ms);
    }
  }
}
await browser.close();

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
const middleMean = (xs) => {
  const s = sorted(xs).slice(Math.floor(xs.length / 4), Math.ceil((3 * xs.length) / 4));
  return s.reduce((a, b) => a + b, 0) / s.length;
};
console.log(`Demo ${demo}, Next Tick, click to laid out (${BLOCK * ROUNDS} ticks each):`);
for (const { label, times, kinds } of runs) {
  console.log(`  median ${median(times).toFixed(2)} ms, middle half ${middleMean(times).toFixed(3)} ms  ${label}`);
  if (process.env.BY_KIND) {
    for (const [kind, ms] of kinds) console.log(`      ${kind}: ${ms.length} ticks, middle half ${middleMean(ms).toFixed(2)} ms`);
  }
}
