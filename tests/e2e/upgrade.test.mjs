// The upgrade panel (issue 40, item 4) on the demo, whose brokers report 4.0.7 with broker-00 the
// leader: upgrading to 5.0.0 shows what `lbplan upgrade static/demo-snapshot.json --to 5.0.0`
// shows — the 5.0 defaults (#26609 / #26610) among the rows that differ, each changed decision
// attributed to them (the demo's ThresholdShedder gives way to AvgShedder), both releases
// simulated, 32 bundles for a new namespace and 64 for a system namespace, and the broker.conf
// lines that keep today's defaults (maxUnloadPercentage 0.2 instead of 5.0's 0.5).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, recordingPage, waitForRows, screenshotOf } from './dashboard-helpers.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env?.close(); });

test('the upgrade panel previews 4.0.7 → 5.0.0 on the demo as lbplan upgrade does', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const { page, diagnostics, assertClean } = await recordingPage(context);
  try {
    await page.goto(env.baseUrl, { waitUntil: 'load' });
    await waitForRows(page, diagnostics);
    await page.selectOption('[data-testid=upgrade-target]', '5.0.0');
    await page.click('[data-testid=upgrade-run]');
    await page.locator('[data-testid=upgrade-result]').waitFor({ timeout: 60_000 })
      .catch(() => assert.fail(`no preview\n${diagnostics()}`));
    assert.match(await page.textContent('[data-testid=upgrade-headline]'),
      /^Upgrade 4\.0\.7 → 5\.0\.0 \(the leader broker-00\.demo\.svc:8080 reports 4\.0\.7/);
    const changes = await page.textContent('[data-testid=upgrade-changes]');
    assert.match(changes, /gained apache\/pulsar#26609 \/ #26610: 5\.0 defaults/);
    assert.match(changes, /gained apache\/pulsar#24954/);
    const decisions = await page.locator('[data-testid=upgrade-decisions] li').allTextContents();
    assert.ok(decisions.length > 0, 'changed decisions listed');
    for (const d of decisions) assert.ok(d.endsWith('[apache/pulsar#26609 / #26610]'), d);
    const sims = await page.locator('[data-testid=upgrade-simulated] tbody tr td:first-child').allTextContents();
    assert.deepEqual(sims, ['4.0.7', '5.0.0']);
    assert.deepEqual(await page.locator('[data-testid=upgrade-new-namespaces] li').allTextContents(),
      ['4.0.7: 4 (4)', '5.0.0: 32 (64)']);
    const keep = (await page.textContent('[data-testid=upgrade-keep-today]')).split('\n');
    for (const line of [
      'maxUnloadPercentage=0.2',
      'loadBalancerDistributeBundlesEvenlyEnabled=true',
      'defaultNumberOfNamespaceBundles=4',
      'defaultNumberOfSystemNamespaceBundles=4',
    ]) assert.ok(keep.includes(line), `${line} in ${keep.join(' | ')}`);
    await screenshotOf(page, '[data-testid=upgrade-panel]', 'upgrade-panel.png');
    // 4.0.7 → 4.0.8 on ThresholdShedder: only #24954 differs and nothing this cluster runs reads it.
    await page.selectOption('[data-testid=upgrade-target]', '4.0.8');
    await page.click('[data-testid=upgrade-run]');
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=upgrade-headline]')?.textContent.includes('→ 4.0.8'));
    assert.match(await page.textContent('[data-testid=upgrade-changes]'),
      /^gained apache\/pulsar#24954: .*\(not used by this cluster\)$/);
    assert.equal(await page.textContent('[data-testid=upgrade-decisions]'), 'The same under both releases.');
    assertClean();
  } finally {
    await context.close();
  }
});
