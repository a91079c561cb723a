#!/usr/bin/env bash
# Prints how many conformance vectors pass, per suite (tests/conformance/, vendored). The suites already ran
# (and must pass) in the native `cargo test`; this re-runs only their test binaries with output shown
# and keeps the count lines, so the log of every test run states the numbers.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cargo test --locked -q -p lbplan-core \
  --test conformance_modular_shedding --test conformance_modular_placement \
  --test conformance_extensible --test conformance_naming_split -- --nocapture 2>&1 \
  | grep -E 'vectors pass' | sed -e 's/^\.*//' -e 's/^/  /'
cargo test --locked -q -p lbplan --test replay_all -- --nocapture 2>&1 \
  | grep -E 'scenarios reproduced' | sed -e 's/^\.*//' -e 's/^/  /'
