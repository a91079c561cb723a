// Apply through the admin REST API from an embedded planner (dist/static/embed-demo.html with
// ?admin-base-url=…), against a local server started here (127.0.0.1, bounded) that serves dist/
// under the strict CSP and answers the admin calls like Pulsar: the reads of the guarded Apply
// (`clusterName`, the active brokers, each broker's `ownedNamespaces`, kept in a map seeded from the
// plan and updated by each unload and split) and the plan's calls (204), recording them. Checks the
// confirmation lists every call, the order, paths and destinationBroker of the calls, the
// Authorization header from `authHeaders`, that a failure (500 on the second call) stops the run,
// that a bundle moved behind the plan's back refuses the run before any call, that a destination
// Pulsar did not honour stops it, the journal shown, and that the token is never kept in storage or
// the URL; and that an interrupted run's journal, downloaded and loaded into a fresh page, resumes
// exactly the remaining calls, then rolls the unloads back with the inverse calls. The safety
// policy: the confirmation starts with the verdict, states the (old) demo snapshot's age and refuses
// until the word it names is typed; the journal records the acknowledgement; shedding is paused by
// default and put back even after a failure. The dry run starts when the confirmation opens and Send
// stays disabled until it passed (drift keeps it disabled); it reads the brokers' version, and a
// plan of another profile needs the typed acknowledgement. After an apply, Verify reads the owners
// and the load report of the broker behind the admin URL (`broker-stats/load-report`, a
// `LocalBrokerData` written after the moves) and shows core's verification, downloadable as text
// and JSON. Screenshots go to test-artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  ARTIFACTS, closeServer, launchChromium, mountPlannerMissing, requireDist, serveDist, waitForRows, watch,
} from './embed-support.mjs';

const TOKEN = 'tok-SECRET-4711';
// Skipped (with the reason printed) until the dashboard build exports mount_planner.
const skip = mountPlannerMissing() ?? false;
let browser;

before(async () => {
  if (skip) return;
  requireDist();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
});

/** The bundle a plan call names (`/admin/v2/namespaces/T/NS/RANGE/unload` → `T/NS/RANGE`). */
function bundleOf(pathname) {
  const parts = pathname.split('/').slice(4, 7).map(decodeURIComponent);
  return parts.join('/');
}

/**
 * A server for dist/ whose admin endpoint acts like a small Pulsar: GETs read the owners map, the
 * plan's PUTs answer 204 (or 500 on call `failAt`, 1-based) and move bundles. `ignoreDestination`
 * lands each unload on a broker other than the one asked for. Mutating calls are in `adminCalls`,
 * reads in `adminReads`; `seed(plan)` puts each bundle on the broker the plan's snapshot has.
 */
