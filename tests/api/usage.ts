// Compiled (never run) by tests/e2e/api.test.mjs with `tsc --noEmit --strict` against the generated
// declarations: the documented usage type-checks, and misuse does not (`@ts-expect-error` lines fail
// the build if the declarations ever stop catching them).
import init, {
  exportPlan,
  hashTopic,
  importFiles,
  plan,
  simulate,
  type Comparison,
  type ExportFormat,
  type ImportResult,
  type Plan,
  type PlanOptions,
  type PlannedUnload,
  type Snapshot,
  type TopicHash,
} from '../../dist/api/web/lbplan_wasm.js';

export async function example(reportBytes: Uint8Array): Promise<string> {
  await init();
  const imported: ImportResult = importFiles([{ name: 'loadbalance/brokers/b1:8080', bytes: reportBytes }]);
  const snapshot: Snapshot = imported.snapshot;
  const warnings: string[] = imported.warnings.map((w) => `${w.file}: ${w.at ?? ''} ${w.message}`);

  const options: PlanOptions = {
    profile: '4.x',
    settings: { loadBalancerBrokerThresholdShedderPercentage: 10, loadBalancerSheddingEnabled: true },
    operations: ['unload-namespace=acme/orders', 'set=loadBalancerDistributeBundlesEvenlyEnabled=false'],
    seed: 42,
    leaderCycle: true,
    outlookCycles: 5,
    calibration: { format_version: 1, cpu_cost_factors: { 'b1:8080': 1.5 }, fits: [] },
  };
  const p: Plan = plan(snapshot, options);
  const factors: Record<string, number> | undefined = p.cpu_cost_factors;
  const first: PlannedUnload | undefined = p.unloads[0];
  const to: string | null = first ? first.to : null;
  const usage: number = p.balance_after.max_usage_fraction;

  const h: TopicHash = hashTopic('public/default', 4, 'my-topic');
  const hash: number = h.hash;
  hashTopic('public/default', ['0x00000000', '0x80000000', '0xffffffff'], 'my-topic');
  hashTopic('public/default', { boundaries: ['0x00000000', '0xffffffff'], numBundles: 1 }, 'my-topic');

  const format: ExportFormat = 'curl';
  const script: string = exportPlan(p, format, { pauseAutomaticShedding: true });
  exportPlan(plan(snapshot), 'pulsar-admin');

  const c: Comparison = simulate(snapshot, { scenario: 'hot-spike', cycles: 30, compare: ['name=a', { name: 'b', settings: { loadBalancerSheddingEnabled: false } }] },
    (done: number, total: number) => done < total);
  const balancedAt: number | null = c.runs[0]?.summary.balanced_at_cycle ?? null;
  simulate('builtin:demo');
  // @ts-expect-error: onProgress receives numbers
  simulate(snapshot, {}, (done: string) => done.length > 0);

  // @ts-expect-error: seed is a number
  plan(snapshot, { seed: 'one' });
  // @ts-expect-error: a profile is a release's text (`4.0.7`, `4.x`), checked when the plan runs
  plan(snapshot, { profile: 4 });
  // @ts-expect-error: unknown option
  plan(snapshot, { seeed: 1 });
  // @ts-expect-error: unknown export format
  exportPlan(p, 'yaml');
  // @ts-expect-error: files need bytes
  importFiles([{ name: 'x' }]);

  return [warnings.join('\n'), to, usage, hash, script, balancedAt, Object.keys(factors ?? {}).length].join('\n');
}
