// End-to-end: Demo 15, the retry policies real clients ship. The page makes the spec's two
// experiments in slices and shows the spec's figures (../shared/spec/05-retry-policies.md):
// 3 retries send 1 + f + f^2 + f^3 attempts per request, 4.0 when every call fails, where
// gRPC's throttling and the AWS quota fall back to one; naive retries leave the largest part
// of the map that never recovers. A change reruns only the policies it touches.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, openControls, screenshot } from './support.mjs';

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

// The table's row of a policy: [at 10 %, at 100 %, refuses from, cells still down].
async function row(page, label) {
  const cells = page.locator('[data-testid=policies-table] tbody tr', { has: page.locator('th', { hasText: label }) }).locator('td');
  return cells.allTextContents();
}

async function installed(page) {
  await page.locator('[data-testid=policies-table] tbody tr').first().waitFor({ timeout: 90_000 });
  await page.locator('[data-testid=policies-busy]:empty').waitFor({ state: 'attached', timeout: 90_000 });
}

test('Demo 15 shows the spec\'s figures and reruns only what a change touches', async () => {
  const { page, problems } = await openPage(browser, { width: 1280, height: 800 }, '?demo=15');
  await page.getByTestId('demo-heading').filter({ hasText: /^Demo 15: / }).waitFor();
  // Predict first: the question is there before any figure.
  await page.getByTestId('policies-pick-resilience4j').check();
  await installed(page);
  assert.match(await page.getByTestId('policies-verdict').textContent(), /^Yes: .*Resilience4j Retry 4\.0/);

  const r4j = await row(page, 'Resilience4j Retry');
  const grpc = await row(page, 'gRPC retry throttling');
  const aws = await row(page, 'AWS SDK standard mode');
  const budget = await row(page, 'Retry budget');
  // 1 + f + f^2 + f^3: 1.111 at 10 %, 4 at 100 %; Resilience4j never refuses.
  assert.deepEqual(r4j.slice(0, 3), ['1.1', '4.0', 'never']);
  assert.equal(grpc[1], '1.0');
  assert.equal(aws[1], '1.0');
  assert.equal(budget[1], '1.1');
  // gRPC: 0.1 x (1 - f) < f, so retries stop by about 9 %.
  assert.ok(Number(grpc[2].replace(' %', '')) <= 10, grpc[2]);
  const down = (r) => Number(r[3].split(' of ')[0]);
  assert.ok(down(r4j) > down(budget) && down(budget) >= down(grpc), `${r4j[3]} ${budget[3]} ${grpc[3]}`);
  assert.match(await page.getByTestId('policies-yours').textContent(), /^Your system, Resilience4j Retry at 70 % of capacity through a 10 s slowdown: still down/);
  await page.locator('[data-testid=policies-map-canvas]').waitFor();
  await screenshot(page, 'demo15-desktop');

  // gRPC's tokens: a change to one policy reruns its 18 failure rates and 45 cells only.
  await page.getByTestId('policy-grpc').locator('summary').click();
  const tokens = page.getByTestId('lab-control-grpc.maxTokens');
  await tokens.focus();
  await page.keyboard.press('End');
  await page.getByTestId('policies-busy').filter({ hasText: 'of 63 runs' }).waitFor();
  await installed(page);
  assert.ok(page.url().includes('grpc.maxTokens=1000'), page.url());
  assert.deepEqual(await row(page, 'Resilience4j Retry'), r4j, 'untouched policies keep their figures');

  // Your own system with gRPC recovers where Resilience4j's does not.
  await openControls(page);
  await page.getByTestId('lab-control-yourPolicy').selectOption('grpc');
  await page.getByTestId('policies-yours').filter({ hasText: 'gRPC retry throttling' }).waitFor({ timeout: 60_000 });
  // Hiding a policy takes its row away and goes into the link.
  await page.getByTestId('lab-control-show.none').uncheck();
  await page.waitForFunction(() => location.search.includes('show.none=false'));
  await installed(page);
  assert.equal(await page.locator('[data-testid=policies-table] tbody th', { hasText: 'No retries' }).count(), 0);
  // The Resilience4j line's Retry as Spring keys, from the link (maxAttempts 4).
  await page.getByTestId('export-r4j').click();
  await page.getByTestId('export-r4j-text').filter({ hasText: 'max-attempts: 4' }).waitFor();
  await page.keyboard.press('Escape');
  // The teacher notes answer the page's question with the spec's figures.
  await page.getByTestId('teacher-notes').locator('summary').click();
  await page.getByTestId('teacher-notes').filter({ hasText: '1 + f + f^2 + f^3' }).waitFor();
  // Back to the spec's values, made in slices like any change.
  await page.getByTestId('lab-reset').click();
  await installed(page);
  assert.deepEqual(await row(page, 'Resilience4j Retry'), r4j);
  assert.deepEqual(problems, []);
  await page.close();
});

test('Demo 15 on a phone in the dark, and embedded', async () => {
  const link = '?demo=15&show.none=false&show.retryBudget=false&show.tokenBucket=false&show.finagle=false&show.awsStandard=false&show.adaptiveThrottling=false';
  const { page, problems } = await openPage(browser, { width: 390, height: 844 }, link, 'dark');
  await installed(page);
  assert.equal(await page.locator('[data-testid=policies-table] tbody tr').count(), 2);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), 'no wider than the phone');
  await screenshot(page, 'demo15-phone-dark');
  await page.close();
  const embedded = await openPage(browser, { width: 700, height: 800 }, `${link}&embed=1`);
  await installed(embedded.page);
  assert.equal(await embedded.page.getByTestId('open-full-course').count(), 1);
  assert.deepEqual([...problems, ...embedded.problems], []);
  await embedded.page.close();
});
