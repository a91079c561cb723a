#!/usr/bin/env bash
# Runs every test: formatting and lints (clippy), native crates, wasm tests in headless Chromium, the release build, the JS API build,
# the e2e tests (dashboard, JS API + TypeScript check, custom element, CSP, apply).
# Run scripts/setup.sh first (make test does).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

export CHROMEDRIVER=/usr/bin/chromedriver
# The test runner reads webdriver.json from its cwd (the crate dir); point it at the root copy.
export WASM_BINDGEN_TEST_WEBDRIVER_JSON="$ROOT/webdriver.json"

# Native crates, debug profile. Add packages here as crates land.
NATIVE_PACKAGES=(-p lbplan-core -p lbplan -p lbplan-wasm -p lbplan-worker)

# Lints that tests may break on purpose (unwrap, expect, panic, indexing, and core's IO/clock ban).
TEST_LINT_ALLOWS=(-A clippy::unwrap_used -A clippy::expect_used -A clippy::panic -A clippy::indexing_slicing
  -A clippy::disallowed_methods -A clippy::disallowed_types)

total=$SECONDS
# Say up front when the disk cannot hold it, since cargo's
# "No space left on device" arrives minutes later in the middle of an unrelated step.
disk_report "before" 8
step "cargo fmt --check" cargo fmt --all --check
step "cargo clippy (library and binary code: -D warnings, no unwrap/expect/panic/indexing; core: no IO, clock, env, threads)" \
  cargo clippy --locked "${NATIVE_PACKAGES[@]}" --lib --bins -- -D warnings
step "cargo clippy (dashboard, wasm32: -D warnings)" \
  cargo clippy --locked -p lbplan-web --target wasm32-unknown-unknown --features bench --lib --bins -- -D warnings
step "cargo clippy (tests and benches: -D warnings)" \
  cargo clippy --locked "${NATIVE_PACKAGES[@]}" --tests --benches -- -D warnings "${TEST_LINT_ALLOWS[@]}"
step "cargo test (native: ${NATIVE_PACKAGES[*]})" cargo test --locked "${NATIVE_PACKAGES[@]}"
step "conformance vectors (counts per suite)" bash scripts/conformance-summary.sh
step "cargo test -p lbplan-web (wasm, headless Chromium; scripts/wasm-test.sh)" bash scripts/wasm-test.sh
step "trunk build --release (dist/)" trunk build --release
step "scripts/build-api.sh (dist/api/: the JavaScript API, web + node)" bash scripts/build-api.sh
# Bounded fuzzing of the importer (no cargo-fuzz install: plain cargo with libFuzzer's coverage flags).
step "fuzz the importer (${FUZZ_SECONDS:-30} s, scripts/fuzz.sh)" env FUZZ_NO_INSTALL=1 FUZZ_SECONDS="${FUZZ_SECONDS:-30}" bash scripts/fuzz.sh
step "node --test tests/e2e/ (playwright-core, headless Chromium)" node --test tests/e2e/
disk_report "after" 0
printf '\ntests: all green in %s\n' "$(elapsed $((SECONDS - total)))"
