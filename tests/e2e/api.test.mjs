// The JavaScript API (crates/wasm, built by scripts/build-api.sh into dist/api/) under Node: every
// export with real values from the reference and Pulsar's own tests, errors that name the JSON path,
// and the TypeScript declarations checked by compiling tests/api/usage.ts with `tsc --strict`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const API_NODE = path.join(ROOT, 'dist', 'api', 'node', 'lbplan_wasm.js');
const CORPUS = path.join(ROOT, 'crates', 'core', 'tests', 'import_corpus');

assert.ok(fs.existsSync(API_NODE),
  `no ${API_NODE}: run scripts/build-api.sh (scripts/test.sh does) before this test`);
const api = createRequire(import.meta.url)(API_NODE);

const demoText = fs.readFileSync(path.join(ROOT, 'static', 'demo-snapshot.json'), 'utf8');
const demo = () => JSON.parse(demoText);

test('hashTopic: the worked examples of reference §4.4', () => {
  const h = api.hashTopic('public/default', 4, 'my-topic');
  assert.equal(h.topic, 'persistent://public/default/my-topic');
  assert.equal(h.hash, 0x2bad45f7);
  assert.equal(h.hash, 732775927);
  assert.equal(h.hashHex, '0x2bad45f7');
  assert.equal(h.bundle, '0x00000000_0x40000000');
  assert.equal(h.bundleName, 'public/default/0x00000000_0x40000000');
  assert.equal(h.bundleIndex, 0);

  const four = ['0x00000000', '0x40000000', '0x80000000', '0xc0000000', '0xffffffff'];
  const p = api.hashTopic('public/default', four, 'persistent://public/default/my-topic-partition-2');
  assert.equal(p.hash, 3544523545);
  assert.equal(p.bundle, '0xc0000000_0xffffffff');
  const n = api.hashTopic('public/default', { boundaries: four, numBundles: 4 },
    'non-persistent://public/default/my-topic');
  assert.equal(n.hash, 2199789898);
  assert.equal(n.bundle, '0x80000000_0xc0000000');
});

test('hashTopic: bad input throws an Error naming the argument', () => {
  assert.throws(() => api.hashTopic('public/default', 0, 'my-topic'),
    (e) => e instanceof Error && e.message.startsWith('boundaries: '));
  assert.throws(() => api.hashTopic('public/default', ['0x0', 'zz'], 'my-topic'),
    (e) => e instanceof Error && e.message.startsWith('boundaries[1]: '));
  assert.throws(() => api.hashTopic('no-slash', 4, 'my-topic'),
    (e) => e instanceof Error && e.message.startsWith('namespace: '));
  assert.throws(() => api.hashTopic('acme/orders', 4, 'my-topic'),
    (e) => e instanceof Error && /^topic: .*bare name means public\/default/.test(e.message));
  assert.throws(() => api.hashTopic('public/default', 'four', 'my-topic'),
    (e) => e instanceof Error && e.message.startsWith('boundaries: '));
});

test('importFiles: a real load report (Pulsar LocalBrokerDataTest) becomes a snapshot', () => {
  const bytes = new Uint8Array(fs.readFileSync(path.join(CORPUS, 'reports', 'LocalBrokerDataTest.json')));
  const { snapshot, warnings } = api.importFiles([{ name: 'loadbalance/brokers/10.244.2.23:8080', bytes }]);
  assert.equal(snapshot.format_version, 1);
  const b = snapshot.brokers['10.244.2.23:8080'].local_broker_data;
  // The assertions of Pulsar's LocalBrokerDataTest#testLocalBrokerDataDeserialization.
  assert.equal(b.memory.limit, 1228);
  assert.equal(b.memory.usage, 614);
  assert.equal(b.cpu.usage, 3.1577712104798255);
  assert.equal(b.cpu.limit, 100);
  assert.equal(snapshot.captured_at_ms, 1650886425227);
  assert.ok(Array.isArray(warnings) && warnings.length > 0);
  assert.ok(warnings.some((w) => w.kind === 'default_bundle_data'), JSON.stringify(warnings));
  // The snapshot is plain data: it survives JSON and plans.
  const again = JSON.parse(JSON.stringify(snapshot));
  assert.equal(api.plan(again).format_version, 6);
});

