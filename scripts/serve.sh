#!/usr/bin/env bash
# Builds the dashboard (debug) and serves it at http://127.0.0.1:8080/, rebuilding on change.
# Run scripts/setup.sh first (make run does).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

echo "==> trunk serve: http://127.0.0.1:8080/ (first build takes about a minute; Ctrl-C stops)"
exec trunk serve "$@"