async function adminServer({ failAt, ignoreDestination = false, version = '4.0.3' } = {}) {
  const calls = [];
  const reads = [];
  const shedding = [];
  const owners = new Map();
  const brokers = new Set();
  let plan = { splits: [], unloads: [] };
  const server = await serveDist({
    admin: (req, body, res, headers) => {
      const url = new URL(req.url, 'http://localhost');
      const json = (v) => res.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(v));
      if (url.pathname.startsWith('/admin/v2/brokers/configuration/loadBalancerSheddingEnabled')) {
        // The pause (on by default) and its restore: kept apart from the plan's calls.
        shedding.push(`${req.method} ${url.pathname}`);
        return res.writeHead(204, headers).end();
      }
      if (req.method === 'GET') {
        reads.push(req.url);
        if (url.pathname === '/admin/v2/brokers/configuration/runtime') return json({ clusterName: 'test' });
        if (url.pathname === '/admin/v2/brokers/configuration/values') return json({});
        // `pulsar-admin brokers version`: Pulsar answers the bare version string.
        if (url.pathname === '/admin/v2/brokers/version' && version) {
          return res.writeHead(200, { ...headers, 'content-type': 'text/plain' }).end(version);
        }
        // The broker behind the admin URL serves its own LocalBrokerData, written after the moves.
        if (url.pathname === '/admin/v2/broker-stats/load-report' && server.reportOf) {
          return json(server.reportOf([...owners].filter(([, o]) => o === server.reportOf.broker).map(([b]) => b)));
        }
        if (url.pathname === '/admin/v2/brokers/test') return json([...brokers]);
        const m = url.pathname.match(/^\/admin\/v2\/brokers\/test\/([^/]+)\/ownedNamespaces$/);
        if (m) {
          const b = decodeURIComponent(m[1]);
          return json(Object.fromEntries([...owners].filter(([, o]) => o === b)
            .map(([k]) => [k, { broker_assignment: 'shared', is_controlled: false, is_active: true }])));
        }
        return res.writeHead(404, headers).end();
      }
      calls.push({ method: req.method, url: req.url, authorization: req.headers.authorization, body });
      const status = calls.length === failAt ? 500 : 204;
      if (status === 204 && url.pathname.endsWith('/unload')) {
        const bundle = bundleOf(url.pathname);
        const planned = plan.unloads.find((u) => u.bundle === bundle);
        let to = url.searchParams.get('destinationBroker') ?? planned?.to;
        if (ignoreDestination) to = [...brokers].find((b) => b !== to && b !== owners.get(bundle));
        owners.set(bundle, to);
      } else if (status === 204 && url.pathname.endsWith('/split')) {
        owners.delete(bundleOf(url.pathname));
      }
      res.writeHead(status, headers).end(status === 500 ? 'Internal Server Error' : undefined);
    },
  });
  server.adminCalls = calls;
  server.sheddingCalls = shedding;
  server.adminReads = reads;
  server.owners = owners;
  server.seed = (p) => {
    plan = p;
    for (const s of p.splits) { owners.set(s.bundle, s.broker); brokers.add(s.broker); }
    for (const u of p.unloads) {
      owners.set(u.bundle, u.from);
      brokers.add(u.from);
      if (u.to) brokers.add(u.to);
    }
    for (const b of p.brokers_before ?? []) if (typeof b.broker === 'string') brokers.add(b.broker);
  };
  return server;
}

/**
 * The confirmation's safety policy: the demo snapshot was captured long ago, so the Apply is
 * refused until the operator types the word the dialog names; "Send the calls" stays disabled
 * until then. Types it (a rollback needs none).
 */
async function acknowledge(page) {
  const confirm = page.locator('#planner-prod [data-testid=apply-confirm]');
  const ack = confirm.locator('[data-testid=apply-ack]');
  if (await ack.count() === 0) return;
  assert.ok(await confirm.locator('[data-testid=apply-confirm-ok]').isDisabled(), 'refused until acknowledged');
  await ack.fill(await ack.getAttribute('data-word'));
}

/** The statuses of the plan's calls the panel shows (the shedding pause and restore left out). */
async function resultStatuses(page) {
  return page.locator('#planner-prod [data-testid=apply-result]').evaluateAll(
    (els) => els.filter((e) => !e.textContent.includes('loadBalancerSheddingEnabled')).map((e) => e.dataset.status));
}

/** Sets the Apply panel's wait to 0 s so the tests do not sleep between batches. */
async function noWait(page) {
  const wait = page.locator('#planner-prod [data-testid=apply-wait]');
  await wait.fill('0');
  await wait.dispatchEvent('change');
}

/** The admin calls a plan implies, in order (splits, then unloads), as {path, destinationBroker}. */
function expectedCalls(plan) {
  const out = [];
  for (const s of plan.splits) {
    const i = s.bundle.lastIndexOf('/');
    out.push({ path: `/admin/v2/namespaces/${s.bundle.slice(0, i)}/${s.bundle.slice(i + 1)}/split`, destinationBroker: null });
  }
  for (const u of plan.unloads) {
    const i = u.bundle.lastIndexOf('/');
    out.push({
      path: `/admin/v2/namespaces/${u.bundle.slice(0, i)}/${u.bundle.slice(i + 1)}/unload`,
      destinationBroker: u.pass_destination ? u.to : null,
    });
  }
  return out;
}