test('importFiles: our own snapshot re-imports unchanged in its counts', () => {
  const { snapshot } = api.importFiles([{ name: 'demo-snapshot.json', bytes: new TextEncoder().encode(demoText) }]);
  const d = demo();
  assert.equal(snapshot.cluster, 'demo');
  assert.deepEqual(Object.keys(snapshot.brokers), Object.keys(d.brokers));
  assert.equal(Object.keys(snapshot.bundle_data).length, Object.keys(d.bundle_data).length);
});

test('importFiles: errors name the file and the JSON path', () => {
  const bytes = new Uint8Array(fs.readFileSync(path.join(CORPUS, 'malformed', 'wrong-type.json')));
  assert.throws(() => api.importFiles([{ name: 'malformed/wrong-type.json', bytes }]), (e) => {
    assert.ok(e instanceof Error);
    assert.equal(e.message,
      'malformed/wrong-type.json: $.cpu.limit: expected a number, found the string "eight hundred"');
    return true;
  });
  assert.throws(() => api.importFiles('x'), (e) => e instanceof Error && e.message.startsWith('files: '));
  assert.throws(() => api.importFiles([{ name: 'a.json', bytes: 42 }]),
    (e) => e instanceof Error && e.message.startsWith('files[0].bytes: '));
  assert.throws(() => api.importFiles([{ bytes: new Uint8Array() }]),
    (e) => e instanceof Error && e.message.startsWith('files[0].name: '));
  assert.throws(() => api.importFiles([]), (e) => e instanceof Error && /nothing to import/.test(e.message));
});

test('plan: the demo cluster sheds its hot broker', () => {
  const d = demo();
  const plan = api.plan(d);
  assert.equal(plan.format_version, 6);
  assert.equal(plan.profile, '4.0.7');
  assert.equal(plan.load_manager, 'modular');
  assert.ok(plan.unloads.length > 0, 'the demo has a hot broker to unload from');
  for (const u of plan.unloads) {
    assert.ok(u.from in d.brokers, u.from);
    assert.ok(u.to in d.brokers, String(u.to));
    assert.ok(u.bundle in d.bundle_data, u.bundle);
    assert.equal(u.origin, 'shedding');
  }
  assert.equal(plan.brokers_before.length, Object.keys(d.brokers).length);
  assert.ok(plan.balance_after.max_usage_fraction < plan.balance_before.max_usage_fraction);
  // Deterministic: same snapshot, options and seed give the same plan.
  assert.deepEqual(api.plan(d, { seed: 0 }), plan);
});

test('plan: options (profile, settings, operations, leaderCycle)', () => {
  const d = demo();
  const bundle = 'acme/orders/0x00000000_0x10000000';
  const manual = api.plan(d, {
    profile: '5.0',
    operations: [`unload-bundle=${bundle}->broker-01.demo.svc:8080`],
    leaderCycle: false,
    seed: 7,
    outlookCycles: 0,
  });
  assert.equal(manual.profile, '5.0.0');
  assert.equal(manual.seed, 7);
  assert.deepEqual(manual.operations, [`unload-bundle=${bundle}->broker-01.demo.svc:8080`]);
  assert.equal(manual.unloads.length, 1);
  assert.equal(manual.unloads[0].bundle, bundle);
  assert.equal(manual.unloads[0].to, 'broker-01.demo.svc:8080');
  assert.equal(manual.unloads[0].origin, 'manual');

  const off = api.plan(d, { settings: { loadBalancerSheddingEnabled: false }, outlookCycles: 0 });
  assert.deepEqual(off.settings, [['loadBalancerSheddingEnabled', 'false']]);
  assert.equal(off.unloads.length, 0);
});

