// End-to-end: Demo 14, the BoxOffice playground, walked as a learner would: a scenario
// and its protections, a prediction checked against the run, the clock played and
// scrubbed, every protection compared on the same seed; a link that opens a variant; the
// same on a phone in dark mode. Screenshots at both sizes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launchBrowser, openControls, openPage, screenshot } from './support.mjs';

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

// The run is made in slices after the page opens: its status says when it is in.
const ran = (page) => page.getByTestId('box-status').filter({ hasText: / s simulated, \d+ events\./ }).waitFor({ timeout: 30000 });

test('Demo 14: the cascading failure takes holds and catalog down; the bulkhead keeps them in time', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=14');
  await ran(page);
  // The page opens a few seconds into the incident: every thread waits on payment.
  assert.match(await page.getByTestId('box-second').textContent(), /^Second 23 of 60/);
  const system = page.getByTestId('box-system');
  assert.match(await system.textContent(), /200 of 200 threads busy200 on payment/);
  // Requests move along the edges as dots, and each edge says how many a second.
  assert.ok(await page.locator('.box-dots .box-dot:not(.idle)').count() > 0, 'dots');
  // A dot runs along an edge as the drawing has it: stopped at the start and half way
  // through its lap, it sits on the edge's start and on its middle (by the browser's own
  // measure of the path), whatever the drawing's size.
  const along = await page.evaluate(() => {
    const dot = document.querySelector('.box-dots .box-dot:not(.idle)');
    const [motion] = dot.getAnimations();
    const running = motion.playState === 'running' && motion.effect.getTiming().iterations === Infinity;
    const centre = () => { const r = dot.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; };
    const onScreen = (path, at) => { const p = path.getPointAtLength(at).matrixTransform(path.getScreenCTM()); return [p.x, p.y]; };
    const apart = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1]);
    motion.pause();
    motion.currentTime = 0;
    const start = centre();
    const paths = [...document.querySelectorAll('[data-testid=box-system] .box-edge')];
    const edge = paths.reduce((best, p) => (apart(onScreen(p, 0), start) < apart(onScreen(best, 0), start) ? p : best));
    motion.currentTime = motion.effect.getTiming().duration / 2;
    const middle = centre();
    return { running, start: apart(onScreen(edge, 0), start), middle: apart(onScreen(edge, edge.getTotalLength() / 2), middle) };
  });
  assert.ok(along.running, 'the dot moves for ever');
  assert.ok(along.start < 1.5 && along.middle < 2, JSON.stringify(along));
  // A dot's motion ends with it: after the seconds shown change, only the dots (and the
  // empty slots for them) on the page move.
  for (const s of ['5', '30', '12', '50', '23']) await page.getByTestId('box-scrubber').fill(s);
  await page.getByTestId('box-second').filter({ hasText: /^Second 23 of/ }).waitFor();
  const motions = await page.evaluate(() => {
    const moving = document.getAnimations().filter((a) => a.effect?.target?.classList?.contains('box-dot'));
    return [moving.length, moving.filter((a) => a.effect.target.isConnected).length, document.querySelectorAll('.box-dots .box-dot').length];
  });
  assert.ok(motions[2] > 0 && motions[0] === motions[2] && motions[1] === motions[2], `${motions[0]} dot animations (${motions[1]} on the page) for ${motions[2]} dots`);
  assert.match(await system.locator('.box-counts').textContent(), /\d+\/s/);
  assert.equal(await system.locator('[data-component=replicas] .cell-payment').count(), 50, 'every cell waits on payment');
  // Predict, then check against the run.
  await page.getByTestId('box-predict-option').nth(0).check();
  await page.getByTestId('box-check').click();
  assert.match(await page.getByTestId('box-verdict').textContent(), /Not this time\..*They fail too/);
  // The bulkhead: at most 50 threads on payment, and the answer changes with the run.
  await page.locator('[data-testid=box-variant][value=bulkhead]').check();
  await page.waitForFunction(() => location.search.includes('variant=bulkhead'));
  await ran(page);
  assert.match(await system.textContent(), /of 200 threads busy50 on payment/);
  assert.match(await system.textContent(), /payment bulkhead 50 of 50/);
  assert.equal(await system.locator('[data-component=replicas] .cell-payment').count(), 13, '50 threads of 200: 13 cells of 4');
  assert.equal(await page.getByTestId('box-verdict').textContent(), '', 'a new protection asks again');
  await page.getByTestId('box-predict-option').nth(0).check();
  await page.getByTestId('box-check').click();
  assert.match(await page.getByTestId('box-verdict').textContent(), /^Yes\./);
  // The clock: one second on, one back, the scrubber.
  await page.getByTestId('box-forward').click();
  assert.match(await page.getByTestId('box-second').textContent(), /^Second 24 /);
  await page.getByTestId('box-scrubber').fill('5');
  assert.match(await page.getByTestId('box-second').textContent(), /^Second 5 /);
  await page.getByTestId('box-play').click();
  await page.waitForFunction(() => /^Second (7|8|9|\d\d) /.test(document.querySelector('[data-testid=box-second]').textContent));
  await page.getByTestId('box-play').click();
  assert.equal(await page.getByTestId('box-play').getAttribute('aria-pressed'), 'false');
  // Every protection on the same seed.
  await page.getByTestId('box-compare').click();
  const rows = page.getByTestId('box-compare-table').locator('tbody tr');
  await rows.nth(2).waitFor({ timeout: 30000 });
  assert.equal(await rows.count(), 3);
  assert.match(await rows.nth(2).textContent(), /The seed's bulkhead of 50/);
  // The charts were drawn and say what they show.
  for (const id of ['box-classes', 'box-outcomes']) {
    assert.ok(Number(await page.getByTestId(id).locator('canvas').getAttribute('data-render-count')) >= 1, id);
  }
  await screenshot(page, 'demo-14-desktop');
  assert.deepEqual(problems, []);
  await page.close();
});

