// Not a test: runs the browser benchmark (index.html?bench) of the release build in headless
// Chromium and prints its numbers. `node tests/e2e/dashboard-bench.mjs` after `trunk build --release`.
import { start } from './dashboard-helpers.mjs';

const env = await start();
try {
  const page = await env.browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (e) => console.error('page error:', e));
  await page.goto(`${env.baseUrl}?bench`, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid=bench-results][data-done]', { timeout: 600_000 });
  console.log(await page.textContent('[data-testid=bench-results]'));
  await page.screenshot({ path: 'test-artifacts/bench.png' });
} finally {
  await env.close();
}
