// End-to-end: the embedding API of the same build. `mount_planner` mounts a second, independent
// planner on the standalone page; its Apply flow lists every REST call before sending anything,
// sends them one at a time with the host's auth headers, and stops at the first failure.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, start, recordingPage, waitForRows, screenshot } from './dashboard-helpers.mjs';

// The fake admin API acts like a small Pulsar holding the demo cluster: the guarded Apply's reads
// (`clusterName`, the active brokers, each broker's `ownedNamespaces`, from the demo snapshot's
// owners, updated by a successful unload) and the plan's calls: the first succeeds, every later one
// fails with 500. Mutating calls are recorded in `adminCalls`.
const demo = JSON.parse(fs.readFileSync(path.join(ROOT, 'static', 'demo-snapshot.json'), 'utf8'));
const owners = new Map(Object.entries(demo.brokers)
  .flatMap(([broker, b]) => b.local_broker_data.bundles.map((bundle) => [bundle, broker])));
const adminCalls = [];
const sheddingCalls = [];
function fakeAdmin(req, res, url) {
  if (!url.pathname.startsWith('/fake-admin/')) return false;
  const p = url.pathname.slice('/fake-admin'.length);
  const json = (v) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v));
  if (req.method === 'GET') {
    if (p === '/admin/v2/brokers/configuration/runtime') return json({ clusterName: 'test' }), true;
    if (p === '/admin/v2/brokers/configuration/values') return json({}), true;
    if (p === '/admin/v2/brokers/test') return json(Object.keys(demo.brokers)), true;
    // The dry run reads the brokers' version (the profile check): Pulsar answers the bare string.
    if (p === '/admin/v2/brokers/version') return res.writeHead(200, { 'content-type': 'text/plain' }).end('4.0.3'), true;
    const m = p.match(/^\/admin\/v2\/brokers\/test\/([^/]+)\/ownedNamespaces$/);
    if (m) {
      const b = decodeURIComponent(m[1]);
      return json(Object.fromEntries([...owners].filter(([, o]) => o === b)
        .map(([k]) => [k, { broker_assignment: 'shared', is_controlled: false, is_active: true }]))), true;
    }
    res.writeHead(404).end();
    return true;
  }
  // Pausing shedding (on by default) and putting it back: answered, kept apart from the plan's calls.
  if (p.startsWith('/admin/v2/brokers/configuration/loadBalancerSheddingEnabled')) {
    sheddingCalls.push(`${req.method} ${p}`);
    res.writeHead(204).end();
    return true;
  }
  adminCalls.push({ method: req.method, path: p + url.search, auth: req.headers.authorization });
  const ok = adminCalls.length === 1;
  if (ok && p.endsWith('/unload')) {
    const bundle = p.split('/').slice(4, 7).map(decodeURIComponent).join('/');
    const to = url.searchParams.get('destinationBroker');
    if (to) owners.set(bundle, to);
  }
  res.writeHead(ok ? 204 : 500).end();
  return true;
}

let env;
before(async () => { env = await start(fakeAdmin); });
after(async () => { await env?.close(); });