test('Demo 14: a link opens the retry storm with a breaker; on a phone in dark mode the controls are a sheet', async () => {
  const { page, problems } = await openPage(browser, { width: 390, height: 844 }, '?demo=14&scenario=retry-storm&variant=breaker', 'dark');
  await ran(page);
  assert.match(await page.getByTestId('box-second').textContent(), /^Second 23 of 120/);
  assert.match(await page.getByTestId('box-system').textContent(), /payment breaker (OPEN|HALF_OPEN|CLOSED)/);
  await openControls(page);
  assert.equal(await page.locator('[data-testid=box-variant][value=breaker]').isChecked(), true);
  // Another scenario opens on its first protection.
  await page.getByTestId('lab-control-scenario').selectOption('flash-sale');
  await page.waitForFunction(() => location.search.includes('scenario=flash-sale') && location.search.includes('variant=no-shedding'));
  await ran(page);
  assert.match(await page.getByTestId('box-second').textContent(), /of 360:/);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `no sideways scroll on a phone (${width} px)`);
  // The diagram scrolls instead: a sentence says so, and only where it does.
  const diagram = page.locator('.box-diagram-scroll');
  const [scrollWidth, clientWidth] = await diagram.evaluate((e) => [e.scrollWidth, e.clientWidth]);
  assert.ok(scrollWidth > clientWidth, `the diagram scrolls sideways (${scrollWidth} in ${clientWidth} px)`);
  assert.equal(await page.locator('.box-scroll-hint').isVisible(), true, 'the phone is told to scroll the diagram');
  await page.setViewportSize({ width: 1280, height: 800 });
  assert.equal(await page.locator('.box-scroll-hint').isVisible(), false, 'no such sentence where the diagram fits');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'demo-14-phone-dark');
  assert.deepEqual(problems, []);
  await page.close();
});

test('Demo 14: a variant of another scenario in the link is refused with a message', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=14&scenario=flash-sale&variant=breaker');
  await ran(page);
  assert.match(await page.locator('body').textContent(), /Flash sale has no variant “breaker”/);
  assert.equal(await page.locator('[data-testid=box-variant][value=no-shedding]').isChecked(), true);
  assert.deepEqual(problems, []);
  await page.close();
});

test('Demo 14: with reduced motion the dots give way to the counts', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=14&scenario=flash-sale&variant=priority-shedding');
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await ran(page);
  const system = page.getByTestId('box-system');
  assert.equal(await page.locator('.box-dots').isVisible(), false, 'no motion');
  assert.ok(await system.locator('.box-counts text').count() > 0);
  assert.match(await system.locator('[data-component=door]').textContent(), /× 429, \d+ × 503/);
  assert.deepEqual(problems, []);
  await page.close();
});

