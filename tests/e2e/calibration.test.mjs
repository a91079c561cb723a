// A calibration file in the settings panel: `lbplan history --calibrate` writes each
// broker's CPU cost relative to the median broker; loaded in the dashboard, the plan predicts with
// it as `lbplan plan --calibration FILE` does. On the demo the leader's cycle sends two bundles to
// broker-10 (22.3 % CPU, the weighted max): at factor 2 the same work costs it twice the cores, so
// its rise doubles; the decisions stay Pulsar's (its strategies never read the planner's model).
// Clearing the calibration gives the default prediction back; a bad file is refused, naming it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, recordingPage, screenshotOf } from './dashboard-helpers.mjs';

const DEST = 'broker-10.demo.svc:8080';
const CALIBRATION = { format_version: 1, cpu_cost_factors: { [DEST]: 2.0 }, fits: [] };

let env;
before(async () => { env = await start(); });
after(async () => { await env?.close(); });

async function usage(page) {
  const row = page.locator(`[data-testid=plan-usage-row][data-broker="${DEST}"]`);
  await row.waitFor({ timeout: 30_000 });
  const [before, after] = await row.locator('.ubar-line .value').allTextContents();
  return { before: parseFloat(before), after: parseFloat(after) };
}

async function moves(page) {
  return page.locator('[data-testid=plan-move]').evaluateAll((rows) =>
    rows.map((r) => `${r.dataset.from}->${r.dataset.to}`).sort());
}

test('a loaded calibration changes the predictions, not the decisions, and can be cleared', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const { page, diagnostics, assertClean } = await recordingPage(context);
  try {
    await page.goto(env.baseUrl, { waitUntil: 'load' });
    await page.waitForSelector('[data-testid=broker-row]', { timeout: 30_000 });
    await page.click('[data-testid=run-plan]');
    const plain = await usage(page).catch(() => assert.fail(`no plan\n${diagnostics()}`));
    const plainMoves = await moves(page);
    assert.ok(plainMoves.some((m) => m.endsWith(`->${DEST}`)), plainMoves.join(', '));
    assert.equal(await page.locator('[data-testid=plan-prediction-basis]').count(), 0);

    await page.setInputFiles('[data-testid=calibration-input]', [{
      name: 'calibration.json', mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(CALIBRATION)),
    }]);
    await page.locator('[data-testid=plan-prediction-basis]').waitFor({ timeout: 30_000 });
    assert.match(await page.locator('[data-testid=plan-prediction-basis]').textContent(),
      new RegExp(`${DEST.replaceAll('.', '\\.')} ×2\\.00`));
    assert.match(await page.locator('[data-testid=calibration-summary]').textContent(),
      /Calibration calibration\.json: CPU cost factors for 1 of the snapshot's 12 brokers; not at 1: broker-10/);
    const calibrated = await usage(page);
    assert.equal(calibrated.before, plain.before);
    const rise = (u) => u.after - u.before;
    // Rounded to 0.1 % on screen: twice the rise within the rounding of both figures.
    assert.ok(Math.abs(rise(calibrated) - 2 * rise(plain)) <= 0.2,
      `rise ${rise(plain)} → ${rise(calibrated)}`);
    assert.deepEqual(await moves(page), plainMoves);
    await screenshotOf(page, '[data-testid=calibration]', 'calibration-loaded.png');

    await page.click('[data-testid=calibration-clear]');
    await page.locator('[data-testid=plan-prediction-basis]').waitFor({ state: 'detached', timeout: 30_000 });
    assert.deepEqual(await usage(page), plain);

    await page.setInputFiles('[data-testid=calibration-input]', [{
      name: 'wrong.json', mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify({ ...CALIBRATION, format_version: 9 })),
    }]);
    const error = page.locator('[data-testid=calibration-error]');
    await error.waitFor({ timeout: 10_000 });
    assert.match(await error.textContent(), /^wrong\.json: \$\.format_version: 9/);
    assert.equal(await page.locator('[data-testid=plan-prediction-basis]').count(), 0);
    await assertClean();
  } finally {
    await context.close();
  }
});
