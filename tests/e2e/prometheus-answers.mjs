// What a Prometheus that scraped the demo cluster's brokers would answer to the range queries of
// `lbplan history --prometheus` (docs/history.md, "From Prometheus"), built from
// static/demo-snapshot.json for two one-minute steps, with the first broker's first bundle owned by
// the second broker at the second step (a move nobody's shedding explains): each broker's
// `pulsar_lb_*_usage` in percent of its limit, each bundle's `pulsar_bundle_msg_rate_in` exposed by
// its owner, `instance` = the brokerId. Shared by the JS API test and the dashboard's.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DEMO_PATH = path.join(ROOT, 'static', 'demo-snapshot.json');
export const demo = JSON.parse(fs.readFileSync(DEMO_PATH, 'utf8'));

const USAGE = { cpu: 'pulsar_lb_cpu_usage', memory: 'pulsar_lb_memory_usage',
  directMemory: 'pulsar_lb_directMemory_usage', bandwidthIn: 'pulsar_lb_bandwidth_in_usage',
  bandwidthOut: 'pulsar_lb_bandwidth_out_usage' };
export const T0 = 1750000000;

export const ids = Object.keys(demo.brokers);
const owned = (id) => Object.keys(demo.brokers[id].local_broker_data.lastStats);
export const moved = owned(ids[0])[0];
const ownerAt = (step, bundle, id) => (step === 1 && bundle === moved ? ids[1] : id);

/** `[{metric, response}]`: one `/api/v1/query_range` answer per metric. */
export function answers() {
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

/** The leader's log saying it made that move, 30 s into the interval, in 4.0's line format
 *  (`ModularLoadManagerImpl`'s "[ThresholdShedder] Unloading bundle: … from broker … to dest broker …"
 *  after Log4j 2's default pattern), with its election first. */
export function leaderLogText() {
  const at = (ms) => new Date(ms).toISOString().replace('Z', '+0000').replace('.', ',');
  const mod = 'org.apache.pulsar.broker.loadbalance.impl.ModularLoadManagerImpl';
  return `${at(T0 * 1000)} [main] INFO  org.apache.pulsar.broker.PulsarService - This broker ${ids[0]} was elected leader\n`
    + `${at(T0 * 1000 + 30_000)} [pulsar-load-manager-5-1] INFO  ${mod} - [ThresholdShedder] Unloading bundle: ${moved} from broker ${ids[0]} to dest broker ${ids[1]}\n`
    + `${at(T0 * 1000 + 60_000)} [pulsar-load-manager-5-1] INFO  ${mod} - Only 1 broker available: no load shedding will be performed\n`;
}
