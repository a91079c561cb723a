// Not a test: records a Chromium trace of a page through the DevTools protocol and says what made
// its long tasks (≥ 50 ms on the page's main thread): for each, what started it (a worker's
// message, a timer, a microtask), the page's own `performance.measure`s inside it (web/src/page_trace.rs
// names the dashboard's steps), and the garbage collection in it. Used by dashboard-bench.mjs.

/** Starts tracing `page` (a ring buffer, so a long run keeps its end). */
export async function startTrace(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Tracing.start', {
    transferMode: 'ReturnAsStream',
    traceConfig: {
      recordMode: 'recordContinuously',
      traceBufferSizeInKb: 400_000,
      includedCategories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline',
        'blink.user_timing', 'v8'],
      excludedCategories: ['*'],
    },
  });
  return cdp;
}

/** Stops tracing and answers the trace's events. */
export async function stopTrace(cdp) {
  const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.end');
  const { stream } = await done;
  const chunks = [];
  for (;;) {
    const r = await cdp.send('IO.read', { handle: stream, size: 8 << 20 });
    chunks.push(r.base64Encoded ? Buffer.from(r.data, 'base64').toString('utf8') : r.data);
    if (r.eof) break;
  }
  await cdp.send('IO.close', { handle: stream });
  const parsed = JSON.parse(chunks.join(''));
  return Array.isArray(parsed) ? parsed : parsed.traceEvents;
}

const TOP = new Set(['RunTask', 'ThreadControllerImpl::RunTask']);
const TRIGGERS = new Set(['EventDispatch', 'TimerFire', 'FireAnimationFrame', 'RunMicrotasks',
  'FunctionCall', 'ParseHTML', 'Layout', 'Paint', 'UpdateLayoutTree', 'GPUTask']);
const RENDER = new Set(['Layout', 'UpdateLayoutTree', 'Paint', 'PrePaint', 'Layerize', 'ParseHTML']);
const GC = /^(MajorGC|MinorGC|V8\.GC_MARK_COMPACTOR|V8\.GCScavenger|V8\.GCFinalizeMC|V8\.GCIncrementalMarking|BlinkGC\.)/;

function threads(events) {
  const names = new Map();
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args?.name ?? '');
  }
  return names;
}

/** `performance.measure`s as [start, end] per thread key (µs). */
function measures(events) {
  const open = new Map();
  const out = [];
  for (const e of events) {
    if (!String(e.cat).includes('blink.user_timing')) continue;
    const key = `${e.pid}:${e.tid}:${e.name}:${e.id ?? e.id2?.local ?? ''}`;
    if (e.ph === 'b') open.set(key, e);
    else if (e.ph === 'e' && open.has(key)) {
      const b = open.get(key);
      open.delete(key);
      out.push({ thread: `${b.pid}:${b.tid}`, name: b.name, ts: b.ts, end: e.ts });
    }
  }
  return out;
}

/** The instant marks (`performance.mark`) by name: their times (µs). */
function marks(events) {
  const out = new Map();
  for (const e of events) {
    if (String(e.cat).includes('blink.user_timing') && (e.ph === 'R' || e.ph === 'I' || e.ph === 'n')) {
      out.set(e.name, e.ts);
    }
  }
  return out;
}

/**
 * The long tasks of the page's main thread between marks `from` and `to`, each with what made it,
 * and a summary by cause; the worker's measures in that window, summed by name.
 */