/**
 * Opens the portal with Apply on, types the token, plans, and returns the plan. `seed: false`
 * keeps the server's owners (a second page on a cluster a first run already changed).
 */
async function planWithApply(page, server, w, { seed = true } = {}) {
  await page.addInitScript(() => {
    window.__plans = [];
    document.addEventListener('plan-ready', (e) => {
      if (e.target.id === 'planner-prod') window.__plans.push(e.detail);
    });
  });
  await page.goto(`${server.baseUrl}/static/embed-demo.html?admin-base-url=${encodeURIComponent(server.baseUrl)}`,
    { waitUntil: 'load' });
  await page.fill('[data-testid=admin-token]', TOKEN);
  await waitForRows(page, '#planner-prod', w);
  await page.locator('#planner-prod [data-testid=run-plan]').click();
  await page.waitForSelector('#planner-prod [data-testid=plan-move]', { timeout: 20_000 });
  await page.waitForFunction(() => window.__plans.length > 0);
  const plan = await page.evaluate(() => window.__plans.at(-1));
  if (seed) server.seed(plan);
  await noWait(page);
  return plan;
}

async function assertNoTokenKept(page) {
  const kept = await page.evaluate(() => JSON.stringify({
    local: { ...localStorage }, session: { ...sessionStorage }, url: location.href, cookie: document.cookie,
  }));
  assert.ok(!kept.includes(TOKEN), `the token was kept: ${kept}`);
  assert.ok(!page.url().includes(TOKEN));
}

