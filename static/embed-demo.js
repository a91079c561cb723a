// The mock ops portal's script (static/embed-demo.html): logs the events both planners send, gives the
// read-only planner its snapshot as an object, and — with ?admin-base-url=URL — enables Apply on the
// production planner with the token typed in the page (sent per request by authHeaders, kept only in
// this page's memory: never in storage or the URL).
const log = document.querySelector('[data-testid=event-log]');
const prod = document.getElementById('planner-prod');
const staging = document.getElementById('planner-staging');

function record(planner, type, text) {
  const li = document.createElement('li');
  li.dataset.planner = planner.id;
  li.dataset.event = type;
  li.textContent = `${new Date().toISOString().slice(11, 19)} ${planner.id}: ${type} — ${text}`;
  log.append(li);
}

for (const planner of [prod, staging]) {
  planner.addEventListener('plan-ready', (e) => {
    const plan = e.detail;
    record(planner, 'plan-ready', `${plan.unloads.length} unload(s), ${plan.splits.length} split(s), profile ${plan.profile}`);
  });
  planner.addEventListener('export-requested', (e) => {
    record(planner, 'export-requested', `${e.detail.format}, ${e.detail.text.length} characters`);
  });
  planner.addEventListener('planner-error', (e) => record(planner, 'planner-error', e.detail.message));
}

const adminBaseUrl = new URLSearchParams(location.search).get('admin-base-url');
if (adminBaseUrl) {
  const note = document.querySelector('[data-testid=admin-note]');
  note.hidden = false;
  note.querySelector('[data-testid=admin-url]').textContent = adminBaseUrl;
  const token = note.querySelector('[data-testid=admin-token]');
  prod.authHeaders = () => (token.value ? { Authorization: `Bearer ${token.value}` } : {});
  prod.setAttribute('admin-base-url', adminBaseUrl);
}

const response = await fetch(new URL('demo-snapshot.json', import.meta.url));
staging.snapshot = await response.json();
