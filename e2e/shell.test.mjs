// End-to-end: the built bundle loads in Chromium, renders the course shell, reacts to a
// click and a keyboard press, and logs no errors or failed requests.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, screenshot } from './support.mjs';

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

for (const [name, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
]) {
  test(`course shell renders on ${name} without console errors`, async () => {
    const { page, problems } = await openPage(browser, viewport);
    const links = page.getByTestId('demo-link');
    await links.first().waitFor();
    assert.equal(await links.count(), 13, 'the list shows Demos 1-13');
    assert.match(await page.getByTestId('demo-heading').textContent(), /^Demo 1: /);

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
