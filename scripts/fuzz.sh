#!/usr/bin/env bash
# Runs the fuzz targets (fuzz/fuzz_targets/: `import` on raw inputs, `import_archive` on members
# packed into zip/tar.gz/gz, `series` on a series' files or a zip of them) for FUZZ_SECONDS each
# (default 30; FUZZ_TARGETS picks targets), installing cargo-fuzz when it is missing (FUZZ_NO_INSTALL=1: don't; the targets are then built
# with plain cargo). Exits non-zero when the fuzzer finds a crash or a target does not build. See
# fuzz/README.md.
set -euo pipefail

seconds="${FUZZ_SECONDS:-30}"
case "$seconds" in
  '' | *[!0-9]*) echo "FUZZ_SECONDS must be a whole number of seconds, got '$seconds'" >&2; exit 2 ;;
esac
targets="${FUZZ_TARGETS:-import import_archive series}"
cd "$(dirname "$0")/../fuzz"
# libFuzzer options: bounded time, memory and per-input time; inputs up to 1 MiB.
fuzz_args=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 -max_len=1048576 -print_final_stats=1)

# The committed seeds of each target.
seeds() {
  case "$1" in
    import) echo corpus-seed ;;
    import_archive) echo corpus-seed-archive ;;
    series) echo corpus-seed-series ;;
    *) echo "fuzz.sh: unknown target '$1' (import, import_archive, series)" >&2; exit 2 ;;
  esac
}

if [ "${FUZZ_NO_INSTALL:-0}" != 1 ] && ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz.sh: installing cargo-fuzz" >&2
  cargo install cargo-fuzz --locked || cargo install cargo-fuzz || true
fi

if [ "${FUZZ_NO_INSTALL:-0}" != 1 ] && cargo fuzz --version >/dev/null 2>&1; then
  for t in $targets; do
    seed="$(seeds "$t")"
    mkdir -p "corpus/$t"
    # Stable Rust only here: RUSTC_BOOTSTRAP lets it take cargo-fuzz's nightly flags; no sanitizer.
    RUSTC_BOOTSTRAP=1 cargo fuzz run "$t" "corpus/$t" "$seed" -s none -- "${fuzz_args[@]}"
  done
else
  echo "fuzz.sh: cargo-fuzz unavailable; building the targets with cargo and coverage flags" >&2
  target="$(rustc -vV | sed -n 's/^host: //p')"
  for t in $targets; do
    seed="$(seeds "$t")"
    mkdir -p "corpus/$t" "artifacts/$t"
    RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks" \
      cargo build --release --bin "$t" --target "$target" --target-dir target/plain
    "target/plain/$target/release/$t" -artifact_prefix="artifacts/$t/" "${fuzz_args[@]}" \
      "corpus/$t" "$seed"
  done
fi
