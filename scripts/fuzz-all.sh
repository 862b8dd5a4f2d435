#!/usr/bin/env bash
# Runs every native Go fuzz target in the module for a short time each.
# Usage: scripts/fuzz-all.sh [DURATION]
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:-5s}
found=0
while IFS= read -r file; do
  pkg="./$(dirname "$file")"
  for fn in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)\(' "$file" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/'); do
    found=$((found + 1))
    echo "== fuzz $pkg $fn ($t)"
    go test -run '^$' -fuzz "^${fn}\$" -fuzztime "$t" "$pkg"
  done
done < <(git ls-files '*_test.go')
echo "== fuzz: $found targets"