test('Apply sends every confirmed call in order with the Authorization header', { skip }, async () => {
  const server = await adminServer();
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const w = await watch(page);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  try {
    const plan = await planWithApply(page, server, w);
    const want = expectedCalls(plan);
    assert.ok(want.length >= 2, `the demo plan should have several calls: ${JSON.stringify(want)}`);

    await page.locator('#planner-prod [data-testid=apply-plan]').click();
    const confirm = page.locator('#planner-prod [data-testid=apply-confirm]');
    await confirm.waitFor({ timeout: 10_000 });
    assert.equal(server.adminCalls.length, 0, 'nothing may be sent before the confirmation');
    // The plan's calls (the pause, on by default, is listed around them).
    const listed = (await confirm.locator('ol li').allTextContents())
      .filter((l) => !l.includes('loadBalancerSheddingEnabled'));
    assert.equal(listed.length, want.length, listed.join('\n'));
    want.forEach((c, i) => assert.ok(listed[i].includes(c.path), `${listed[i]} lists ${c.path}`));
    // The verdict and its headline come first; the snapshot's age and the pause are stated.
    const policy = await confirm.locator('[data-testid=apply-policy-line]').allTextContents();
    assert.match(policy[0], /^Verdict: better — Better: max /);
    assert.match(policy[1], /^Cluster: /);
    assert.match(policy[2], /^Snapshot: captured /);
    assert.match(policy[3], /^Profile: /);
    // The demo snapshot is old (or does not say when it was captured): refused until acknowledged.
    const hazards = await confirm.locator('[data-testid=apply-hazard]').allTextContents();
    assert.ok(hazards.some((h) => /old, over the limit of 15 min|does not say when its snapshot was captured/.test(h)),
      hazards.join('\n'));
    assert.match(await confirm.locator('[data-testid=apply-pause-note]').textContent(), /paused for the run/);
    // Readable paths: `destinationBroker=host:port`, not `host%3Aport`.
    assert.ok(!listed.some((l) => l.includes('%3A')), listed.join('\n'));
    // The dry run first: the owners are read, nothing is sent.
    await confirm.locator('[data-testid=apply-dry-run]').click();
    const dry = confirm.locator('[data-testid=apply-dry-run-result]');
    await dry.waitFor({ timeout: 10_000 });
    assert.match(await dry.textContent(), new RegExp(`${want.length} call\\(s\\) would be sent; no bundle drifted\\. Nothing was sent\\.`));
    assert.equal(server.adminCalls.length, 0, 'a dry run sends nothing');
    assert.deepEqual(server.sheddingCalls, [], 'a dry run does not touch shedding');
    await page.screenshot({ path: path.join(ARTIFACTS, 'embed-apply-confirm.png'), fullPage: true });
    const ack = confirm.locator('[data-testid=apply-ack]');
    await ack.fill('not-the-word');
    assert.ok(await confirm.locator('[data-testid=apply-confirm-ok]').isDisabled(), 'a wrong word does not acknowledge');
    await acknowledge(page);

    await page.locator('#planner-prod [data-testid=apply-confirm-ok]').click();
    await page.waitForSelector('#planner-prod [data-testid=apply-finished]', { timeout: 20_000 });
    const statuses = await resultStatuses(page);
    assert.deepEqual(statuses, want.map(() => '204'));
    // Shedding was paused first and put back last (no override before: the override is deleted).
    assert.deepEqual(server.sheddingCalls, [
      'POST /admin/v2/brokers/configuration/loadBalancerSheddingEnabled/false',
      'DELETE /admin/v2/brokers/configuration/loadBalancerSheddingEnabled',
    ]);
    assert.match(await page.locator('#planner-prod [data-testid=apply-finished]').textContent(), /verified/);
    const journal = await page.locator('#planner-prod [data-testid=apply-journal-step]').evaluateAll(
      (els) => els.map((e) => e.dataset.status));
    assert.deepEqual(journal, want.map(() => 'done'));
    // The owners were read before the first call (the drift check) and after each one.
    assert.ok(server.adminReads.some((u) => u.endsWith('/ownedNamespaces')), server.adminReads.join('\n'));

    const got = server.adminCalls;
    assert.equal(got.length, want.length, JSON.stringify(got, null, 1));
    got.forEach((c, i) => {
      const u = new URL(c.url, server.baseUrl);
      assert.equal(c.method, 'PUT');
      assert.equal(u.pathname, want[i].path, `call ${i + 1}`);
      assert.equal(u.searchParams.get('destinationBroker'), want[i].destinationBroker, `call ${i + 1}: ${c.url}`);
      assert.equal(c.authorization, `Bearer ${TOKEN}`, `call ${i + 1}`);
    });
    await assertNoTokenKept(page);
    await w.assertClean();
  } finally {
    await page.screenshot({ path: path.join(ARTIFACTS, 'embed-apply.png'), fullPage: true });
    await page.close();
    await closeServer(server);
  }
});

test('Apply stops at the first failed call (500 on the second)', { skip }, async () => {
  const server = await adminServer({ failAt: 2 });
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const w = await watch(page);
  try {
    const plan = await planWithApply(page, server, w);
    const want = expectedCalls(plan);
    assert.ok(want.length >= 3, 'a call after the failing one must exist to show the stop');
    await page.locator('#planner-prod [data-testid=apply-plan]').click();
    await page.locator('#planner-prod [data-testid=apply-confirm]').waitFor({ timeout: 10_000 });
    await acknowledge(page);
    await page.locator('#planner-prod [data-testid=apply-confirm-ok]').click();
    await page.waitForSelector('#planner-prod [data-testid=apply-finished]', { timeout: 20_000 });
    const statuses = await resultStatuses(page);
    assert.deepEqual(statuses, ['204', '500']);
    // Stopped by the failure: shedding is still put back.
    assert.equal(server.sheddingCalls.at(-1), 'DELETE /admin/v2/brokers/configuration/loadBalancerSheddingEnabled');
    await page.waitForTimeout(300);
    assert.equal(server.adminCalls.length, 2, 'nothing may be sent after the failed call');
    assert.equal(new URL(server.adminCalls[1].url, server.baseUrl).pathname, want[1].path);
    assert.match(await page.locator('#planner-prod [data-testid=apply-finished]').textContent(), /[Ss]topped/);
    await assertNoTokenKept(page);
    // The 500 is the only failure the browser reports.
    assert.deepEqual(w.pageErrors, [], w.diagnostics());
  } finally {
    await page.screenshot({ path: path.join(ARTIFACTS, 'embed-apply-failure.png'), fullPage: true });
    await page.close();
    await closeServer(server);
  }
});

