#!/usr/bin/env bash
# Refreshes the vendored conformance vectors (tests/conformance/) from ../shared/conformance when that
# directory exists beside the clone, and says what changed. The tests read only tests/conformance/
# (or LBPLAN_CONFORMANCE_DIR), so a clone with nothing beside it is self-contained.
#   bash scripts/refresh-conformance.sh [SOURCE_DIR]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SUITES=(oracle oracle-extensible pulsar-unit-tests)
src="${1:-$ROOT/../shared/conformance}"
dst="$ROOT/tests/conformance"

if [[ ! -d "$src" ]]; then
  echo "refresh-conformance: no source at $src; tests/conformance/ is unchanged" >&2
  exit 0
fi

added=0 changed=0 removed=0
for suite in "${SUITES[@]}"; do
  [[ -d "$src/$suite" ]] || { echo "refresh-conformance: $src/$suite is missing; kept ours" >&2; continue; }
  mkdir -p "$dst/$suite"
  while IFS= read -r -d '' f; do
    rel="${f#"$src/"}"
    if [[ ! -f "$dst/$rel" ]]; then
      echo "added    $rel"; added=$((added + 1))
    elif ! cmp -s "$f" "$dst/$rel"; then
      echo "changed  $rel"; changed=$((changed + 1))
    else
      continue
    fi
    cp "$f" "$dst/$rel.tmp.$$" && chmod u+w "$dst/$rel.tmp.$$" && mv "$dst/$rel.tmp.$$" "$dst/$rel"
  done < <(find "$src/$suite" -type f -print0 | sort -z)
  while IFS= read -r -d '' f; do
    rel="${f#"$dst/"}"
    if [[ ! -f "$src/$rel" ]]; then
      echo "removed  $rel"; removed=$((removed + 1)); rm -f "$f"
    fi
  done < <(find "$dst/$suite" -type f -print0 | sort -z)
done
printf 'refresh-conformance: %d added, %d changed, %d removed (from %s)\n' "$added" "$changed" "$removed" "$src"