// Waits until the diagram draws `n` replicas (a run after a change is made in slices).
// Polled by time, not by animation frame: a page the browser does not show draws no frames.
const replicas = (page, n) => page.waitForFunction(
  (n) => document.querySelectorAll('[data-testid=box-system] [data-component=replicas]').length === n, n, { timeout: 30000, polling: 100 });

test('Demo 14: the learner changes the system by keyboard and by mouse; the link and the file carry it', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=14');
  await ran(page);
  const system = page.getByTestId('box-system');
  // By keyboard: a bulkhead around payment (Resilience4j's default, 25 permits).
  const bulkhead = page.locator('#box-layer-0-bulkhead');
  await bulkhead.focus();
  await page.keyboard.press('Space');
  await page.waitForFunction(() => location.search.includes('edits='));
  await system.filter({ hasText: /payment bulkhead 25 of 25/ }).waitFor({ timeout: 30000 });
  assert.match(await page.getByTestId('box-edit-summary').textContent(), /Your own system/);
  // The list was drawn again; the focus is back on the checkbox, now checked.
  await page.waitForFunction(() => document.activeElement?.id === 'box-layer-0-bulkhead');
  assert.equal(await bulkhead.isChecked(), true);
  // A number: two replicas.
  await page.locator('input[data-path="replicas.count"]').fill('2');
  await page.locator('input[data-path="replicas.count"]').dispatchEvent('change');
  await replicas(page, 2);
  // A value the engine refuses is said, and the system stays as it was.
  await page.locator('input[data-path="replicas.count"]').fill('500');
  await page.locator('input[data-path="replicas.count"]').dispatchEvent('change');
  await page.getByTestId('box-edit-note').filter({ hasText: /between 1 and 64/ }).waitFor();
  assert.equal(await system.locator('[data-component=replicas]').count(), 2);
  // By mouse: a box of the diagram brings its entry.
  await system.locator('[data-component=dependency]').click();
  await page.waitForFunction(() => document.activeElement?.id === 'box-edit-dependency-0');
  // The address follows the system (written when the page is idle).
  await page.waitForFunction(() => decodeURIComponent(location.search).includes('"count":2'), null, { polling: 100 });
  const link = await page.evaluate(() => location.search);
  // The file: what the CLI runs.
  const href = await page.getByTestId('box-download').getAttribute('href');
  const file = decodeURIComponent(href.slice(href.indexOf(',') + 1));
  assert.equal(JSON.parse(file).replicas.count, 2);
  assert.match(await page.getByTestId('box-command').textContent(), /--file cascading-failure-mine\.json --seed 1$/);
  // Import it into another scenario: the same system runs there.
  await page.getByTestId('lab-control-scenario').selectOption('retry-storm');
  await page.getByTestId('box-edit-summary').filter({ hasText: /scenario's own system/ }).waitFor();
  await replicas(page, 1);
  await page.getByTestId('box-import').setInputFiles({ name: 'mine.json', mimeType: 'application/json', buffer: Buffer.from(file) });
  await replicas(page, 2);
  await system.filter({ hasText: /payment bulkhead \d+ of 25/ }).waitFor({ timeout: 30000 });
  // A broken file is refused on one line; the system stays.
  await page.getByTestId('box-import').setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"version": 2') });
  await page.getByTestId('box-edit-note').filter({ hasText: /^Not imported: / }).waitFor();
  assert.equal(await system.locator('[data-component=replicas]').count(), 2);
  // A shipped file carries variants: the page runs the file's system and says they are not used.
  const shipped = readFileSync(new URL('../assets/boxoffice/cascading-failure.json', import.meta.url));
  await page.getByTestId('box-import').setInputFiles({ name: 'cascading-failure.json', mimeType: 'application/json', buffer: shipped });
  await page.getByTestId('box-edit-note').filter({ hasText: /^Imported the file's system as written\. Its variants \(.*bulkhead.*\) are not used here/ }).waitFor();
  await page.getByTestId('box-back-to-scenario').click();
  await replicas(page, 1);
  await screenshot(page, 'demo-14-edit');
  assert.deepEqual(problems, []);
  await page.close();
  // The link opens the same system (a page of its own: a background page's timers are slowed).
  const again = await openPage(browser, { width: 1280, height: 800 }, link);
  await replicas(again.page, 2);
  assert.equal(await again.page.locator('#box-layer-0-bulkhead').isChecked(), true);
  assert.deepEqual(again.problems, []);
  await again.page.close();
});

// Drags a box of the diagram onto another with the mouse, by way of a point past its edge
// (so the line that follows the pointer shows), and returns the line's count on the way.
async function drag(page, from, to) {
  await page.getByTestId('box-system').scrollIntoViewIfNeeded();
  const a = await from.locator('.box-frame').boundingBox();
  const b = await to.locator('.box-frame').boundingBox();
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width + 25, a.y + a.height / 2, { steps: 5 });
  const lines = await page.locator('[data-testid=box-system] .box-draft[d]').count();
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 8 });
  await page.mouse.up();
  return lines;
}

