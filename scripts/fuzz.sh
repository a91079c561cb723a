#!/usr/bin/env bash
# Runs the importer's fuzz target (fuzz/fuzz_targets/import.rs) for FUZZ_SECONDS (default 30),
# installing cargo-fuzz when it is missing (FUZZ_NO_INSTALL=1: don't; the target is then built with
# plain cargo). Exits non-zero when the fuzzer finds a crash or the target does not build. See
# fuzz/README.md.
set -euo pipefail

seconds="${FUZZ_SECONDS:-30}"
case "$seconds" in
  '' | *[!0-9]*) echo "FUZZ_SECONDS must be a whole number of seconds, got '$seconds'" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/../fuzz"
mkdir -p corpus/import
# libFuzzer options: bounded time, memory and per-input time; inputs up to 1 MiB.
fuzz_args=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 -max_len=1048576 -print_final_stats=1)

if [ "${FUZZ_NO_INSTALL:-0}" != 1 ] && ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz.sh: installing cargo-fuzz" >&2
  cargo install cargo-fuzz --locked || cargo install cargo-fuzz || true
fi

if [ "${FUZZ_NO_INSTALL:-0}" != 1 ] && cargo fuzz --version >/dev/null 2>&1; then
  # Stable Rust only here: RUSTC_BOOTSTRAP lets it take cargo-fuzz's nightly flags; no sanitizer.
  RUSTC_BOOTSTRAP=1 cargo fuzz run import corpus/import corpus-seed -s none -- "${fuzz_args[@]}"
else
  echo "fuzz.sh: cargo-fuzz unavailable; building the target with cargo and coverage flags" >&2
  target="$(rustc -vV | sed -n 's/^host: //p')"
  RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks" \
    cargo build --release --bin import --target "$target" --target-dir target/plain
  mkdir -p artifacts/import
  "target/plain/$target/release/import" -artifact_prefix=artifacts/import/ "${fuzz_args[@]}" \
    corpus/import corpus-seed
fi
