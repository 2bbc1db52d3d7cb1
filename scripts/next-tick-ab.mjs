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
// BLOCK (20) ticks per variant and ROUNDS (30) rounds.
import { launchBrowser } from '../e2e/support.mjs';

const demo = Number(process.env.DEMO ?? 3);
const variants = ['', ...(process.env.VARIANTS ?? '').split(';;').filter(Boolean)];
const browser = await launchBrowser();
// The page's CSP allows no inline style; bypassed for this test context only.
const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
await page.goto(new URL(`?demo=${demo}`, process.env.BASE_URL ?? 'http://127.0.0.1:8080/').href);
await page.getByTestId('next-tick').waitFor();
await page.waitForTimeout(500);
const lines = await page.evaluate(async ([variants, block, rounds]) => {
  const sheet = document.createElement('style');
  document.head.append(sheet);
  const button = document.querySelector('[data-testid=next-tick]');
  const counter = document.querySelector('[data-testid=tick-counter]');
  const reset = [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Reset');
  const times = variants.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [v, css] of variants.entries()) {
      sheet.textContent = css;
      reset.click();
      await new Promise((r) => setTimeout(r, 30));
      void document.body.offsetHeight;
      for (let i = 0; i < block; i++) {
        const expected = String(Number(counter.textContent) + 1);
        const start = performance.now();
        button.click();
        for (let spins = 0; counter.textContent !== expected && spins < 10000; spins++) await Promise.resolve();
        void document.body.offsetHeight;
        times[v].push(performance.now() - start);
        await new Promise((r) => setTimeout(r, 0));
      }
    }
  }
  const sorted = (xs) => [...xs].sort((a, b) => a - b);
  const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
  const middleMean = (xs) => {
    const s = sorted(xs).slice(Math.floor(xs.length / 4), Math.ceil((3 * xs.length) / 4));
    return s.reduce((a, b) => a + b, 0) / s.length;
  };
  return times.map((t, v) => `median ${median(t).toFixed(2)} ms, middle half ${middleMean(t).toFixed(3)} ms  ${variants[v] || '(the page as built)'}`);
}, [variants, Number(process.env.BLOCK ?? 20), Number(process.env.ROUNDS ?? 30)]);
await browser.close();
console.log(`Demo ${demo}, Next Tick, click to laid out:`);
for (const line of lines) console.log(`  ${line}`);
