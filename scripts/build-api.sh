#!/usr/bin/env bash
# Builds the JavaScript API (crates/wasm, `lbplan-wasm`) into dist/api/:
#   dist/api/web/    ES module for browsers (wasm-bindgen --target web): lbplan_wasm.js, .d.ts, _bg.wasm
#   dist/api/node/   CommonJS module for Node (wasm-bindgen --target nodejs), used by tests/e2e/api.test.mjs
# Release build with the size-optimised `wasm-release` profile, then wasm-opt -Oz (npm binaryen).
# Run after `trunk build` (trunk empties dist/). Run scripts/setup.sh first (make test does).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OUT="$ROOT/dist/api"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
WASM="$TARGET_DIR/wasm32-unknown-unknown/wasm-release/lbplan_wasm.wasm"

cargo build --locked --offline --profile wasm-release --target wasm32-unknown-unknown -p lbplan-wasm
rm -rf "$OUT"
mkdir -p "$OUT"
wasm-bindgen --target web --out-dir "$OUT/web" "$WASM"
wasm-bindgen --target nodejs --out-dir "$OUT/node" "$WASM"
# wasm-bindgen --target nodejs writes CommonJS; tell Node so even inside our "type": "module" package.
printf '{"type": "commonjs"}\n' > "$OUT/node/package.json"
for dir in web; do  # the Node build is for tests only: skip the minute of wasm-opt
  wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    -o "$OUT/$dir/lbplan_wasm_bg.wasm" "$OUT/$dir/lbplan_wasm_bg.wasm"
done
ls -l "$OUT"/web "$OUT"/node
