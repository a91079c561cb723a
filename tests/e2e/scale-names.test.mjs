// End-to-end: the dashboard readable with real, long broker ids, at the demo's 12 brokers and at
// 1,000. The snapshot is built here from the committed demo: its brokers cloned up to N with
// Kubernetes-style ids (`pulsar-broker-123.pulsar-broker.pulsar-prod.svc.cluster.local:8080`, 66
// characters), each with its own heartbeat namespace, and the demo's tenants copied so every clone
// owns the bundles of the broker it copies (≈ 10,400 bundles at 1,000 brokers: the size of the
// brokers, not of the bundles, is what this test is about; 200,000 bundles are the bench's). Then a
// three-snapshot series of it where bundles move (one goes back: a ping-pong).
//
// Checks, by core's display-name rule (`naming::BrokerNames`: the shared DNS suffix and the usual
// port dropped): the Brokers table's rows show `pulsar-broker-N`, not cut; the Find box finds a
// broker by that short name; the plan's From and To columns are both readable and its reasons name
// brokers short with the full id on hover; the History view's per-broker totals, ping-pong list,
// lane owners, changes and reasons show short names. Screenshots of the Brokers table, the plan,
// Rebalance and History go to test-artifacts/scale-{demo,1000}-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, ARTIFACTS, start, recordingPage, screenshotOf, waitForRows } from './dashboard-helpers.mjs';

const demo = JSON.parse(fs.readFileSync(path.join(ROOT, 'static', 'demo-snapshot.json'), 'utf8'));
const DEMO_IDS = Object.keys(demo.brokers);
const SUFFIX = '.pulsar-broker.pulsar-prod.svc.cluster.local:8080';
const id = (i) => `pulsar-broker-${i}${SUFFIX}`;
const SHORT = /^pulsar-broker-\d+$/;

/** The demo with `brokers` brokers (broker i a clone of the demo's broker i mod 12) under long
 * ids, and the demo's tenants copied once per 12 brokers. */
function scaled(brokers) {
  const s = structuredClone(demo);
  s.brokers = {};
  s.bundle_data = {};
  s.namespaces = {};
  s.leader_broker = id(0);
  const heartbeat = (b) => `pulsar/${b}`;
  const tenantNs = Object.keys(demo.namespaces).filter((ns) => !ns.startsWith('pulsar/'));
  const ours = (bundle) => tenantNs.some((ns) => bundle.startsWith(`${ns}/`));
  const rename = (name, k) => (k === 0 ? name : `${name.split('/')[0]}-c${k}/${name.split('/').slice(1).join('/')}`);
  for (let i = 0; i < brokers; i++) {
    const j = i % DEMO_IDS.length;
    const src = demo.brokers[DEMO_IDS[j]];
    const b = structuredClone(src);
    const host = id(i).split(':')[0];
    const data = b.local_broker_data;
    data.webServiceUrl = `http://${host}:8080`;
    data.pulsarServiceUrl = `pulsar://${host}:6650`;
    data.bundles = [];
    data.lastStats = {};
    // Its own heartbeat namespace (`pulsar/<brokerId>`), as every Pulsar broker has.
    const [from, to] = [heartbeat(DEMO_IDS[j]), heartbeat(id(i))];
    for (const bundle of src.local_broker_data.bundles.filter((x) => x.startsWith(`${from}/`))) {
      const renamed = to + bundle.slice(from.length);
      data.bundles.push(renamed);
      if (src.local_broker_data.lastStats?.[bundle]) data.lastStats[renamed] = src.local_broker_data.lastStats[bundle];
      if (demo.bundle_data[bundle]) s.bundle_data[renamed] = demo.bundle_data[bundle];
    }
    if (demo.namespaces[from]) s.namespaces[to] = demo.namespaces[from];
    s.brokers[id(i)] = b;
  }
  // Copy k of the tenants goes to brokers 12k … 12k + 11 (wrapping round past the last broker).
  const copies = Math.ceil(brokers / DEMO_IDS.length);
  for (let k = 0; k < copies; k++) {
    for (const ns of tenantNs) s.namespaces[rename(ns, k)] = demo.namespaces[ns];
    for (const [b, d] of Object.entries(demo.bundle_data)) if (ours(b)) s.bundle_data[rename(b, k)] = d;
    DEMO_IDS.forEach((demoId, j) => {
      const theirs = demo.brokers[demoId].local_broker_data;
      const mine = s.brokers[id((k * DEMO_IDS.length + j) % brokers)].local_broker_data;
      for (const b of theirs.bundles) if (ours(b)) mine.bundles.push(rename(b, k));
      for (const [b, st] of Object.entries(theirs.lastStats ?? {})) if (ours(b)) mine.lastStats[rename(b, k)] = st;
    });
  }
  for (const broker of Object.values(s.brokers)) {
    broker.local_broker_data.numBundles = broker.local_broker_data.bundles.length;
  }
  return s;
}

