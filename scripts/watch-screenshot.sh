#!/usr/bin/env bash
# The screenshot in docs/watch.md (docs/images/watch-alert.png): Prometheus' own graph page
# (Grafana is not in Debian) plotting the LbplanNextCycleMakesClusterWorse expression and the
# predicted unloads over an hour in which broker-2's next cycle turns worse. The hour is written
# as OpenMetrics, backfilled with `promtool tsdb create-blocks-from openmetrics` into a
# throw-away Prometheus (loopback, own storage), and shot with headless Chromium.
# Needs prometheus/promtool (scripts/setup.sh) and chromium. Usage: scripts/watch-screenshot.sh [OUT.png]
set -euo pipefail
out=${1:-docs/images/watch-alert.png}
work=$(mktemp -d)
trap 'kill "${prom_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
end=$(( $(date +%s) - 120 ))
start=$(( end - 3600 ))
{
  echo '# TYPE lbplan_next_cycle_verdict gauge'
  for t in $(seq "$start" 60 "$end"); do
    worse=0; [ "$t" -ge $(( start + 1800 )) ] && worse=1
    echo "lbplan_next_cycle_verdict{instance=\"watch:9464\",job=\"lbplan-watch\",verdict=\"worse\"} $worse $t"
  done
  echo '# TYPE lbplan_last_good_snapshot_age_seconds gauge'
  for t in $(seq "$start" 60 "$end"); do
    echo "lbplan_last_good_snapshot_age_seconds{instance=\"watch:9464\",job=\"lbplan-watch\"} 20 $t"
  done
  echo '# TYPE lbplan_next_cycle_unloads gauge'
  for t in $(seq "$start" 60 "$end"); do
    n=0; [ "$t" -ge $(( start + 1800 )) ] && n=4
    echo "lbplan_next_cycle_unloads{broker=\"broker-2:8080\",instance=\"watch:9464\",job=\"lbplan-watch\",reason=\"threshold_shedder\"} $n $t"
  done
  echo '# EOF'
} > "$work/hour.om"
promtool tsdb create-blocks-from openmetrics "$work/hour.om" "$work/tsdb" > /dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'global:\n  evaluation_interval: 1m\nrule_files:\n  - %s\n' \
  "$(pwd)/deploy/prometheus/lbplan-rules.yml" > "$work/prometheus.yml"
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --storage.tsdb.retention.time=30d --web.listen-address="127.0.0.1:$port" 2> "$work/prom.log" &
prom_pid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/-/ready" > /dev/null && break; sleep 0.2; done
expr='lbplan_next_cycle_verdict{verdict="worse"} == 1 and on (instance, job) lbplan_last_good_snapshot_age_seconds < 300'
enc() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
url="http://127.0.0.1:$port/graph?g0.expr=$(enc "$expr")&g0.tab=0&g0.range_input=1h&g0.end_input=$(date -u -d @"$end" +%Y-%m-%d%%20%H:%M:%S)&g1.expr=$(enc 'lbplan_next_cycle_unloads')&g1.tab=0&g1.range_input=1h&g1.end_input=$(date -u -d @"$end" +%Y-%m-%d%%20%H:%M:%S)"
mkdir -p "$(dirname "$out")"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,1450 \
  --virtual-time-budget=8000 --screenshot="$(realpath -m "$out")" "$url" 2> /dev/null
echo "wrote $out"
