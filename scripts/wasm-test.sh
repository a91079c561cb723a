#!/usr/bin/env bash
# The dashboard's wasm tests in headless Chromium, retried once when chromedriver did not come up.
# wasm-bindgen-test-runner gives chromedriver a few seconds to bind its port; on a loaded machine it
# can miss that and the run fails with "driver failed to bind port during startup" before any test
# ran. That says nothing about the code, so it is retried once; a test that fails is never retried.
set -uo pipefail

log=$(mktemp)
trap 'rm -f "$log"' EXIT

run() { cargo test --locked -p lbplan-web --target wasm32-unknown-unknown 2>&1 | tee "$log"; }

run && exit 0
if grep -q "driver failed to bind port during startup" "$log" && ! grep -q "test result: FAILED" "$log"; then
  echo "wasm-test: chromedriver did not start (not a test failure): retrying once" >&2
  run && exit 0
fi
exit 1