/** `bundle` moved from broker `from` to `to` in `s` (its list and its stats). */
function move(s, bundle, from, to) {
  const a = s.brokers[id(from)].local_broker_data;
  const b = s.brokers[id(to)].local_broker_data;
  assert.ok(a.bundles.includes(bundle), `${bundle} on ${id(from)}`);
  a.bundles = a.bundles.filter((x) => x !== bundle);
  b.bundles.push(bundle);
  if (a.lastStats[bundle]) {
    b.lastStats[bundle] = a.lastStats[bundle];
    delete a.lastStats[bundle];
  }
  a.numBundles = a.bundles.length;
  b.numBundles = b.bundles.length;
}

/** A series of three one-minute snapshots of `s`: two tenant bundles of the first broker move to
 * the last one, then one of them comes back (a return within the hour: ping-pong). */
/** The two tenant bundles of broker 0 that the series moves. */
function s1Moves(s) {
  return s.brokers[id(0)].local_broker_data.bundles.filter((b) => !b.startsWith('pulsar/')).slice(0, 2);
}

function series(s, brokers) {
  const last = brokers - 1;
  const tenant = s1Moves(s);
  assert.equal(tenant.length, 2);
  const s1 = structuredClone(s);
  s1.captured_at_ms = s.captured_at_ms + 60_000;
  for (const b of tenant) move(s1, b, 0, last);
  const s2 = structuredClone(s1);
  s2.captured_at_ms = s1.captured_at_ms + 60_000;
  move(s2, tenant[0], last, 0);
  return [s, s1, s2];
}

/** The elements of `selector` whose text is cut (ellipsised) in their box. */
async function cutTexts(page, selector) {
  return page.locator(selector).evaluateAll((els) => els
    .filter((e) => e.scrollWidth > e.clientWidth + 1)
    .map((e) => e.textContent));
}

/** No text of `selector` shows a full id (the shared suffix is only in titles). */
async function assertNoFullIds(page, selector, what) {
  const texts = await page.locator(selector).allTextContents();
  assert.ok(texts.length > 0, `${what}: nothing at ${selector}`);
  for (const t of texts) assert.ok(!t.includes('.svc.cluster.local'), `${what} shows a full id: ${t}`);
  return texts;
}

let env;
before(async () => {
  env = await start();
});
after(async () => {
  await env?.close();
});