test('Apply refuses a plan whose bundle moved behind its back, before any call', { skip }, async () => {
  const server = await adminServer();
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const w = await watch(page);
  try {
    const plan = await planWithApply(page, server, w);
    const moved = plan.unloads[0];
    const elsewhere = [...new Set(plan.unloads.flatMap((u) => [u.from, u.to]))].find((b) => b && b !== moved.from);
    assert.ok(elsewhere, 'the demo plan names a second broker');
    server.owners.set(moved.bundle, elsewhere);
    await page.locator('#planner-prod [data-testid=apply-plan]').click();
    await page.locator('#planner-prod [data-testid=apply-confirm]').waitFor({ timeout: 10_000 });
    // The dry run already names the drifted bundle.
    await page.locator('#planner-prod [data-testid=apply-dry-run]').click();
    const dry = page.locator('#planner-prod [data-testid=apply-dry-run-result]');
    await dry.waitFor({ timeout: 10_000 });
    assert.match(await dry.textContent(), /1 bundle\(s\) drifted, the run would be refused/);
    assert.ok((await dry.textContent()).includes(moved.bundle));
    assert.equal(await dry.getAttribute('data-passed'), 'false');
    // Drift found: Send stays disabled, acknowledged or not.
    await acknowledge(page);
    assert.ok(await page.locator('#planner-prod [data-testid=apply-confirm-ok]').isDisabled(),
      'Send stays disabled after a dry run that found drift');
    assert.ok(await page.locator('#planner-prod [data-testid=apply-needs-dry-run]').isVisible());
    await page.waitForTimeout(300);
    assert.equal(server.adminCalls.length, 0, 'nothing may be sent when a bundle drifted');
    await assertNoTokenKept(page);
  } finally {
    await page.screenshot({ path: path.join(ARTIFACTS, 'embed-apply-drift.png'), fullPage: true });
    await page.close();
    await closeServer(server);
  }
});

test('Apply stops when Pulsar did not honour the destination', { skip }, async () => {
  const server = await adminServer({ ignoreDestination: true });
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const w = await watch(page);
  try {
    const plan = await planWithApply(page, server, w);
    const want = expectedCalls(plan);
    const first = want.findIndex((c) => c.destinationBroker);
    assert.ok(first >= 0, 'the demo plan has an unload with a destination');
    await page.locator('#planner-prod [data-testid=apply-plan]').click();
    await page.locator('#planner-prod [data-testid=apply-confirm]').waitFor({ timeout: 10_000 });
    await acknowledge(page);
    await page.locator('#planner-prod [data-testid=apply-confirm-ok]').click();
    await page.waitForSelector('#planner-prod [data-testid=apply-finished]', { timeout: 20_000 });
    assert.match(await page.locator('#planner-prod [data-testid=apply-finished]').textContent(),
      /verification failed.*NOT on the destination/);
    assert.equal(server.adminCalls.length, first + 1, 'nothing after the unverified move');
    const failed = await page.locator('#planner-prod [data-testid=apply-journal-step][data-status=failed]').count();
    assert.equal(failed, 1);
  } finally {
    await page.screenshot({ path: path.join(ARTIFACTS, 'embed-apply-verify.png'), fullPage: true });
    await page.close();
    await closeServer(server);
  }
});

/** The unload path of a bundle with its destinationBroker, as the rollback sends it. */
function backCall(u) {
  const i = u.bundle.lastIndexOf('/');
  return { path: `/admin/v2/namespaces/${u.bundle.slice(0, i)}/${u.bundle.slice(i + 1)}/unload`, destinationBroker: u.from };
}