test('Demo 14: a client dragged onto a dependency connects the endpoint its users call', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=14');
  await ran(page);
  const system = page.getByTestId('box-system');
  const note = page.getByTestId('box-drag-note');
  const holds = system.locator('[data-component=clients]').filter({ hasText: 'holds' });
  const payment = system.locator('[data-component=dependency]').filter({ hasText: 'payment' });
  // In the list: payment is called by purchase (endpoints in name order: catalog, hold,
  // purchase), not by hold.
  assert.equal(await page.locator('#box-call-0-1').isChecked(), false);
  assert.equal(await drag(page, holds, payment), 1, 'a line follows the pointer');
  assert.equal(await system.locator('.box-draft[d]').count(), 0, 'and goes when the button is up');
  assert.match(await note.textContent(), /^hold now calls payment: the run is made again\.$/);
  await page.waitForFunction(() => location.search.includes('edits='));
  await ran(page);
  assert.equal(await page.locator('#box-call-0-1').isChecked(), true);
  assert.match(await page.getByTestId('box-edit-summary').textContent(), /Your own system/);
  // Again: nothing to do, and the page says why.
  await drag(page, holds, payment);
  assert.equal(await note.textContent(), 'hold already calls payment.');
  // A replica serves three endpoints: which one calls payment is the learner's to say.
  await drag(page, system.locator('[data-component=replicas]').first(), payment);
  assert.match(await note.textContent(), /^A replica serves catalog, hold, purchase: drag from the clients/);
  // Dropped on nothing: nothing changes.
  await drag(page, holds, system.locator('[data-component=door]'));
  assert.equal(await note.textContent(), 'Drop it on a dependency to connect them.');
  // A click on a box is still a click: its entry in the list.
  await payment.click();
  await page.waitForFunction(() => document.activeElement?.id === 'box-edit-dependency-0');
  await screenshot(page, 'demo-14-drag');
  assert.deepEqual(problems, []);
  await page.close();
});

test('Demo 14: the learner adds a fault to the timeline, moves it, and the run follows', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=14');
  await ran(page);
  const entries = page.locator('[data-testid=box-timeline] > li');
  const before = await entries.count();
  // By keyboard: choose what happens, then add it.
  await page.getByTestId('box-new-action').selectOption({ label: 'a dependency refuses connections' });
  await page.getByTestId('box-add-entry').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=box-timeline] > li').length === n + 1, before, { polling: 100 });
  const added = entries.nth(before);
  assert.match(await added.textContent(), /a dependency refuses connections \(payment\)/);
  // The focus stays on the add button across the redraw.
  await page.waitForFunction(() => document.activeElement?.id === 'box-new-action' || document.activeElement?.dataset.testid === 'box-add-entry');
  // Moved to 5 s: payment is down from then on, in the diagram.
  const at = page.locator(`input[data-path="timeline.${before}.atS"]`);
  await at.fill('5');
  await at.dispatchEvent('change');
  await entries.nth(before).filter({ hasText: /^At 5 s: / }).waitFor();
  await page.getByTestId('box-scrubber').fill('8');
  await page.getByTestId('box-system').filter({ hasText: /payment \(down\)/ }).waitFor({ timeout: 30000 });
  // The address carries the timeline.
  await page.waitForFunction(() => decodeURIComponent(location.search).includes('"timeline"'), null, { polling: 100 });
  // Removed: the scenario's own system again.
  await entries.nth(before).getByTestId('box-remove-entry').click();
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=box-timeline] > li').length === n, before, { polling: 100 });
  await page.getByTestId('box-edit-summary').filter({ hasText: /scenario's own system/ }).waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});
