// End-to-end: a demo on a teacher's course page. The course page is served from another
// origin (http://localhost:PORT, while the playground is on 127.0.0.1) and frames the
// playground, as an LMS would; then the page tools: the embed dialog, the Resilience4j config out and in, and the
// teachers' overview.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { launchBrowser, openPage, screenshot, BASE_URL } from './support.mjs';

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

// A course page at http://localhost:PORT/lesson.html (another origin than the
// playground's 127.0.0.1) with `body` as its content, recording every message it receives.
async function coursePage(body) {
  const html = `<!DOCTYPE html><html><head><title>Week 3</title>
    <script>window.messages = []; addEventListener('message', (e) => messages.push({ origin: e.origin, data: e.data }));</script>
    </head><body><h1>Week 3: resilience</h1>${body}</body></html>`;
  const server = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  page.on('close', () => server.close());
  const problems = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console: ${msg.text()}`); });
  await page.goto(`http://localhost:${server.address().port}/lesson.html`);
  return { page, problems };
}

test('an embedded demo: no course navigation, its height posted, Next Tick works in the frame', async () => {
  const { page, problems } = await coursePage(
    `<iframe src="${BASE_URL}?demo=5&embed=1" width="700" height="300" title="Demo 5"></iframe>`);
  const frame = page.frameLocator('iframe');
  await frame.getByTestId('demo-heading').waitFor();
  assert.equal(await frame.getByTestId('course-nav').count(), 0, 'no course navigation in embed mode');
  assert.equal(await frame.getByTestId('next-demo').count(), 0, 'no pager');
  assert.equal(await frame.locator('.site-header').count(), 0, 'no site header');
  const full = frame.getByTestId('open-full-course');
  assert.equal(await full.getAttribute('target'), '_blank');
  // A link that can be copied or middle-clicked: its demo before anything is pressed.
  assert.equal(await full.getAttribute('href'), '?demo=5');

  await page.waitForFunction(() => messages.some((m) => m.data?.type === 'resilience-playground:resize'));
  const posted = await page.evaluate(() => messages.map((m) => m.data));
  const ours = posted.find((d) => d.type === 'resilience-playground:resize');
  assert.equal(ours.demo, 5);
  assert.ok(ours.height > 300, `the demo is taller than its 300 px frame: ${ours.height}`);
  const canvas = posted.find((d) => d.subject === 'lti.frameResize');
  assert.ok(canvas && canvas.height === ours.height, 'the Canvas LMS message carries the same height');

  await frame.getByTestId('next-tick').click();
  await frame.getByTestId('tick-counter').filter({ hasText: /^1$/ }).waitFor();
  // The address inside the frame keeps embed mode.
  const src = await page.frames()[1].evaluate(() => location.search);
  assert.match(src, /embed=1/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('embed.js turns a placeholder into a frame as tall as the demo', async () => {
  const { page, problems } = await coursePage(
    `<div data-resilience-demo="5" data-resilience-query="t=3"></div><script src="${BASE_URL}embed.js" async></script>`);
  const frame = page.locator('[data-resilience-demo] iframe');
  await frame.waitFor();
  assert.match(await frame.getAttribute('src'), /\?demo=5&t=3&embed=1$/);
  await page.frameLocator('[data-resilience-demo] iframe').getByTestId('tick-counter').filter({ hasText: /^3$/ }).waitFor();
  await page.waitForFunction(() => {
    const f = document.querySelector('[data-resilience-demo] iframe');
    return f && f.style.height !== '640px';
  });
  const height = await frame.evaluate((f) => parseFloat(f.style.height));
  const posted = await page.evaluate(() => messages.filter((m) => m.data?.type === 'resilience-playground:resize').at(-1).data.height);
  assert.equal(height, Math.ceil(posted), 'the frame takes the height the demo posted');
  // The whole demo fits: the frame does not scroll.
  const inner = await page.frames()[1].evaluate(() => document.documentElement.scrollHeight);
  assert.ok(Math.abs(inner - height) <= 2, `frame ${height} px, content ${inner} px`);
  // Tall enough for the whole frame: Chromium paints a cross-origin frame only near the
  // viewport, so a full-page screenshot of a short viewport shows it cut.
  await page.setViewportSize({ width: 700, height: 2600 });
  await page.waitForTimeout(300);
  await screenshot(page, 'embed-demo-5-700px');
  assert.deepEqual(problems, []);
  await page.close();
});

test('an embedded lab at 700 px: its controls come before its charts', async () => {
  const { page, problems } = await coursePage(
    `<div data-resilience-demo="12"></div><script src="${BASE_URL}embed.js" async></script>`);
  await page.setViewportSize({ width: 700, height: 2600 });
  const frame = page.frameLocator('[data-resilience-demo] iframe');
  await frame.locator('.lab-controls').waitFor();
  assert.equal(await frame.getByTestId('course-nav').count(), 0);
  const controls = await frame.locator('.lab-controls').boundingBox();
  const figures = await frame.locator('.figures').boundingBox();
  assert.ok(controls.y < figures.y, `controls at ${controls.y}, figures at ${figures.y}`);
  await page.waitForFunction(() => document.querySelector('[data-resilience-demo] iframe').style.height !== '640px');
  await page.waitForTimeout(300);
  await screenshot(page, 'embed-demo-12-700px');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the embed dialog gives both snippets, with the state when asked, and works from the keyboard', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=5&t=3');
  const open = page.getByTestId('embed-open');
  await open.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByTestId('embed-dialog');
  await dialog.waitFor({ state: 'visible' });
  // The snippets come from the tools part, loaded when the dialog opens.
  await page.waitForFunction(() => document.querySelector('[data-testid=embed-iframe]').value !== '');
  const iframe = await page.getByTestId('embed-iframe').inputValue();
  assert.match(iframe, /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/\?demo=5&amp;embed=1" title="[^"]*Demo 5/);
  assert.match(await page.getByTestId('embed-script').inputValue(), /^<div data-resilience-demo="5"><\/div>\n<script src="http:\/\/127\.0\.0\.1:\d+\/embed\.js" async><\/script>$/);
  await page.getByTestId('embed-with-state').check();
  assert.match(await page.getByTestId('embed-iframe').inputValue(), /\?demo=5&amp;t=3&amp;embed=1"/);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'embed-open', 'focus returns to the button');
  assert.deepEqual(problems, []);
  await page.close();
});

test('Demo 5 shown as Resilience4j config: the breaker as Spring keys', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=5');
  await page.getByTestId('export-r4j').click();
  // Written by the tools part, loaded when the dialog opens.
  await page.getByTestId('export-r4j-text').filter({ hasText: 'resilience4j:' }).waitFor();
  const yaml = await page.getByTestId('export-r4j-text').textContent();
  // The spec's breaker (01-tick-model.md): window of 4, at least 4 calls, 50 %, a 3-tick
  // (3 s) wait, 2 trial calls, the automatic move to HALF_OPEN.
  assert.match(yaml, /^resilience4j:\n/);
  assert.match(yaml, /\n  circuitbreaker:\n    instances:\n      recommendations:\n/);
  for (const line of ['sliding-window-type: COUNT_BASED', 'sliding-window-size: 4', 'minimum-number-of-calls: 4',
    'failure-rate-threshold: 50', 'wait-duration-in-open-state: 3s', 'permitted-number-of-calls-in-half-open-state: 2',
    'automatic-transition-from-open-to-half-open-enabled: true']) {
    assert.ok(yaml.includes(`        ${line}\n`), `${line} in\n${yaml}`);
  }
  assert.match(await page.getByTestId('export-r4j-java').textContent(), /CircuitBreakerConfig\.custom\(\)/);
  assert.match(await page.getByTestId('export-r4j-properties').textContent(),
    /^resilience4j\.circuitbreaker\.instances\.recommendations\.sliding-window-size=4$/m);
  assert.deepEqual(problems, []);
  await page.close();
});

test('an imported fragment with a bad key is reported and changes nothing; a good one replays the run', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=5&t=3');
  await page.getByTestId('tick-counter').filter({ hasText: /^3$/ }).waitFor();
  await page.getByTestId('export-r4j').click();
  const text = page.getByTestId('import-r4j-text');
  await text.fill([
    'resilience4j:',
    '  circuitbreaker:',
    '    instances:',
    '      recommendations:',
    '        minimum-number-of-calls: 2',
    '        failure-rate-treshold: 40',
  ].join('\n'));
  await page.getByTestId('import-r4j-apply').click();
  const errors = page.getByTestId('import-r4j-errors');
  await errors.waitFor({ state: 'visible' });
  assert.match(await errors.textContent(), /failure-rate-treshold/);
  assert.equal(await errors.locator('li').count(), 1, 'one line for the one bad key');
  await page.waitForTimeout(400); // the address is written a moment after a change
  assert.doesNotMatch(page.url(), /minimumNumberOfCalls/, 'nothing applied');
  assert.equal(await page.getByTestId('setting-minimumNumberOfCalls').inputValue(), '4');

  await text.fill(['resilience4j.circuitbreaker.instances.recommendations.minimum-number-of-calls=2'].join('\n'));
  await page.getByTestId('import-r4j-apply').click();
  await page.getByTestId('r4j-status').filter({ hasText: /up to t = 3/ }).waitFor();
  assert.equal(await errors.isVisible(), false);
  await page.keyboard.press('Escape');
  assert.equal(await page.getByTestId('tick-counter').textContent(), '3', 'the learner keeps their place');
  assert.equal(await page.getByTestId('setting-minimumNumberOfCalls').inputValue(), '2');
  await page.waitForFunction(() => location.search.includes('minimumNumberOfCalls=2'));
  assert.deepEqual(problems, []);
  await page.close();
});

test('a fragment with hundreds of problems lists five and counts the rest, each on a short line', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=5');
  await page.getByTestId('export-r4j').click();
  const lines = Array.from({ length: 300 },
    (_, i) => `resilience4j.circuitbreaker.instances.recommendations.failure-rate-treshold${i}=${i}`);
  lines.push(`resilience4j.circuitbreaker.instances.recommendations.sliding-window-type=${'X'.repeat(20000)}`);
  await page.getByTestId('import-r4j-text').fill(lines.join('\n'));
  await page.getByTestId('import-r4j-apply').click();
  const errors = page.getByTestId('import-r4j-errors');
  await errors.waitFor({ state: 'visible' });
  const items = await errors.locator('li').allTextContents();
  assert.equal(items.length, 6);
  assert.equal(items[5], '… and 296 more problems like these.');
  assert.ok(items.every((item) => item.length <= 401), items.join('\n'));
  assert.deepEqual(problems, []);
  await page.close();
});

test('a paste over the reader\'s 64 KB is refused at once and leaves the box empty', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=5');
  await page.getByTestId('export-r4j').click();
  // Many tiny YAML documents: each under the limit, the whole far over it. Set as a paste
  // sets it (Playwright's fill would wait for the value to stay).
  await page.getByTestId('import-r4j-text').evaluate((area, text) => {
    area.value = text;
    area.dispatchEvent(new Event('input', { bubbles: true }));
  }, 'a.b: 1\n---\n'.repeat(20_000));
  assert.equal(await page.getByTestId('import-r4j-text').inputValue(), '');
  const errors = page.getByTestId('import-r4j-errors');
  await errors.waitFor({ state: 'visible' });
  const tooLarge = ['That text is over 64 KB, the most the reader takes (a Resilience4j fragment is far smaller).'];
  assert.deepEqual(await errors.locator('li').allTextContents(), tooLarge);
  // "Read and apply" on the emptied box says why again, not "no settings found".
  await page.getByTestId('import-r4j-apply').click();
  assert.deepEqual(await errors.locator('li').allTextContents(), tooLarge);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a file whose instances are named for its own services: the learner chooses the one the demo plays', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=5&t=2');
  await page.getByTestId('tick-counter').filter({ hasText: /^2$/ }).waitFor();
  await page.getByTestId('export-r4j').click();
  await page.getByTestId('import-r4j-text').fill([
    'resilience4j:',
    '  circuitbreaker:',
    '    configs:',
    '      default:',
    '        minimum-number-of-calls: 10',
    '        wait-duration-in-open-state: 30s',
    '    instances:',
    '      erpCircuitBreaker:',
    '        base-config: default',
    '        sliding-window-size: 50',
    '      paymentsCircuitBreaker:',
    '        base-config: default',
    '        sliding-window-size: 20',
    '        failure-rate-threshold: 30',
    '  ratelimiter:',
    '    instances:',
    '      payment-api:',
    '        limit-for-period: 100',
  ].join('\n'));
  await page.getByTestId('import-r4j-apply').click();
  const errors = page.getByTestId('import-r4j-errors');
  await errors.waitFor({ state: 'visible' });
  assert.match(await errors.textContent(), /2 instances \(erpCircuitBreaker, paymentsCircuitBreaker\)/);
  const choice = page.getByTestId('import-r4j-instance');
  await choice.waitFor({ state: 'visible' });
  assert.deepEqual(await choice.locator('option').allTextContents(), ['erpCircuitBreaker', 'paymentsCircuitBreaker']);
  await choice.selectOption('paymentsCircuitBreaker');
  await page.getByTestId('import-r4j-apply').click();
  await page.getByTestId('r4j-status').filter({ hasText: /^Applied/ }).waitFor();
  assert.match(await page.getByTestId('r4j-status').textContent(), /plays the instances named paymentsCircuitBreaker/);
  // The rate limiter is read, and said to be of no use here; where each value came from.
  const status = await page.getByTestId('r4j-status').textContent();
  assert.match(status, /rate limiter `payment-api` is read and checked but not used: the tick model has no rate limiter/);
  assert.match(status, /paymentsCircuitBreaker: failure-rate-threshold, sliding-window-size set in the instance; minimum-number-of-calls, wait-duration-in-open-state from configs\.default; every other value is Resilience4j's default/);
  await page.keyboard.press('Escape');
  assert.equal(await page.getByTestId('setting-slidingWindowSize').inputValue(), '20');
  assert.equal(await page.getByTestId('setting-minimumNumberOfCalls').inputValue(), '10');
  assert.equal(await page.getByTestId('tick-counter').textContent(), '2', 'the learner keeps their place');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the breaker sandbox takes a pasted fragment: its controls and link follow', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=10');
  await page.getByTestId('export-r4j').click();
  await page.getByTestId('export-r4j-text').filter({ hasText: 'dependency:' }).waitFor();
  assert.match(await page.getByTestId('export-r4j-text').textContent(), /\n      dependency:\n/);
  await page.getByTestId('import-r4j-text').fill([
    'resilience4j.circuitbreaker:',
    '  instances:',
    '    dependency:',
    '      sliding-window-size: 7',
    '      minimum-number-of-calls: 5',
    '      wait-duration-in-open-state: 20s',
  ].join('\n'));
  await page.getByTestId('import-r4j-apply').click();
  await page.getByTestId('r4j-status').filter({ hasText: /^Applied/ }).waitFor();
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => location.search.includes('slidingWindowSize=7')
    && location.search.includes('minimumNumberOfCalls=5') && location.search.includes('waitDurationInOpenState=20'));
  assert.deepEqual(problems, []);
  await page.close();
});

