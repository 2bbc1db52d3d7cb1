// End-to-end: no page dies when the address's `#` part changes. On every demo: press the
// skip link (the first Tab stop, which sets `#main`), change the hash by hand, go Back over
// it, then operate the demo and see it answer, with no page error.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage } from './support.mjs';

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

const tickDemo = async (page) => {
  const counter = page.getByTestId('tick-counter');
  const before = await counter.textContent();
  await page.getByTestId('next-tick').click();
  await page.waitForFunction((b) => document.querySelector('[data-testid=tick-counter]').textContent !== b, before);
};

// One action per demo whose answer shows on the page.
const operate = {
  8: async (page) => {
    await page.locator('[data-testid=amp-successes-canvas][data-render-count]').waitFor();
    await page.getByTestId('lab-control-retries').focus();
    await page.keyboard.press('Home');
    await page.waitForFunction(() => location.search.includes('retries=0'));
  },
  9: async (page) => {
    await page.getByTestId('lab-control-mode').selectOption('full');
    await page.getByTestId('jit-calls-summary').filter({ hasText: 'full jitter' }).waitFor();
  },
  10: async (page) => {
    await page.getByTestId('sandbox-send-failure').click();
    await page.getByTestId('sandbox-rates').filter({ hasText: '1 of 10' }).waitFor();
  },
  11: async (page) => {
    await page.getByTestId('lab-control-bulkhead').selectOption('semaphore');
    await page.getByTestId('pool-success-summary').filter({ hasText: 'still 100 % after it' }).waitFor();
  },
  12: async (page) => {
    await page.getByTestId('bo-pick-retry').check();
    await page.getByTestId('bo-show-answer').click();
    await page.getByTestId('bo-verdict').waitFor();
  },
  13: async (page) => {
    await page.getByTestId('lab-control-scenario').selectOption('game-day');
    await page.locator('[data-testid=saga-table] tr.current th', { hasText: 'game-day' }).waitFor();
  },
  14: async (page) => {
    await page.getByTestId('box-second').waitFor();
    const before = await page.getByTestId('box-second').textContent();
    await page.getByTestId('box-forward').click();
    await page.waitForFunction(
      (b) => document.querySelector('[data-testid=box-second]').textContent !== b,
      before, { polling: 100 });
  },
  15: async (page) => {
    await page.getByTestId('policies-pick-grpc').check();
    await page.getByTestId('policies-verdict').filter({ hasText: /^(Yes|No|gRPC)/ }).waitFor({ timeout: 60000 });
    await page.getByTestId('lab-control-yourLoad').focus();
    await page.keyboard.press('Home');
    await page.waitForFunction(() => location.search.includes('yourLoad=5'));
  },
};

for (let demo = 1; demo <= 15; demo++) {
  test(`Demo ${demo} survives the skip link and a change of the hash`, async () => {
    const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, `?demo=${demo}`);
    await page.getByTestId('demo-heading').waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.className), 'skip-link');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.hash === '#main');
    await page.evaluate(() => { location.hash = 'elsewhere'; });
    await page.waitForFunction(() => location.hash === '#elsewhere');
    await page.goBack();
    await page.waitForFunction(() => location.hash === '#main');
    await (operate[demo] ?? tickDemo)(page);
    assert.match(await page.getByTestId('demo-heading').textContent(), new RegExp(`^Demo ${demo}: `));
    assert.deepEqual(problems, [], 'no page error, no console error');
    await page.close();
  });
}
