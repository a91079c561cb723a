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
import { answers, demo, ids, moved, T0, leaderLogText } from './prometheus-answers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const API_NODE = path.join(ROOT, 'dist', 'api', 'node', 'lbplan_wasm.js');
assert.ok(fs.existsSync(API_NODE),
  `no ${API_NODE}: run scripts/build-api.sh (scripts/test.sh does) before this test`);
const api = createRequire(import.meta.url)(API_NODE);
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

test('explainHistoryFromPrometheus with the leader\'s log: the move the replay leaves unexplained is the leader\'s', () => {
  const files = answers().map((a) => ({ name: `${a.metric}.json`, bytes: enc(a.response) }));
  const r = api.explainHistoryFromPrometheus(files, { layout: demo, leaderLog: [leaderLogText()] });
  const log = r.leader_log;
  assert.equal(log.actions, 1);
  assert.equal(log.confirmed.length, 0);
  assert.equal(log.not_predicted.length, 1);
  assert.equal(log.not_predicted[0].action.bundle, moved);
  assert.equal(log.not_predicted[0].action.to, ids[1]);
  assert.equal(log.files[0].leader, ids[0]);
  assert.throws(() => api.explainHistoryFromPrometheus(files, { leaderLog: 'x' }),
    (e) => e instanceof Error && e.message.includes('options.leaderLog'));
});