test('teachers: notes under each demo, and every demo on one printable overview', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=12');
  const notes = page.getByTestId('teacher-notes');
  await notes.locator('summary').click();
  // Loaded with the tools part the first time the notes are unfolded.
  await notes.filter({ hasText: 'Expected answer' }).waitFor();
  await page.getByTestId('overview-link').click();
  await page.getByTestId('overview-demo').first().waitFor();
  assert.equal(await page.getByTestId('overview-demo').count(), 15);
  assert.match(await page.title(), /overview/i);
  await screenshot(page, 'teacher-overview');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a file with a document for a Spring profile: the learner chooses the profile, and the link keeps what it set', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=5');
  await page.getByTestId('tick-counter').waitFor();
  await page.getByTestId('export-r4j').click();
  await page.getByTestId('import-r4j-text').fill([
    'resilience4j.circuitbreaker.instances.recommendations:',
    '  failure-rate-threshold: 50',
    '  record-exceptions: java.io.IOException',
    '---',
    'spring.config.activate.on-profile: prod',
    'resilience4j.circuitbreaker.instances.recommendations.failure-rate-threshold: 30',
  ].join('\n'));
  await page.getByTestId('import-r4j-apply').click();
  const status = page.getByTestId('r4j-status');
  await status.filter({ hasText: /^Applied/ }).waitFor();
  assert.match(await status.textContent(), /documents for the profiles prod: choose one above/);
  const profile = page.getByTestId('import-r4j-profile');
  await profile.waitFor({ state: 'visible' });
  await profile.selectOption('prod');
  await page.getByTestId('import-r4j-apply').click();
  await status.filter({ hasText: /Read with the profile prod/ }).waitFor();
  await page.keyboard.press('Escape');
  assert.equal(await page.getByTestId('setting-failureRateThreshold').inputValue(), '30');
  // The link holds the profile's threshold and the imported exception list: a reload plays them.
  await page.waitForFunction(() => location.search.includes('failureRateThreshold=30') && location.search.includes('recordExceptions=IOException'), null, { polling: 100 });
  await page.reload();
  await page.getByTestId('tick-counter').waitFor();
  assert.equal(await page.getByTestId('setting-failureRateThreshold').inputValue(), '30');
  assert.deepEqual(problems, []);
  await page.close();
});