test('plan and rebalance: options.calibration (what `lbplan history --calibrate` writes)', () => {
  const calibration = { format_version: 1, cpu_cost_factors: { 'broker-10.demo.svc:8080': 2 }, fits: [] };
  const plain = api.plan(demo());
  const calibrated = api.plan(demo(), { calibration });
  assert.equal(plain.cpu_cost_factors, undefined, 'the default model names no factors');
  assert.deepEqual(calibrated.cpu_cost_factors, { 'broker-10.demo.svc:8080': 2 });
  // The same decisions (Pulsar's strategies do not read the planner's model) …
  const moves = (p) => p.unloads.map((u) => `${u.bundle} ${u.from}->${u.to}`);
  assert.deepEqual(moves(calibrated), moves(plain));
  // … and broker-10, at factor 2, rises twice as much from the same bundles (work × 2 ÷ 1).
  const cpu = (list) => list.find((b) => b.broker === 'broker-10.demo.svc:8080').cpu_pct;
  const rise = (p) => cpu(p.brokers_after) - cpu(p.brokers_before);
  assert.ok(rise(plain) > 0);
  assert.ok(Math.abs(rise(calibrated) - 2 * rise(plain)) < 1e-3, `${rise(plain)} ${rise(calibrated)}`);
  const proposal = api.rebalance(demo(), { calibration });
  assert.deepEqual(proposal.plan.cpu_cost_factors, { 'broker-10.demo.svc:8080': 2 });
  assert.throws(() => api.plan(demo(), { calibration: { ...calibration, format_version: 3 } }),
    (e) => e instanceof Error && e.message.startsWith('options.calibration: $.format_version: 3'));
});

test('plan explain "summary" and explainDecision: the details on demand', () => {
  const d = demo();
  const full = api.plan(d);
  assert.equal(full.explained, undefined);
  const light = api.plan(d, { explain: 'summary' });
  assert.equal(light.explained.level, 'summary');
  // The same decisions with the same reasons; only the details are left out.
  assert.equal(light.unloads.length, full.unloads.length);
  full.unloads.forEach((u, i) => {
    assert.equal(light.unloads[i].bundle, u.bundle);
    assert.equal(light.unloads[i].reason_text, u.reason_text);
    assert.deepEqual(light.unloads[i].reason, u.reason);
    assert.equal(light.unloads[i].detail, null);
    // Each detail on demand is the full plan's.
    const detail = api.explainDecision(d, { explain: 'summary' }, { kind: 'unload', bundle: u.bundle });
    assert.deepEqual(detail, u.detail);
  });
  assert.ok(full.unloads[0].detail.placement.stages.length > 0);
  assert.equal(api.explainDecision(d, {}, { kind: 'split', bundle: 'no/such/0x00000000_0x10000000' }), null);
  assert.throws(() => api.explainDecision(d, {}, { kind: 'move', bundle: 'x' }),
    (e) => e instanceof Error && e.message.startsWith('decision: '));
  assert.throws(() => api.plan(d, { explain: 'none' }),
    (e) => e instanceof Error && e.message.startsWith('options.explain: '));
});

test('plan: a malformed snapshot throws an Error naming the JSON path', () => {
  const d = demo();
  d.brokers['broker-00.demo.svc:8080'].local_broker_data.cpu.limit = 'lots';
  assert.throws(() => api.plan(d), (e) => {
    assert.ok(e instanceof Error, String(e));
    assert.match(e.message,
      /^\$\.brokers\["broker-00\.demo\.svc:8080"\]\.local_broker_data\.cpu\.limit: expected a number/);
    return true;
  });
  assert.throws(() => api.plan({ format_version: 2 }), (e) => e instanceof Error && e.message.startsWith('$.format_version: '));
  assert.throws(() => api.plan({ cluster: 'x' }), (e) => e instanceof Error && e.message.startsWith('$.format_version: '));
  assert.throws(() => api.plan(null), (e) => e instanceof Error && e.message.startsWith('$: '));
  assert.throws(() => api.plan(demo(), { seed: -1 }), (e) => e instanceof Error && e.message.startsWith('options.seed: '));
  assert.throws(() => api.plan(demo(), { sead: 1 }), (e) => e instanceof Error && e.message.startsWith('options.sead: unknown option'));
  assert.throws(() => api.plan(demo(), { operations: ['bogus'] }),
    (e) => e instanceof Error && e.message.startsWith('options.operations[0]: '));
  assert.throws(() => api.plan(demo(), { settings: { loadBalancerBrokerThresholdShedderPercentage: 'ten' } }),
    (e) => e instanceof Error && /loadBalancerBrokerThresholdShedderPercentage/.test(e.message));
  assert.throws(() => api.plan(demo(), { seed: 10n ** 20n }), (e) => e instanceof Error && e.message.startsWith('options'));
});