test('mount_planner: a second instance, apply with confirmation, readonly, destroy', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const { page, diagnostics, log } = await recordingPage(context);
  try {
    await page.goto(env.baseUrl, { waitUntil: 'load' });
    await waitForRows(page, diagnostics);
    const standaloneRows = await page.locator('#app [data-testid=broker-row]').count();
    await page.waitForFunction(() => window.wasmBindings?.mount_planner, null, { timeout: 10_000 });
    await page.evaluate(() => {
      const host = document.createElement('div');
      host.id = 'embedded';
      document.body.append(host);
      const root = host.attachShadow({ mode: 'open' });
      window.__plans = 0;
      window.__handle = window.wasmBindings.mount_planner(root, {
        snapshotUrl: 'static/demo-snapshot.json',
        adminBaseUrl: `${location.origin}/fake-admin`,
        authHeaders: async () => ({ Authorization: 'Bearer e2e' }),
        theme: 'dark',
        onPlanReady: () => { window.__plans += 1; },
      });
    });
    const embedded = page.locator('#embedded');
    await embedded.locator('[data-testid=broker-row]').first().waitFor({ timeout: 20_000 });
    assert.equal(await embedded.locator('[data-testid=broker-row]').count(), standaloneRows);
    await embedded.locator('[data-testid=run-plan]').click();
    await embedded.locator('[data-testid=plan-move]').first().waitFor({ timeout: 20_000 });
    assert.ok(await page.evaluate(() => window.__plans) >= 1, 'onPlanReady was called');
    // The standalone instance has no plan: state is per instance.
    assert.equal(await page.locator('#app [data-testid=plan]').count(), 0);

    // No wait between batches: the test does not sleep.
    const wait = embedded.locator('[data-testid=apply-wait]');
    await wait.fill('0');
    await wait.dispatchEvent('change');
    await embedded.locator('[data-testid=apply-plan]').click();
    const dialog = embedded.locator('[data-testid=apply-confirm]');
    await dialog.waitFor();
    const listed = await dialog.locator('ol li').count();
    assert.ok(listed >= 1);
    assert.match(await dialog.textContent(), /PUT \/admin\/v2\/namespaces\//);
    assert.equal(adminCalls.length, 0, 'nothing is sent before the confirmation');
    await screenshot(page, 'embed-apply-confirm.png');

    // The safety policy: a hazard (the demo snapshot is old, or of unknown age) keeps "Send the
    // calls" disabled until the word the dialog names is typed.
    const ack = dialog.locator('[data-testid=apply-ack]');
    if (await ack.count() > 0) {
      assert.ok(await dialog.locator('[data-testid=apply-confirm-ok]').isDisabled());
      await ack.fill(await ack.getAttribute('data-word'));
    }
    await embedded.locator('[data-testid=apply-confirm-ok]').click();
    await embedded.locator('[data-testid=apply-finished]').waitFor({ timeout: 10_000 });
    const results = embedded.locator('[data-testid=apply-result]').filter({ hasNotText: 'loadBalancerSheddingEnabled' });
    const expected = Math.min(listed, 2);
    assert.equal(await results.count(), expected, await embedded.locator('[data-testid=apply-finished]').textContent());
    assert.equal(await results.first().getAttribute('data-status'), '204');
    assert.equal(adminCalls.length, expected, JSON.stringify(adminCalls));
    assert.equal(adminCalls[0].auth, 'Bearer e2e');
    assert.equal(adminCalls[0].method, 'PUT');
    // Shedding was paused for the run and put back after the failure.
    assert.deepEqual(sheddingCalls, [
      'POST /admin/v2/brokers/configuration/loadBalancerSheddingEnabled/false',
      'DELETE /admin/v2/brokers/configuration/loadBalancerSheddingEnabled',
    ]);
    if (listed >= 2) {
      assert.equal(await results.nth(1).getAttribute('data-status'), '500');
      assert.match(await embedded.locator('[data-testid=apply-finished]').textContent(), /Stopped at 2 of \d+ calls: step 2 failed; nothing after it was sent\./);
    }

    await page.evaluate(() => window.__handle.set_option('readonly', true));
    await page.waitForFunction(() => !document.querySelector('#embedded').shadowRoot.querySelector('[data-testid=export-commands]'));
    await page.evaluate(() => window.__handle.destroy());
    assert.equal(await embedded.locator('[data-testid=broker-row]').count(), 0);
    assert.ok(await page.locator('#app [data-testid=broker-row]').count() > 0, 'the standalone instance lives on');
    assert.deepEqual(log.pageErrors, [], diagnostics());
    // The failing fake call is the only expected console error.
    const errors = log.consoleLines.filter((l) => l.startsWith('[error]') && !l.includes('500'));
    assert.deepEqual(errors, [], diagnostics());
  } finally {
    await context.close();
  }
});
