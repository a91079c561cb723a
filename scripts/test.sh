#!/usr/bin/env bash
# Runs every test: native crates, wasm tests in headless Chromium, the release build, the JS API build,
# the e2e tests (dashboard, JS API + TypeScript check, custom element, CSP, apply).
# Run scripts/setup.sh first (make test does).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

export CHROMEDRIVER=/usr/bin/chromedriver
# The test runner reads webdriver.json from its cwd (the crate dir); point it at the root copy.
export WASM_BINDGEN_TEST_WEBDRIVER_JSON="$ROOT/webdriver.json"

# Native crates, debug profile. Add packages here as crates land.
NATIVE_PACKAGES=(-p lbplan-core -p lbplan -p lbplan-wasm -p lbplan-worker)

total=$SECONDS
step "cargo test (native: ${NATIVE_PACKAGES[*]})" cargo test --locked "${NATIVE_PACKAGES[@]}"
step "conformance vectors (counts per suite)" bash scripts/conformance-summary.sh
step "cargo test -p lbplan-web (wasm, headless Chromium)" \
  cargo test --locked -p lbplan-web --target wasm32-unknown-unknown
step "trunk build --release (dist/)" trunk build --release
step "scripts/build-api.sh (dist/api/: the JavaScript API, web + node)" bash scripts/build-api.sh
# Bounded fuzzing of the importer (no cargo-fuzz install: plain cargo with libFuzzer's coverage flags).
step "fuzz the importer (${FUZZ_SECONDS:-30} s, scripts/fuzz.sh)" env FUZZ_NO_INSTALL=1 FUZZ_SECONDS="${FUZZ_SECONDS:-30}" bash scripts/fuzz.sh
step "node --test tests/e2e/ (playwright-core, headless Chromium)" node --test tests/e2e/
printf '\ntests: all green in %s\n' "$(elapsed $((SECONDS - total)))"