function callsOf(server, from) {
  return server.adminCalls.slice(from).map((c) => {
    const u = new URL(c.url, server.baseUrl);
    return { method: c.method, path: u.pathname, destinationBroker: u.searchParams.get('destinationBroker'), authorization: c.authorization };
  });
}

async function journalStatuses(page) {
  return page.locator('#planner-prod [data-testid=apply-journal-step]').evaluateAll((els) => els.map((e) => e.dataset.status));
}

async function confirmRun(page, button, mode) {
  await page.locator(`#planner-prod [data-testid=${button}]`).click();
  const confirm = page.locator('#planner-prod [data-testid=apply-confirm]');
  await confirm.waitFor({ timeout: 10_000 });
  assert.equal(await confirm.getAttribute('data-mode'), mode);
  const listed = await confirm.locator('ol li').allTextContents();
  await acknowledge(page);
  await page.locator('#planner-prod [data-testid=apply-confirm-ok]').click();
  await page.waitForSelector('#planner-prod [data-testid=apply-finished]', { timeout: 20_000 });
  return listed;
}

test('An interrupted Apply resumes from its downloaded journal in a new page, then rolls back', { skip }, async () => {
  const server = await adminServer({ failAt: 2 });
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
  const w = await watch(page);
  let page2;
  try {
    const plan = await planWithApply(page, server, w);
    const want = expectedCalls(plan);
    assert.ok(want.length >= 3, 'the demo plan needs calls after the failing one');
    await confirmRun(page, 'apply-plan', 'apply');
    assert.match(await page.locator('#planner-prod [data-testid=apply-finished]').textContent(), /[Ss]topped/);
    assert.equal(server.adminCalls.length, 2);
    assert.deepEqual(await journalStatuses(page), ['done', 'failed', ...want.slice(2).map(() => 'pending')]);

    // The journal, downloaded: format_version 2, this plan's snapshot and the acknowledged
    // assessment, no credential.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('#planner-prod [data-testid=apply-journal-download]').click(),
    ]);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const file = path.join(ARTIFACTS, 'apply-resume-journal.json');
    await download.saveAs(file);
    const text = fs.readFileSync(file, 'utf8');
    assert.ok(!text.includes(TOKEN), 'the journal must not hold the credential');
    const saved = JSON.parse(text);
    assert.equal(saved.format_version, 2);
    assert.equal(saved.snapshot_fingerprint, plan.snapshot_fingerprint);
    assert.equal(saved.safety.acknowledged, true);
    assert.equal(saved.safety.context.verdict, 'better');
    assert.ok(saved.safety.hazards.some((h) => h.hazard === 'stale' || h.hazard === 'age_unknown'),
      JSON.stringify(saved.safety));
    assert.equal(saved.shedding_restored, true);
    assert.ok(saved.steps.every((s) => typeof s.expected === 'string'), 'each step states its expected effect');
    assert.deepEqual(saved.steps.map((s) => s.status), ['done', 'failed', ...want.slice(2).map(() => 'pending')]);
    await page.close();

    // A new page plans the same snapshot, loads the journal and resumes: exactly the calls not done.
    page2 = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const w2 = await watch(page2);
    const again = await planWithApply(page2, server, w2, { seed: false });
    assert.equal(again.snapshot_fingerprint, plan.snapshot_fingerprint);
    await page2.locator('#planner-prod [data-testid=apply-journal-file]').setInputFiles(file);
    await page2.waitForSelector('#planner-prod [data-testid=apply-journal-step][data-status=failed]', { timeout: 10_000 });
    const listed = await confirmRun(page2, 'apply-resume', 'resume');
    assert.equal(listed.length, want.length - 1, listed.join('\n'));
    assert.match(await page2.locator('#planner-prod [data-testid=apply-finished]').textContent(), /verified/);
    const resumed = callsOf(server, 2);
    assert.deepEqual(resumed.map((c) => [c.method, c.path, c.destinationBroker]),
      want.slice(1).map((c) => ['PUT', c.path, c.destinationBroker]));
    resumed.forEach((c) => assert.equal(c.authorization, `Bearer ${TOKEN}`));
    assert.deepEqual(await journalStatuses(page2), want.map(() => 'done'));

    // Roll back: each unload back to its source broker, last first; splits stay.
    const before = server.adminCalls.length;
    await confirmRun(page2, 'apply-rollback', 'rollback');
    assert.match(await page2.locator('#planner-prod [data-testid=apply-finished]').textContent(), /back.*verified/);
    const back = callsOf(server, before);
    assert.deepEqual(back.map((c) => [c.method, c.path, c.destinationBroker]),
      [...plan.unloads].reverse().map(backCall).map((c) => ['PUT', c.path, c.destinationBroker]));
    for (const u of plan.unloads) assert.equal(server.owners.get(u.bundle), u.from, `${u.bundle} is back on ${u.from}`);
    // The resume and the rollback each paused shedding and put it back, as the CLI does.
    assert.equal(server.sheddingCalls.at(-1), 'DELETE /admin/v2/brokers/configuration/loadBalancerSheddingEnabled');
    assert.equal(server.sheddingCalls.filter((c) => c.startsWith('DELETE')).length,
      server.sheddingCalls.filter((c) => c.endsWith('/false')).length, server.sheddingCalls.join('\n'));
    assert.deepEqual(await journalStatuses(page2),
      [...plan.splits.map(() => 'done'), ...plan.unloads.map(() => 'rolled_back')]);
    await page2.screenshot({ path: path.join(ARTIFACTS, 'apply-resume.png'), fullPage: true });
    await assertNoTokenKept(page2);
    await w2.assertClean();
  } finally {
    if (!page.isClosed()) await page.close();
    await page2?.close();
    await closeServer(server);
  }
});

