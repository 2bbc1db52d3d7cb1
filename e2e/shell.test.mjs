// End-to-end: the built bundle loads in Chromium, renders the course shell, reacts to a
// click and a keyboard press, and logs no errors or failed requests.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launchBrowser, openPage, screenshot } from './support.mjs';

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

for (const [name, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
]) {
  test(`course shell renders on ${name} without console errors`, async () => {
    const { page, problems } = await openPage(browser, viewport, '', name === 'phone' ? 'dark' : 'light');
    const links = page.getByTestId('demo-link');
    await links.first().waitFor();
    assert.equal(await links.count(), 15, 'the list shows Demos 1-15');
    // The course's address is its front page: the path with each demo's time, the words.
    await page.getByTestId('landing').waitFor();
    assert.equal(await page.getByTestId('landing-demo').count(), 15);
    assert.match(await page.getByTestId('landing').textContent(), /about 10 min.*CallNotPermittedException/s);
    assert.equal(await links.first().getAttribute('aria-current'), null, 'no demo is open');
    // Every title in the list, on a phone too.
    assert.ok(await page.locator('.demo-list .demo-title').first().isVisible());
    // The page is no wider than the screen.
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth));
    await screenshot(page, `landing-${name}`);
    // Start: Demo 1 opens (the tick demos' part, prefetched while the front page is read).
    await page.getByTestId('landing-start').click();
    await page.getByTestId('demo-heading').filter({ hasText: /^Demo 1: / }).waitFor();
    assert.match(page.url(), /\?demo=1$/);
    assert.equal(await links.first().getAttribute('aria-current'), 'page');

    await links.nth(3).click();
    await page.getByTestId('demo-heading').filter({ hasText: 'Demo 4: Slow service, no protection' }).waitFor();
    assert.match(page.url(), /\?demo=4$/);

    // Keyboard: Tab reaches a demo link and Enter opens it; Back returns to the last one.
    await links.nth(5).focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('demo-heading').filter({ hasText: /^Demo 6: / }).waitFor();
    await page.goBack();
    await page.getByTestId('demo-heading').filter({ hasText: /^Demo 4: / }).waitFor();

    await screenshot(page, `shell-${name}`);
    assert.deepEqual(problems, [], 'no console errors or failed requests');
    await page.close();
  });
}

// Each page links one stylesheet, its part's (scripts/post-build.mjs): the rules its pages
// use and no other page's. A dialog brings the tools' own rules besides.
test('a page loads one stylesheet, its own part’s; a dialog adds the tools’ rules', async () => {
  const sheets = (page) => page.evaluate(() => [...document.querySelectorAll('link[rel=stylesheet]')]
    .map((l) => l.href.split('/').pop().replace(/-[0-9a-f]+\.css$/, '')));
  for (const [path, part] of [['', 'landing'], ['?demo=3', 'tick-demos'], ['?demo=8', 'amplification'],
    ['?demo=11', 'pool'], ['?demo=14', 'boxoffice'], ['?overview=1', 'overview']]) {
    const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, path);
    await page.locator('h1').first().waitFor();
    assert.deepEqual(await sheets(page), [part], path || '(front page)');
    if (path === '?demo=11') {
      await page.getByTestId('export-r4j').click();
      await page.getByTestId('export-r4j-text').filter({ hasText: /\S/ }).waitFor();
      assert.deepEqual(await sheets(page), ['pool', 'course-tools']);
    }
    assert.deepEqual(problems, [], path);
    await page.close();
  }
});

// dist/ is a static site to copy anywhere: served from a folder above it (a path prefix,
// no rewrites), every asset loads and the demo of the link opens.
test('the release build works under a path prefix: /dist/?demo=5', async () => {
  const { spawn } = await import('node:child_process');
  const root = new URL('..', import.meta.url).pathname;
  const server = spawn(process.execPath, [new URL('../scripts/serve-dist.mjs', import.meta.url).pathname, root, '0']);
  try {
    const port = await new Promise((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (d) => {
        out += d;
        const m = out.match(/serving http:\/\/127\.0\.0\.1:(\d+)\//);
        if (m) resolve(m[1]);
      });
      server.on('exit', () => reject(new Error(`the server stopped: ${out}`)));
    });
    const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, `http://127.0.0.1:${port}/dist/?demo=5`);
    await page.getByTestId('demo-heading').waitFor();
    assert.match(await page.getByTestId('demo-heading').textContent(), /^Demo 5: /);
    await page.getByTestId('demo-link').nth(11).click();
    await page.waitForFunction(() => location.pathname === '/dist/' && location.search.startsWith('?demo=12'));
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    server.kill();
  }
});

// The site runs under its own strict Content-Security-Policy (index.html): no inline script
// or style, no eval but wasm's, nothing from another origin. Every demo is opened and
// every violation the browser reports is collected.
test('every demo runs under the strict CSP with no violation and no third-party request', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.addInitScript(() => {
    window.violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const origins = new Set();
  page.on('request', (req) => origins.add(new URL(req.url()).origin));
  const problems = [];
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(msg.text()); });
  page.on('pageerror', (err) => problems.push(err.message));
  const base = new URL(process.env.BASE_URL ?? 'http://127.0.0.1:8080/');
  for (let demo = 1; demo <= 13; demo++) {
    await page.goto(new URL(`?demo=${demo}`, base).href);
    await page.getByTestId('demo-heading').filter({ hasText: new RegExp(`^Demo ${demo}: `) }).waitFor();
    await page.waitForTimeout(150); // charts draw in an effect after the first paint
    const csp = await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content);
    assert.match(csp, /default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'/);
    assert.deepEqual(await page.evaluate(() => window.violations), [], `Demo ${demo}`);
  }
  assert.deepEqual([...origins], [base.origin], 'every request goes to the site itself');
  assert.deepEqual(problems, []);
  await page.close();
});

// start.js picks the part from the address before the app reads it: both decode it alike,
// so a link spelled with escapes opens the demo it names, with everything it asked for,
// and no reload (a reload used to drop every parameter but the demo).
test('a link written with escapes opens its demo with its parameters, in one load', async () => {
  for (const [query, heading, [testid, attribute, expected]] of [
    ['?demo=%31%34&scenario=retry-storm', /^Demo 14: /, ['lab-control-scenario', 'value', 'retry-storm']],
    ['?d%65mo=9&mode=full&seed=7', /^Demo 9: /, ['lab-control-mode', 'value', 'full']],
    ['?demo=%2B12&fixes=2', /^Demo 12: /, ['bo-step-2', 'aria-pressed', 'true']],
  ]) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems = [];
    page.on('pageerror', (err) => problems.push(err.message));
    let loads = 0;
    page.on('request', (req) => { if (req.isNavigationRequest() && req.frame() === page.mainFrame()) loads += 1; });
    await page.goto(new URL(query, BASE_URL).href);
    await page.getByTestId('demo-heading').waitFor();
    assert.match(await page.getByTestId('demo-heading').textContent(), heading, query);
    const read = page.getByTestId(testid);
    const value = attribute === 'value' ? await read.inputValue() : await read.getAttribute(attribute);
    assert.equal(value, expected, query);
    assert.equal(loads, 1, `${query}: one load, no reload`);
    assert.deepEqual(problems, []);
    await page.close();
  }
  // The overview flag written with an escape is the overview, as the app reads it.
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?overview=%31&demo=3');
  await page.waitForFunction(() => document.title.startsWith('Course overview for teachers'));
  assert.deepEqual(problems, []);
  await page.close();
});
