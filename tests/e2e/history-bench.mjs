// Not a test: does the History view stay interactive with a long series? Uploads a
// recorded series (LBPLAN_SERIES: a zip of a series folder, e.g. `lbplan simulate builtin:bench
// --scenario daily-wave --cycles 1440 --record-series series/` zipped), waits for the worker to
// explain it, then moves the instant along the slider, pages the changes and picks changes, and
// prints how long each took until the next frame and the page's long tasks (≥ 50 ms) meanwhile.
// `node tests/e2e/history-bench.mjs` after `trunk build --release` (LBPLAN_DIST: another build).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { start } from './dashboard-helpers.mjs';

const series = process.env.LBPLAN_SERIES;
assert.ok(series && fs.existsSync(series), 'LBPLAN_SERIES=path/to/series.zip');
const STEPS = Number(process.env.LBPLAN_STEPS ?? 24);

const env = await start();
try {
  const page = await env.browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('pageerror', (e) => console.error('page error:', e));
  await page.addInitScript(() => {
    window.__long = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push([e.startTime, e.duration]); })
      .observe({ type: 'longtask', buffered: true });
  });
  await page.goto(env.baseUrl, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid=broker-row]', { timeout: 60_000 });
  await page.click('[data-testid=sections-nav] a:has-text("History")');
  const t0 = Date.now();
  await page.setInputFiles('[data-testid=history-files-input]', series);
  await page.waitForSelector('[data-testid=history-change], [data-testid=history-error]', { timeout: 1_800_000 });
  const explained = Date.now() - t0;
  const err = await page.$('[data-testid=history-error]');
  if (err) throw new Error(await err.textContent());
  const shown = await page.evaluate(() => ({
    instant: document.querySelector('[data-testid=history-instant]')?.textContent,
    lanes: document.querySelectorAll('[data-testid=history-map]').length,
    cells: [...document.querySelectorAll('[data-testid=history-map]')].map((c) => Number(c.dataset.cells)),
    max: Number(document.querySelector('[data-testid=history-slider]').max),
  }));
  console.log(`explained in the worker and shown: ${explained} ms; ${shown.max + 1} snapshots, ${shown.lanes} lanes on the page, cells per lane ${shown.cells.join(' ')}`);

  // One interaction: `act` in the page, then two animation frames (the render and its paint).
  const timed = (act) => page.evaluate(async (src) => {
    const from = performance.now();
    const before = window.__long.length;
    // eslint-disable-next-line no-new-func
    new Function(src)();
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const long = window.__long.slice(before).filter(([s]) => s >= from - 1);
    return { ms: performance.now() - from, long: long.length, longest: Math.max(0, ...long.map(([, d]) => d)) };
  }, act);
  const summary = (label, runs) => {
    const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
    const long = runs.reduce((n, r) => n + r.long, 0);
    const longest = Math.max(0, ...runs.map((r) => r.longest));
    console.log(`${label}: ${runs.length} times, to the next frame median ${ms[ms.length >> 1].toFixed(1)} ms, max ${ms[ms.length - 1].toFixed(1)} ms; long tasks ${long}, longest ${longest.toFixed(0)} ms`);
  };
  const slider = [];
  for (let k = 0; k < STEPS; k += 1) {
    const v = Math.round((k + 1) * shown.max / STEPS);
    slider.push(await timed(`const s = document.querySelector('[data-testid=history-slider]');
      s.value = '${v}'; s.dispatchEvent(new Event('input', { bubbles: true }));`));
  }
  summary('slider moved (input events)', slider);
  const draws = await page.evaluate(() => [...document.querySelectorAll('[data-testid=history-map]')].map((c) => c.dataset.draws ?? '?'));
  console.log(`lane cell draws so far (one each expected): ${draws.join(' ')}`);
  const picks = [];
  for (let k = 0; k < 8; k += 1) {
    picks.push(await timed(`document.querySelectorAll('[data-testid=history-change]')[${k}]?.click();`));
  }
  summary('a change picked (reason shown, instant moved)', picks);
  const pages = [];
  for (let k = 0; k < 4; k += 1) {
    pages.push(await timed(`[...document.querySelectorAll('.history-view .pager button')].at(-1)?.click();`));
  }
  summary('next page (changes or namespaces)', pages);
  await page.screenshot({ path: 'test-artifacts/history-bench.png' });
} finally {
  await env.close();
}
