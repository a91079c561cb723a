// The JavaScript API's history from Prometheus (crates/wasm `explainHistoryFromPrometheus`, built by
// scripts/build-api.sh into dist/api/) under Node: an embedding portal hands over the
// `/api/v1/query_range` answers it fetched (the API never calls a server); the demo cluster's
// brokers at two one-minute steps with one bundle moved by hand between them. Alone, and as one
// `lbplan-prometheus-ranges` document bundling the answers: the same report, built from
// Prometheus and saying so; a document of another version is refused naming the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const API_NODE = path.join(ROOT, 'dist', 'api', 'node', 'lbplan_wasm.js');
assert.ok(fs.existsSync(API_NODE),
  `no ${API_NODE}: run scripts/build-api.sh (scripts/test.sh does) before this test`);
const api = createRequire(import.meta.url)(API_NODE);
const demo = JSON.parse(fs.readFileSync(path.join(ROOT, 'static', 'demo-snapshot.json'), 'utf8'));

const USAGE = { cpu: 'pulsar_lb_cpu_usage', memory: 'pulsar_lb_memory_usage',
  directMemory: 'pulsar_lb_directMemory_usage', bandwidthIn: 'pulsar_lb_bandwidth_in_usage',
  bandwidthOut: 'pulsar_lb_bandwidth_out_usage' };
const T0 = 1750000000;

// Owners at each step: the demo's, then its first broker's first bundle on the second broker.
const ids = Object.keys(demo.brokers);
const owned = (id) => Object.keys(demo.brokers[id].local_broker_data.lastStats);
const moved = owned(ids[0])[0];
const ownerAt = (step, bundle, id) => (step === 1 && bundle === moved ? ids[1] : id);

function answers() {
  const series = {};
  const add = (metric, labels, t, v) => {
    const key = metric + JSON.stringify(labels);
    series[key] ??= { metric, labels, values: [] };
    series[key].values.push([t, String(v)]);
  };
  for (const step of [0, 1]) {
    const t = T0 + 60 * step;
    for (const id of ids) {
      const l = demo.brokers[id].local_broker_data;
      for (const [field, metric] of Object.entries(USAGE)) {
        const r = l[field];
        add(metric, { instance: id }, t, r.limit > 0 ? (r.usage / r.limit) * 100 : 0);
      }
      for (const [bundle, s] of Object.entries(l.lastStats)) {
        add('pulsar_bundle_msg_rate_in', { instance: ownerAt(step, bundle, id), bundle }, t, s.msgRateIn ?? 0);
      }
    }
  }
  const byMetric = {};
  for (const s of Object.values(series)) {
    byMetric[s.metric] ??= [];
    byMetric[s.metric].push({ metric: { __name__: s.metric, ...s.labels }, values: s.values });
  }
  return Object.entries(byMetric).map(([metric, result]) => ({
    metric, response: { status: 'success', data: { resultType: 'matrix', result } } }));
}

const enc = (v) => new TextEncoder().encode(JSON.stringify(v));

test('explainHistoryFromPrometheus: answers handed over, a move between two steps', () => {
  const all = answers();
  const files = all.map((a) => ({ name: `${a.metric}.json`, bytes: enc(a.response) }));
  const r = api.explainHistoryFromPrometheus(files, { layout: demo });
  assert.equal(r.format_version, 4);
  assert.equal(r.basis.source, 'prometheus');
  assert.equal(r.basis.attribution, 'consistent_with_leader');
  assert.equal(r.basis.bundle_source, 'bundle_metrics');
  assert.deepEqual(r.times_ms, [T0 * 1000, (T0 + 60) * 1000]);
  const moves = r.changes.filter((c) => c.change.kind === 'moved');
  assert.equal(moves.length, 1);
  assert.deepEqual([moves[0].change.bundle, moves[0].change.from, moves[0].change.to], [moved, ids[0], ids[1]]);

  const doc = { format_version: 1, kind: 'lbplan-prometheus-ranges', step_ms: 60000, results: all };
  const same = api.explainHistoryFromPrometheus([{ name: 'ranges.json', bytes: enc(doc) }], { layout: demo });
  assert.deepEqual(same.changes, r.changes);

  assert.throws(
    () => api.explainHistoryFromPrometheus([{ name: 'ranges.json', bytes: enc({ ...doc, format_version: 2 }) }]),
    (e) => e instanceof Error && e.message.includes('ranges.json: $.format_version 2 is not 1'));
});
