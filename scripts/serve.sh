#!/usr/bin/env bash
# Builds the dashboard (debug) and serves it at http://127.0.0.1:${PORT:-8088}/, rebuilding on change
# (8088 by default: Pulsar's brokers listen on 8080; PORT=N picks another).
# Run scripts/setup.sh first (make run does).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PORT="${PORT:-8088}"
echo "==> trunk serve: http://127.0.0.1:${PORT}/ (first build takes about a minute; Ctrl-C stops)"
exec trunk serve --port "$PORT" "$@"
