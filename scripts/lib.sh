# Shared by scripts/*.sh: repo root, PATH with the project's tools first, and timed steps.
# Sourced, not executed.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
# node_modules/.bin first: trunk must find npm binaryen's wasm-opt (132), never an older system one.
export PATH="$ROOT/node_modules/.bin:$CARGO_BIN:$PATH"
# Trunk never talks to the network: no update check (the crates.io API is not reachable here).
export TRUNK_SKIP_VERSION_CHECK=true

# step "what it does" command args...: prints the step, runs it, prints how long it took.
step() {
  local what="$1"; shift
  local start=$SECONDS
  printf '\n==> %s\n' "$what"
  if "$@"; then
    printf '<== %s: ok in %s\n' "$what" "$(elapsed $((SECONDS - start)))"
  else
    local rc=$?
    printf '<== %s: FAILED (exit %s) after %s\n' "$what" "$rc" "$(elapsed $((SECONDS - start)))" >&2
    return "$rc"
  fi
}

elapsed() {
  local s="$1"
  if (( s >= 60 )); then printf '%dm%02ds' $((s / 60)) $((s % 60)); else printf '%ds' "$s"; fi
}

# The wasm-bindgen version pinned in Cargo.lock (the CLI must match it exactly).
locked_wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

# disk_report WHEN MIN_FREE_GB: prints the free space where target/ lives and the size of target/,
# and warns (does not fail) when less than MIN_FREE_GB is free.
disk_report() {
  local when="$1" min_gb="$2" dir="${CARGO_TARGET_DIR:-$ROOT/target}" free_kb used
  # Callers run under `set -euo pipefail`; a missing target/ (a fresh clone) must not end the run.
  free_kb=$(df -Pk "$(dirname "$dir")" 2>/dev/null | awk 'NR == 2 { print $4 }') || free_kb=""
  used=$(du -sh "$dir" 2>/dev/null | cut -f1) || used=
  printf '\ndisk %s: %s GB free, target/ %s\n' "$when" "$(( ${free_kb:-0} / 1048576 ))" "${used:-empty}"
  if [ -n "$free_kb" ] && (( free_kb / 1048576 < min_gb )); then
    printf 'warning: less than %s GB free; the build may fail with "No space left on device"\n' "$min_gb" >&2
  fi
}