test('Send waits for the dry run, which reads the brokers\' version: another profile needs the typed word', { skip }, async () => {
  const server = await adminServer({ version: '3.0.6' });
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const w = await watch(page);
  try {
    const plan = await planWithApply(page, server, w);
    // The embedding's `profile="4.x"`: the newest 4.0 release the release table knows.
    assert.equal(plan.profile, '4.0.14');
    await page.locator('#planner-prod [data-testid=apply-plan]').click();
    const confirm = page.locator('#planner-prod [data-testid=apply-confirm]');
    await confirm.waitFor({ timeout: 10_000 });
    // The dry run starts by itself; its result names the brokers' version and profile.
    const dry = confirm.locator('[data-testid=apply-dry-run-result]');
    await dry.waitFor({ timeout: 10_000 });
    assert.match(await dry.textContent(), /no bundle drifted\. Nothing was sent\. The brokers run Pulsar 3\.0\.6 \(profile 3\.0\.6\)\./);
    assert.equal(await dry.getAttribute('data-passed'), 'true');
    assert.ok(server.adminReads.some((u) => u === '/admin/v2/brokers/version'), server.adminReads.join('\n'));
    // Core's policy with the cluster's release: 4.0.14 and 3.0.6 decide differently (the release table).
    const hazards = await confirm.locator('[data-testid=apply-hazard]').allTextContents();
    assert.ok(hazards.includes("the plan was made with the 4.0.14 profile, the cluster's version is 3.0.6: re-plan with --profile 3.0.6"),
      hazards.join('\n'));
    assert.ok(await confirm.locator('[data-testid=apply-confirm-ok]').isDisabled(), 'refused until acknowledged');
    await acknowledge(page);
    await confirm.locator('[data-testid=apply-confirm-ok]').click();
    await page.waitForSelector('#planner-prod [data-testid=apply-finished]', { timeout: 20_000 });
    assert.match(await page.locator('#planner-prod [data-testid=apply-finished]').textContent(), /verified/);
    assert.equal(server.adminCalls.length, expectedCalls(plan).length);
  } finally {
    await page.close();
    await closeServer(server);
  }
});

