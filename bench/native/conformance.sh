#!/usr/bin/env bash
# Compares tether's S-expressions with native tree-sitter's ts_node_string for
# the same files: bench/native/conformance.sh LANG FILE...
# Builds bench/.out/tsnative-LANG (gcc, same sources) and bin/tether if missing.
# Prints each file that differs; exits 1 when any does.
set -euo pipefail
cd "$(dirname "$0")/../.."
lang=$1; shift
[ -x "bench/.out/tsnative-$lang" ] || bench/native/build.sh "$lang" >/dev/null
[ -x bin/tether ] || make build >/dev/null
n=0 diff=0
for f in "$@"; do
  n=$((n + 1))
  if ! cmp -s <(bench/.out/tsnative-"$lang" -sexp "$f") <(bin/tether parse -l "$lang" "$f" 2>/dev/null); then
    echo "differs: $f"
    diff=$((diff + 1))
  fi
done
echo "$lang: $n files, $diff differ from ts_node_string"
[ "$diff" = 0 ]