export function longTasks(events, from, to, threshold = 50) {
  const names = threads(events);
  const at = marks(events);
  const t0 = at.get(from);
  const t1 = at.get(to);
  if (t0 === undefined || t1 === undefined) return { error: `marks ${from} / ${to} not in the trace` };
  const mark = events.find((e) => e.name === from && String(e.cat).includes('blink.user_timing'));
  const main = `${mark.pid}:${mark.tid}`;
  const onMain = events.filter((e) => `${e.pid}:${e.tid}` === main && e.ph === 'X' && e.ts >= t0 && e.ts <= t1)
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const tasks = [];
  let until = -1;
  for (const e of onMain) {
    if (!TOP.has(e.name) || e.ts < until) continue;
    until = e.ts + e.dur;
    tasks.push(e);
  }
  const ms = measures(events);
  const long = [];
  for (const task of tasks) {
    const dur = task.dur / 1000;
    if (dur < threshold) continue;
    const end = task.ts + task.dur;
    const inside = onMain.filter((e) => e !== task && e.ts >= task.ts && e.ts < end);
    const trigger = inside.find((e) => TRIGGERS.has(e.name));
    const what = trigger
      ? `${trigger.name}${trigger.args?.data?.type ? `(${trigger.args.data.type})` : ''}`
      : 'other';
    // GC events nest (a V8.GC_* inside MajorGC): count the outermost.
    let gc = 0;
    let gcUntil = -1;
    for (const e of inside) {
      if (!GC.test(e.name) || e.ts < gcUntil) continue;
      gcUntil = e.ts + e.dur;
      gc += e.dur / 1000;
    }
    const own = new Map();
    for (const m of ms) {
      if (m.thread !== main || m.end <= task.ts || m.ts >= end) continue;
      own.set(m.name, (own.get(m.name) ?? 0) + (Math.min(m.end, end) - Math.max(m.ts, task.ts)) / 1000);
    }
    // The browser's own rendering steps inside (style, layout, paint): a page that grew too many
    // DOM nodes shows here, not in the page's measures.
    for (const e of inside) {
      if (!RENDER.has(e.name)) continue;
      own.set(`browser: ${e.name}`, (own.get(`browser: ${e.name}`) ?? 0) + e.dur / 1000);
    }
    const named = [...own].sort((a, b) => b[1] - a[1]);
    const cause = named.length ? named[0][0] : what;
    // The thread's CPU time in the task (when the trace has it): far below the wall time, the
    // thread waited for a core (the 2 cores shared with other builds), it did not compute.
    const cpu = task.tdur !== undefined ? task.tdur / 1000 : null;
    long.push({ start_ms: (task.ts - t0) / 1000, dur, cpu, what, gc, measures: named, cause });
  }
  const byCause = new Map();
  for (const t of long) {
    const c = byCause.get(t.cause) ?? { cause: t.cause, n: 0, total: 0, max: 0, gc: 0, cpu: 0 };
    c.n += 1;
    c.cpu += t.cpu ?? 0;
    c.total += t.dur;
    c.max = Math.max(c.max, t.dur);
    c.gc += t.gc;
    byCause.set(t.cause, c);
  }
  const worker = new Map();
  for (const m of ms) {
    if (m.thread === main || m.ts < t0 || m.ts > t1) continue;
    const w = worker.get(m.name) ?? { name: m.name, n: 0, total: 0, max: 0, thread: names.get(m.thread) };
    w.n += 1;
    w.total += (m.end - m.ts) / 1000;
    w.max = Math.max(w.max, (m.end - m.ts) / 1000);
    worker.set(m.name, w);
  }
  const pageMeasures = new Map();
  for (const m of ms) {
    if (m.thread !== main || m.ts < t0 || m.ts > t1) continue;
    const w = pageMeasures.get(m.name) ?? { name: m.name, n: 0, total: 0, max: 0 };
    w.n += 1;
    w.total += (m.end - m.ts) / 1000;
    w.max = Math.max(w.max, (m.end - m.ts) / 1000);
    pageMeasures.set(m.name, w);
  }
  return {
    window_ms: (t1 - t0) / 1000,
    tasks: tasks.length,
    long: long.sort((a, b) => b.dur - a.dur),
    byCause: [...byCause.values()].sort((a, b) => b.total - a.total),
    pageMeasures: [...pageMeasures.values()].sort((a, b) => b.total - a.total),
    worker: [...worker.values()].sort((a, b) => b.total - a.total),
  };
}

/** A readable report of `longTasks`' answer. */
export function report(label, r) {
  if (r.error) return `${label}: ${r.error}`;
  const f = (x) => x.toFixed(1);
  const lines = [`${label}: ${f(r.window_ms)} ms, ${r.tasks} tasks, ${r.long.length} ≥ 50 ms`];
  lines.push('  by cause (the longest measure inside, else what started the task): n, total, max, GC in them, CPU in them');
  for (const c of r.byCause) lines.push(`    ${c.cause}: ${c.n}, ${f(c.total)} ms, max ${f(c.max)} ms, GC ${f(c.gc)} ms, CPU ${f(c.cpu)} ms`);
  lines.push('  the 12 longest:');
  for (const t of r.long.slice(0, 12)) {
    const m = t.measures.map(([n, d]) => `${n} ${f(d)}`).join(', ');
    const cpu = t.cpu === null ? '?' : f(t.cpu);
    lines.push(`    at +${f(t.start_ms)} ms: ${f(t.dur)} ms (CPU ${cpu}), ${t.what}, GC ${f(t.gc)}${m ? `; ${m}` : ''}`);
  }
  lines.push('  page measures in the window: n, total, max');
  for (const w of r.pageMeasures) lines.push(`    ${w.name}: ${w.n}, ${f(w.total)} ms, max ${f(w.max)} ms`);
  lines.push('  worker measures in the window: n, total, max');
  for (const w of r.worker) lines.push(`    ${w.name}: ${w.n}, ${f(w.total)} ms, max ${f(w.max)} ms`);
  return lines.join('\n');
}

/** The `n` tasks of a window that used the most CPU on the page's thread, whatever their length
 * (`longTasks` with no threshold), as one line each: wall / CPU and what they did. */
export function heaviest(events, from, to, n = 3) {
  const r = longTasks(events, from, to, 0);
  if (r.error) return [r.error];
  const f = (x) => x.toFixed(1);
  return r.long.filter((t) => t.cpu !== null).sort((a, b) => b.cpu - a.cpu).slice(0, n)
    .map((t) => `${f(t.dur)} ms wall / ${f(t.cpu)} ms CPU at +${f(t.start_ms)} ms, ${t.what}; `
      + t.measures.slice(0, 4).map(([m, d]) => `${m} ${f(d)}`).join(', '));
}