test('Verify after an apply: the owners read live and the fresh report of the broker behind the admin URL', { skip }, async () => {
  const server = await adminServer();
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
  const w = await watch(page);
  try {
    const plan = await planWithApply(page, server, w);
    const served = plan.unloads[0].to;
    const predicted = plan.brokers_after.find((b) => b.broker === served).weighted_max_usage_fraction;
    // The served broker's report after the moves: its CPU at the plan's prediction, everything
    // else small (the demo's weights are Pulsar's defaults, 1.0).
    server.reportOf = (bundles) => ({
      webServiceUrl: `http://${served}`, pulsarServiceUrl: `pulsar://${served.replace(/:\d+$/, ':6650')}`,
      persistentTopicsEnabled: true, nonPersistentTopicsEnabled: true,
      cpu: { usage: predicted * 800, limit: 800 }, memory: { usage: 40, limit: 4096 },
      directMemory: { usage: 40, limit: 4096 }, bandwidthIn: { usage: 0, limit: 0 }, bandwidthOut: { usage: 0, limit: 0 },
      msgThroughputIn: 0, msgThroughputOut: 0, msgRateIn: 0, msgRateOut: 0,
      lastUpdate: Date.now(), lastStats: {}, numTopics: 0, numBundles: bundles.length, numConsumers: 0, numProducers: 0,
      bundles, lastBundleGains: [], lastBundleLosses: [], brokerVersionString: '4.0.3', loadReportType: 'LocalBrokerData',
    });
    server.reportOf.broker = served;
    assert.equal(await page.locator('#planner-prod [data-testid=apply-verify]').count(), 0, 'no Verify before a run');
    await confirmRun(page, 'apply-plan', 'apply');
    assert.match(await page.locator('#planner-prod [data-testid=apply-finished]').textContent(), /verified/);
    await page.locator('#planner-prod [data-testid=apply-verify]').click();
    const report = page.locator('#planner-prod [data-testid=apply-verification]');
    await report.waitFor({ timeout: 20_000 });
    assert.ok(server.adminReads.includes('/admin/v2/broker-stats/load-report'), server.adminReads.join('\n'));
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('#planner-prod [data-testid=apply-verify-download-json]').click(),
    ]);
    const file = path.join(ARTIFACTS, 'apply-verify.json');
    await download.saveAs(file);
    const v = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(v.format_version, 2);
    assert.equal(v.owners_read_live, true);
    assert.equal(v.plan_snapshot_fingerprint, plan.snapshot_fingerprint);
    // Every unload where predicted (the server moved each as asked), every split done.
    for (const u of plan.unloads) {
      const b = v.bundles.find((x) => x.bundle === u.bundle);
      assert.equal(b.status, 'as_predicted', JSON.stringify(b));
      assert.equal(b.found, u.to);
    }
    for (const s of plan.splits) assert.equal(v.bundles.find((x) => x.bundle === s.bundle).status, 'split');
    // The served broker reported after the apply and is compared; the other brokers the plan
    // moved load to or from still have the demo's reports: not yet reported since the apply.
    const dest = v.brokers.find((b) => b.broker === served);
    assert.equal(dest.not_yet_reported, false);
    assert.ok(Math.abs(dest.actual - predicted) < 0.001, JSON.stringify(dest));
    assert.equal(dest.within_tolerance, true);
    const touched = new Set(plan.unloads.flatMap((u) => [u.from, u.to]).concat(plan.splits.map((s) => s.broker)));
    touched.delete(served);
    for (const name of touched) {
      assert.equal(v.brokers.find((b) => b.broker === name).not_yet_reported, true, name);
    }
    assert.equal(v.not_yet_reported, touched.size);
    assert.equal(v.moved_back, 0);
    assert.match(v.summary, /^AS PREDICTED SO FAR: /);
    assert.match(await report.locator('[data-testid=apply-verify-text]').textContent(), /not yet reported since the apply/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'embed-apply-verify-report.png'), fullPage: true });
    await assertNoTokenKept(page);
    await w.assertClean();
  } finally {
    await page.close();
    await closeServer(server);
  }
});