test('exportPlan: pulsar-admin, curl and json', () => {
  const plan = api.plan(demo());
  const first = plan.unloads[0];
  const [tenant, ns, range] = first.bundle.split('/');
  const admin = api.exportPlan(plan, 'pulsar-admin');
  assert.ok(admin.startsWith('#!/usr/bin/env bash\n'));
  assert.ok(admin.includes(`namespaces unload --bundle '${range}' --destinationBroker '${first.to}' -- '${tenant}/${ns}'`), admin);
  const curl = api.exportPlan(plan, 'curl');
  assert.ok(curl.includes(`/admin/v2/namespaces/${tenant}/${ns}/${range}/unload`), curl);
  const json = api.exportPlan(plan, 'json');
  assert.deepEqual(JSON.parse(json), plan);
  const paused = api.exportPlan(plan, 'pulsar-admin', { pauseAutomaticShedding: true });
  assert.ok(paused.includes('\n  pause_shedding\n'), paused);

  assert.throws(() => api.exportPlan(plan, 'yaml'), (e) => e instanceof Error && e.message.startsWith('format: '));
  const bad = structuredClone(plan);
  bad.unloads[0].bundle = 7;
  assert.throws(() => api.exportPlan(bad, 'curl'), (e) => e instanceof Error && e.message.startsWith('plan.unloads[0].bundle: '));
  const hostile = structuredClone(plan);
  hostile.unloads[0].bundle = "a/b/0x0_0x1'; rm -rf / #";
  assert.throws(() => api.exportPlan(hostile, 'pulsar-admin'), (e) => e instanceof Error);
});

test('simulate: a scenario over cycles, with progress and cancel', () => {
  const calls = [];
  const c = api.simulate(demo(), {
    scenario: 'steady', cycles: 4, seed: 1,
    compare: ['name=threshold', { name: 'uniform', settings: {
      loadBalancerLoadSheddingStrategy: 'org.apache.pulsar.broker.loadbalance.impl.UniformLoadShedder' } }],
  }, (done, total) => { calls.push([done, total]); });
  assert.equal(c.format_version, 3);
  assert.equal(c.scenario, 'steady');
  assert.equal(c.cycles, 4);
  assert.deepEqual(c.runs.map((r) => r.config.name), ['threshold', 'uniform']);
  assert.equal(c.runs[1].shedding_strategy, 'org.apache.pulsar.broker.loadbalance.impl.UniformLoadShedder');
  for (const r of c.runs) {
    assert.equal(r.cycles.length, 4);
    assert.equal(r.cancelled, false);
    assert.equal(r.summary.cycles_run, 4);
  }
  // The demo's hot broker is shed on the first cycle (as plan() says).
  assert.ok(c.runs[0].cycles[0].bundles_unloaded > 0, JSON.stringify(c.runs[0].cycles[0]));
  assert.deepEqual(calls.at(-1), [8, 8]);
  assert.equal(calls.length, 8);

  const stopped = api.simulate('builtin:demo', { cycles: 10 }, (done) => done < 2);
  assert.equal(stopped.runs[0].cancelled, true);
  assert.equal(stopped.runs[0].cycles.length, 2);

  assert.throws(() => api.simulate(demo(), { cycles: 3 }, () => { throw new Error('boom'); }),
    (e) => e instanceof Error && e.message === 'onProgress: threw: boom');
  assert.throws(() => api.simulate(demo(), { scenario: 'nope' }),
    (e) => e instanceof Error && e.message.startsWith('options.scenario: unknown built-in scenario'));
  assert.throws(() => api.simulate(demo(), { scenario: { format_version: 1, load: { noise_fraction: 'x' } } }),
    (e) => e instanceof Error && e.message.startsWith('options.scenario.load.noise_fraction: '));
});

test('version', () => {
  assert.match(api.version(), /^\d+\.\d+\.\d+/);
});

test('TypeScript: tests/api/usage.ts compiles against the generated .d.ts (tsc --noEmit --strict)', () => {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  assert.ok(fs.existsSync(tsc), 'no typescript in node_modules: run scripts/setup.sh (npm ci)');
  try {
    execFileSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tests', 'api', 'tsconfig.json')],
      { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    assert.fail(`tsc failed:\n${e.stdout}${e.stderr}`);
  }
});
