// "Propose a rebalance instead": the dashboard loads the converging cluster of
// tests/fixtures/converging-snapshot.json (apache/pulsar#16059's pattern in 15 brokers, kept equal
// to the CLI's generator by crates/cli/tests/plan_verdict.rs): the leader plan sends all 8 unloads
// to the 1-core tiny-1 and is judged worse; its banner offers "Propose a rebalance instead", which
// opens the rebalance panel prefilled for the same cluster: the goal under the overloaded
// threshold (loadBalancerBrokerOverloadedThresholdPercentage=85) and at most the plan's 8 moves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, start, recordingPage, screenshot } from './dashboard-helpers.mjs';

const FIXTURE = path.join(ROOT, 'tests', 'fixtures', 'converging-snapshot.json');

let env;
before(async () => { env = await start(); });
after(async () => { await env?.close(); });

test('a worse plan\'s banner proposes a rebalance, prefilled for the same cluster', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const { page, diagnostics, assertClean } = await recordingPage(context);
  try {
    await page.goto(env.baseUrl, { waitUntil: 'load' });
    await page.waitForSelector('[data-testid=broker-row]', { timeout: 30_000 });
    await page.setInputFiles('[data-testid=snapshot-input]', [
      { name: 'converging-snapshot.json', mimeType: 'application/json', buffer: fs.readFileSync(FIXTURE) },
    ]);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=broker-row]').length === 15, null,
      { timeout: 30_000 }).catch(() => assert.fail(`the 15 brokers did not load\n${diagnostics()}`));
    await page.click('[data-testid=run-plan]');
    const banner = page.locator('[data-testid=verdict-banner][data-outcome=worse]');
    await banner.waitFor({ timeout: 30_000 }).catch(async () =>
      assert.fail(`no worse verdict: ${await page.locator('[data-testid=verdict-banner]').allTextContents()}\n${diagnostics()}`));
    // The CLI's numbers for this cluster (crates/cli/tests/plan_verdict.rs): max 52.9 % → 102.9 %.
    assert.match(await banner.locator('[data-testid=verdict-headline]').textContent(), /max 52\.9% → 102\.9%/);
    const moves = await page.locator('[data-testid=plan-move]').count();
    assert.equal(moves, 8, 'the leader plan moves 8 bundles');
    const to = await page.locator('[data-testid=plan-move]').evaluateAll((rows) => [...new Set(rows.map((r) => r.dataset.to))]);
    assert.deepEqual(to, ['tiny-1:8080'], 'all 8 go to the 1-core broker');
    await banner.locator('[data-testid=verdict-propose-rebalance]').click();
    const panel = page.locator('[data-testid=rebalance-panel]');
    await panel.waitFor({ timeout: 10_000 });
    assert.equal(await panel.locator('[data-testid=rebalance-goal]').inputValue(), 'max<=85%');
    assert.equal(await panel.locator('[data-testid=rebalance-max-moves]').inputValue(), '8');
    // The same cluster: the drain picker offers the loaded snapshot's brokers (full ids as labels),
    // its suggestions in the page once it has the focus.
    await panel.locator('[data-testid=rebalance-drain-input]').focus();
    const drain = await panel.locator('#rebalance-drain-input-brokers option').evaluateAll((os) => os.map((o) => o.label));
    assert.equal(drain.length, 15, drain.join(', '));
    assert.ok(drain.some((d) => d.includes('tiny-1')), drain.join(', '));
    await screenshot(page, 'propose-rebalance.png');
    await assertClean();
  } finally {
    await context.close();
  }
});