for (const [brokers, label, timeout] of [[12, 'demo', 180_000], [1000, '1000', 600_000]]) {
  test(`${brokers} brokers with 66-character ids: short names in tables, plan, reasons, Find and History`, { timeout }, async () => {
    const snapshot = scaled(brokers);
    const bundles = Object.keys(snapshot.bundle_data).length;
    const context = await env.browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const { page, diagnostics, assertClean } = await recordingPage(context);
    const files = [];
    const write = (name, value) => {
      const file = path.join(ARTIFACTS, name);
      fs.writeFileSync(file, JSON.stringify(value));
      files.push(file);
      return file;
    };
    try {
      await page.goto(env.baseUrl, { waitUntil: 'load' });
      await waitForRows(page, diagnostics);
      await page.setInputFiles('[data-testid=snapshot-input]', write(`scale-${label}.json`, snapshot));
      await page.waitForFunction(([b, n]) => document.querySelector('[data-testid=broker-count]')?.textContent === String(b)
        && document.querySelector('[data-testid=bundle-count]')?.textContent === String(n), [brokers, bundles], { timeout: 120_000 })
        .catch(async (e) => assert.fail(`${e}\nbanner: ${await page.textContent('[data-testid=error-banner]').catch(() => '')}\n${diagnostics()}`));

      // Brokers: each row the part that differs, whole (not ellipsised), the full id on hover.
      const rows = await page.locator('[data-testid=broker-select]').evaluateAll((bs) => bs.map((b) => ({
        text: b.textContent, title: b.title, id: b.closest('tr').dataset.broker,
      })));
      assert.ok(rows.length > 0);
      for (const r of rows) {
        assert.match(r.text, SHORT, JSON.stringify(r));
        assert.equal(r.id, `${r.text}${SUFFIX}`);
        assert.ok(r.title.startsWith(r.id), JSON.stringify(r));
      }
      assert.deepEqual(await cutTexts(page, '[data-testid=broker-row] th'), []);
      // The scroll box, not the table: a virtualised table is as tall as all its rows.
      await screenshotOf(page, '[data-testid=broker-scroll]', `scale-${label}-brokers.png`);

      // Find: a broker by the short name the tables show.
      const wanted = `pulsar-broker-${brokers > 123 ? 123 : 3}`;
      await page.fill('[data-testid=map-search]', wanted);
      await page.press('[data-testid=map-search]', 'Enter');
      await page.waitForFunction(() => document.querySelector('[data-testid=map-search-result]')?.textContent.length > 0);
      assert.equal(await page.textContent('[data-testid=map-search-result]'),
        `namespaces with bundles on ${wanted} (${wanted}${SUFFIX})`);

      // The plan: From and To readable in their columns; reasons name brokers short, full id on hover.
      await page.click('[data-testid=run-plan]');
      await page.waitForSelector('[data-testid=plan-move-group]', { timeout: 120_000 });
      await page.waitForFunction(() => !document.querySelector('[data-testid=plan-pending]'), null, { timeout: 120_000 });
      // Moves grouped by the broker they leave, each group's name short, the full id its title.
      const groups = await page.locator('[data-testid=plan-move-group] [data-testid=plan-group-name]')
        .evaluateAll((ns) => ns.map((n) => [n.textContent, n.title]));
      assert.ok(groups.length > 0);
      for (const [text, title] of groups) {
        assert.match(text, SHORT);
        assert.equal(title, `${text}${SUFFIX}`);
      }
      // Many groups start closed (core's `plan_lists::OPEN_GROUPS`): open the first three.
      if (await page.locator('[data-testid=plan-move]').count() === 0) {
        for (let k = 0; k < Math.min(3, groups.length); k++) {
          await page.locator('[data-testid=plan-move-group] .group-toggle[aria-expanded=false]').first().click();
        }
        await page.waitForSelector('[data-testid=plan-move]', { timeout: 10_000 });
      }
      const moves = await page.locator('[data-testid=plan-move]').evaluateAll((rs) => rs.map((r) => ({
        from: r.querySelector('[data-testid=plan-move-from]').textContent,
        to: r.querySelector('[data-testid=plan-move-to]').textContent.trim(),
        data: [r.dataset.from, r.dataset.to],
        named: [...r.querySelectorAll('.reason .broker-name')].map((s) => [s.textContent, s.title]),
      })));
      assert.ok(moves.length > 0);
      for (const m of moves) {
        assert.match(m.from, SHORT, JSON.stringify(m));
        assert.match(m.to, SHORT, JSON.stringify(m));
        assert.equal(m.data[0], `${m.from}${SUFFIX}`);
        assert.equal(m.data[1], `${m.to}${SUFFIX}`);
        // The placement's half of the reason names the destination (`… chose <broker>`).
        assert.ok(m.named.some(([text, title]) => text === m.to && title === m.data[1]), JSON.stringify(m));
        for (const [text, title] of m.named) assert.equal(title, `${text}${SUFFIX}`);
      }
      assert.deepEqual(await cutTexts(page, '[data-testid=plan-move-to], [data-testid=plan-move-from]'), []);
      await assertNoFullIds(page, '[data-testid=plan-move] .reason', 'a move\'s reason');
      await page.locator('[data-testid=plan-move] [data-testid=plan-pick]').first().click();
      await page.waitForSelector('[data-testid=plan-detail-reason]');
      await assertNoFullIds(page, '[data-testid=plan-detail-reason]', 'the picked move\'s reason');
      // Its numbers: the destination and the runner-up by short name too.
      await assertNoFullIds(page, '[data-testid=plan-detail-numbers] dd', 'the picked move\'s numbers');
      // Skipped decisions: the first 20 listed, the rest behind "Show all" (hundreds at this size).
      if (await page.locator('[data-testid=plan-skipped]').count() > 0) {
        const skipped = await page.locator('[data-testid=plan-skipped] li').count();
        assert.ok(skipped <= 20, `${skipped} skipped decisions listed`);
        await assertNoFullIds(page, '[data-testid=plan-skipped] li', 'a skipped decision');
        const total = Number((await page.textContent('h3:has-text("Skipped decisions")')).match(/\((\d+)\)/)[1]);
        if (total > 20) {
          await page.click('[data-testid=plan-skipped-all]');
          await page.waitForFunction((n) => document.querySelectorAll('[data-testid=plan-skipped] li').length === n, total);
          await page.click('[data-testid=plan-skipped-all]');
        }
      }
      await screenshotOf(page, '[data-testid=plan]', `scale-${label}-plan.png`);

      // Rebalance toward the default goal: its proposal's moves by short name.
      await page.click('[data-testid=nav-rebalance]');
      await page.click('[data-testid=run-rebalance]');
      await page.waitForSelector('[data-testid=rebalance-result], [data-testid=rebalance-error]', { timeout: 300_000 });
      assert.equal(await page.locator('[data-testid=rebalance-error]').count(), 0,
        (await page.locator('[data-testid=rebalance-error]').allTextContents()).join());
      const proposed = page.locator('[data-testid=rebalance-panel] [data-testid=plan-move-to]');
      if (await proposed.count() > 0) {
        for (const t of await proposed.allTextContents()) assert.match(t.trim(), SHORT);
      }
      await screenshotOf(page, '[data-testid=rebalance-panel]', `scale-${label}-rebalance.png`);

      // History of three snapshots: per-broker totals, the ping-pong, lanes' owners, changes and
      // their reasons by short name.
      const steps = series(snapshot, brokers).map((s, k) => write(`scale-${label}-series-${k}.json`, s));
      await page.click('[data-testid=sections-nav] a:has-text("History")');
      await page.setInputFiles('[data-testid=history-files-input]', steps);
      await Promise.race([
        page.waitForSelector('[data-testid=history-change]', { timeout: 300_000 }),
        page.waitForSelector('[data-testid=history-error]', { timeout: 300_000 }).then(async () => {
          assert.fail(`history error: ${await page.textContent('[data-testid=history-error]')}\n${diagnostics()}`);
        }),
      ]);
      const totals = await page.locator('[data-testid=history-broker] td:first-child').evaluateAll((tds) => tds.map((td) => [td.textContent, td.title]));
      assert.ok(totals.length >= 2, JSON.stringify(totals));
      for (const [text, title] of totals) {
        assert.match(text, SHORT);
        assert.equal(title, `${text}${SUFFIX}`);
      }
      const pingPong = await assertNoFullIds(page, '[data-testid=history-ping-pong-row]', 'ping-pong');
      assert.ok(pingPong.some((t) => t.includes(`pulsar-broker-0 → pulsar-broker-${brokers - 1} → pulsar-broker-0`)), pingPong.join('\n'));
      const changes = await assertNoFullIds(page, '[data-testid=history-change]', 'a change');
      assert.ok(changes.some((t) => t.includes(`pulsar-broker-0 → pulsar-broker-${brokers - 1}`)), changes.join('\n'));
      await assertNoFullIds(page, '[data-testid=history-owners]', 'a lane\'s owners');
      // The lanes list the namespaces whose bundles moved first; the brokers' own heartbeat and
      // SLA-monitor namespaces (one each per broker) come after every other namespace.
      const moved = new Set(s1Moves(snapshot).map((b) => b.split('/').slice(0, 2).join('/')));
      const shownLanes = await page.locator('[data-testid=history-lane]').evaluateAll((fs) => fs.map((f) => f.dataset.namespace));
      assert.ok(moved.has(shownLanes[0]), `first lane ${shownLanes[0]}, moved in ${[...moved]}`);
      const firstSystem = shownLanes.findIndex((n) => n.startsWith('pulsar/'));
      assert.ok(firstSystem === -1 || shownLanes.slice(firstSystem).every((n) => n.startsWith('pulsar/')),
        `a tenant's namespace listed after a broker's own: ${shownLanes}`);
      // One broker is picked for the lanes' colouring with the cluster's broker picker: a select of
      // short names at 12 brokers, a search field past 64 whose suggestions (short name, full id
      // beside it) are in the page only while it has the focus.
      const picked = `pulsar-broker-${brokers - 1}`;
      const picker = '[data-testid=history-colouring-broker]';
      if (brokers <= 64) {
        const options = await page.locator(`${picker} option`).evaluateAll((os) => os.map((o) => [o.textContent, o.title]));
        assert.equal(options.length, brokers + 1);
        for (const [text, title] of options.slice(1)) assert.equal(title, `${text}${SUFFIX}`);
        await page.selectOption(picker, `${picked}${SUFFIX}`);
      } else {
        assert.equal(await page.locator(picker).evaluate((e) => e.tagName), 'INPUT');
        assert.equal(await page.locator('#history-colouring-broker-brokers option').count(), 0);
        await page.fill(picker, picked);
        const options = await page.locator('#history-colouring-broker-brokers option').evaluateAll((os) => os.map((o) => [o.value, o.label]));
        assert.equal(options.length, brokers);
        for (const [value, label] of options) assert.equal(label, `${value}${SUFFIX}`);
        await page.dispatchEvent(picker, 'change');
      }
      await page.waitForFunction((id) => document.querySelector('[data-testid=history-colouring]').value === `broker:${id}`, `${picked}${SUFFIX}`);
      const legend = await page.textContent('[data-testid=history-lanes-legend]');
      assert.ok(legend.includes(`coloured = owned by ${picked},`), legend);
      assert.ok(!legend.includes(SUFFIX), legend);
      if (brokers > 64) {
        await page.fill(picker, 'pulsar-broker-99999');
        await page.dispatchEvent(picker, 'change');
        assert.match(await page.textContent("[data-testid=history-colouring-broker-error]"), /no such broker/);
      }
      // No broker <select> of the whole cluster anywhere in the page at 1,000 brokers (each was
      // 1,001 options laid out when the snapshot was shown).
      const biggest = await page.locator('select').evaluateAll((ss) => Math.max(0, ...ss.map((s) => s.options.length)));
      assert.ok(brokers <= 64 || biggest <= 100, `a select of ${biggest} options`);
      await page.locator('[data-testid=history-change]').first().click();
      await assertNoFullIds(page, '[data-testid=history-reason]', 'a change\'s reason');
      await screenshotOf(page, '[data-testid=history-view]', `scale-${label}-history.png`);
      assertClean();
    } finally {
      await context.close();
      for (const f of files) fs.rmSync(f, { force: true });
    }
  });
}
