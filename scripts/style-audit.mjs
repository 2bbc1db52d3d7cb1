// Whether two builds draw the same pages: the computed style of every element, in page
// states that cover every demo, the dialogs, the overview, embeds and bad links, at
// 1280 px in light mode and 390 px in dark mode (reduced motion). Prints each element whose
// style differs (heights aside: they follow charts and text that differ between two runs
// of one build). Used to check that moving rules between stylesheets changes nothing. Not
// part of the test command (about 6 minutes); run it against two built and served dist/s:
//
//   node scripts/serve-dist.mjs dist-before 8201 & node scripts/serve-dist.mjs dist 8202 &
//   node scripts/style-audit.mjs http://127.0.0.1:8201/ http://127.0.0.1:8202/
import { launchBrowser } from '../e2e/support.mjs';

const [beforeUrl, afterUrl] = process.argv.slice(2);
if (!beforeUrl || !afterUrl) {
  console.error('usage: node scripts/style-audit.mjs BEFORE_URL AFTER_URL');
  process.exit(2);
}
const PROPS = ['display', 'position', 'top', 'left', 'right', 'bottom', 'z-index', 'float',
  'margin-top', 'margin-right', 'margin-bottom', 'margin-left', 'padding-top', 'padding-right',
  'padding-bottom', 'padding-left', 'border-top-width', 'border-top-style', 'border-top-color',
  'border-left-width', 'border-left-style', 'border-left-color', 'border-bottom-width',
  'border-bottom-style', 'border-right-width', 'border-top-left-radius', 'color',
  'background-color', 'background-image', 'font-family', 'font-size', 'font-weight',
  'font-style', 'line-height', 'text-align', 'text-decoration-line', 'text-transform',
  'white-space', 'overflow-x', 'overflow-y', 'overflow-wrap', 'visibility', 'opacity', 'width',
  'min-width', 'max-width', 'height', 'min-height', 'max-height', 'grid-template-columns', 'gap',
  'row-gap', 'column-gap', 'flex-wrap', 'justify-content', 'align-items', 'align-content',
  'list-style-type', 'fill', 'stroke', 'stroke-width', 'cursor', 'outline-style', 'box-shadow',
  'order', 'content-visibility', 'contain', 'scroll-margin-top', 'accent-color', 'counter-reset',
  'vertical-align', 'letter-spacing', 'clip-path', 'marker-end', 'border-collapse',
  'transition-duration'];
const HEIGHT = PROPS.indexOf('height');

const states = [['front', '']];
for (let d = 1; d <= 15; d++) states.push([`demo ${d}`, `?demo=${d}`]);
for (const d of [1, 3, 5, 7]) {
  states.push([`demo ${d} after 14 ticks, compared, settings open`, `?demo=${d}`, async (p) => {
    for (let i = 0; i < 14; i++) await p.getByTestId('next-tick').click();
    await p.getByTestId('compare-open').click();
    await p.locator('details.settings').evaluate((e) => { e.open = true; });
    await p.waitForTimeout(300);
  }]);
}
const opened = (testid) => async (p) => {
  await p.getByTestId(testid).click();
  await p.waitForTimeout(1500);
};
states.push(['demo 3, config dialog', '?demo=3', opened('export-r4j')]);
states.push(['demo 10, config dialog', '?demo=10', opened('export-r4j')]);
states.push(['demo 11, embed dialog', '?demo=11', opened('embed-open')]);
states.push(['overview', '?overview=1']);
states.push(['demo 5 embedded', '?demo=5&embed=1']);
states.push(['demo 12 embedded', '?demo=12&embed=1']);
states.push(['demo 3, a bad link', '?demo=3&foo=bar&slowTimeoutMs=abc']);
states.push(['demo 12, a bad link', '?demo=12&queue=abc']);

const browser = await launchBrowser();
async function styles(base, [, path, act], [width, height, scheme]) {
  const page = await browser.newPage({ viewport: { width, height }, reducedMotion: 'reduce', colorScheme: scheme });
  await page.goto(new URL(path, base).href);
  await page.locator('h1').first().waitFor({ timeout: 15000 }).catch(() => {});
  await page.waitForTimeout(2500);
  if (act) await act(page);
  const out = await page.evaluate((props) => [...document.querySelectorAll('body *')].map((e) => {
    const cs = getComputedStyle(e);
    return [`${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${[...e.classList].map((c) => `.${c}`).join('')}`,
      props.map((p) => cs.getPropertyValue(p))];
  }), PROPS);
  await page.close();
  return out;
}
let differing = 0;
for (const screen of [[1280, 800, 'light'], [390, 844, 'dark']]) {
  for (const state of states) {
    const [a, b] = [await styles(beforeUrl, state, screen), await styles(afterUrl, state, screen)];
    const where = `${state[0]} (${screen[0]} px, ${screen[2]})`;
    if (a.length !== b.length) {
      console.log(`${where}: ${a.length} elements before, ${b.length} after`);
      differing++;
      continue;
    }
    a.forEach(([name, values], i) => {
      const [nameAfter, after] = b[i];
      const changed = values.map((v, k) => (k !== HEIGHT && v !== after[k] ? `${PROPS[k]}: ${v} -> ${after[k]}` : null)).filter(Boolean);
      if (name !== nameAfter || changed.length) {
        differing++;
        console.log(`${where}: ${name}${name !== nameAfter ? ` / ${nameAfter}` : ''} ${changed.slice(0, 4).join('; ')}`);
      }
    });
  }
}
await browser.close();
console.log(`${states.length * 2} page states, ${differing} elements differ`);
process.exit(differing ? 1 : 0);
