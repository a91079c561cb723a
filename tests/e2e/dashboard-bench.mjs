// Not a test: runs the browser benchmark (index.html?bench) of the release build in headless
// Chromium and prints its numbers. `node tests/e2e/dashboard-bench.mjs` after `trunk build --release --features bench`
// (LBPLAN_DIST=dir: another build's dist/). With LBPLAN_TRACE=1 it also records a DevTools trace
// and says what made each long task of the new path (page-trace.mjs): import → show → first plan,
// the what-if edit after it, and one decision explained on demand (builds that print it).
import { start } from './dashboard-helpers.mjs';
import { startTrace, stopTrace, longTasks, report } from './page-trace.mjs';

const trace = process.env.LBPLAN_TRACE === '1';
const env = await start();
try {
  const page = await env.browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (e) => console.error('page error:', e));
  const cdp = trace ? await startTrace(page) : null;
  await page.goto(`${env.baseUrl}?bench`, { waitUntil: 'load' });
  const results = '[data-testid=bench-results]';
  if (trace) {
    // The window edges, marked from here when the page prints them (older builds mark nothing).
    const edges = [
      ['old path page long tasks', 'bench-new-path-start'],
      ['new path page long tasks (import, show, first plan)', 'bench-first-plan-done'],
      ['new path: what-if edit', 'bench-edit-done'],
    ];
    for (const [text, mark] of edges) {
      await page.waitForFunction(([sel, t]) => document.querySelector(sel)?.textContent.includes(t),
        [results, text], { timeout: 600_000, polling: 50 });
      await page.evaluate((m) => performance.mark(m), mark);
    }
    // Optional: older builds go on to the end without explaining a decision.
    await page.waitForFunction(([sel, t]) => document.querySelector(sel)?.textContent.includes(t)
      || document.querySelector(sel)?.hasAttribute('data-done'), [results, 'one decision explained'], { timeout: 600_000, polling: 50 });
    await page.evaluate(() => performance.mark('bench-explain-done'));
  }
  await page.waitForSelector(`${results}[data-done]`, { timeout: 600_000 });
  console.log(await page.textContent(results));
  await page.screenshot({ path: 'test-artifacts/bench.png' });
  if (cdp) {
    const events = await stopTrace(cdp);
    console.log(report('import → show → first plan', longTasks(events, 'bench-new-path-start', 'bench-first-plan-done')));
    console.log(report('what-if edit', longTasks(events, 'bench-first-plan-done', 'bench-edit-done')));
    console.log(report('one decision explained on demand', longTasks(events, 'bench-edit-done', 'bench-explain-done')));
  }
} finally {
  await env.close();
}
