#!/usr/bin/env bash
# Installs whatever is missing to build and test the dashboard offline (idempotent; a few seconds
# when everything is present). Needs only the package registries: Debian apt, crates.io, npm.
#   chromium + chromium-driver + prometheus/promtool (apt), wasm32 target, trunk 0.21.14, wasm-bindgen-cli = Cargo.lock,
#   npm ci (playwright-core, binaryen's wasm-opt), cargo fetch.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION="$(locked_wasm_bindgen_version)"
if [[ -z "$WASM_BINDGEN_VERSION" ]]; then
  echo "setup: cannot find wasm-bindgen in Cargo.lock" >&2
  exit 1
fi

install_chromium() {
  if [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]]; then
    echo "present: $(/usr/bin/chromium --version 2>/dev/null | head -n1)"
    return 0
  fi
  local sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium chromium-driver
}

# The history and watch e2e tests run a real Prometheus (Debian's package carries promtool too).
# A container has no init: policy-rc.d keeps the package's service from starting, which is what we want.
install_prometheus() {
  if command -v prometheus >/dev/null && command -v promtool >/dev/null; then
    echo "present: $(prometheus --version 2>&1 | head -n1)"
    return 0
  fi
  local sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus
}

install_wasm_target() {
  rustup target add wasm32-unknown-unknown
}

install_trunk() {
  if command -v trunk >/dev/null && [[ "$(trunk --version)" == "trunk $TRUNK_VERSION" ]]; then
    echo "present: $(trunk --version)"
    return 0
  fi
  # trunk's own release profile uses fat LTO: ~2 minutes slower to build, no use for a dev tool.
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install --locked trunk --version "$TRUNK_VERSION"
}

install_wasm_bindgen() {
  if command -v wasm-bindgen >/dev/null \
    && [[ "$(wasm-bindgen --version)" == "wasm-bindgen $WASM_BINDGEN_VERSION" ]] \
    && command -v wasm-bindgen-test-runner >/dev/null; then
    echo "present: $(wasm-bindgen --version)"
    return 0
  fi
  # The CLI's own lock file may name crates the registry mirror does not have yet; then resolve anew.
  cargo install --locked wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" \
    || cargo install --force wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
}

install_node_modules() {
  # Reinstall when node_modules is missing or was installed from another package-lock.json.
  local stamp=node_modules/.lbplan-package-lock.sha256
  local want
  want="$(sha256sum package-lock.json | cut -d' ' -f1)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x node_modules/.bin/wasm-opt ]]; then
    echo "present: node_modules matches package-lock.json"
    return 0
  fi
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund
  echo "$want" > "$stamp"
}

fetch_crates() {
  cargo fetch --locked
}

total=$SECONDS
step "apt: chromium + chromium-driver (if missing)" install_chromium
step "apt: prometheus + promtool (if missing)" install_prometheus
step "rustup: wasm32-unknown-unknown target" install_wasm_target
step "cargo install trunk $TRUNK_VERSION (if missing)" install_trunk
step "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (if missing)" install_wasm_bindgen
step "npm ci: playwright-core + binaryen (if stale)" install_node_modules
step "cargo fetch --locked" fetch_crates
printf '\nsetup: done in %s\n' "$(elapsed $((SECONDS - total)))"
