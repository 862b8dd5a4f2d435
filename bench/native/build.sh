#!/usr/bin/env bash
# Builds bench/.out/tsnative-LANG (default go) with gcc from exactly the npm
# sources and shim the wasm module is built from (fetched and verified by
# `go run ./grammars/build -src`). Bench-only: never part of the tether binary.
set -euo pipefail
cd "$(dirname "$0")/../.."
lang=${1:-go}
cc=${CC:-gcc}
out=bench/.out
mkdir -p "$out"
rt="" src=""
while read -r id dir; do
  case "$id" in runtime) rt=$dir ;; "$lang") src=$dir ;; esac
done < <(go run ./grammars/build -q -src -only "$lang")
[ -n "$rt" ] && [ -n "$src" ] || { echo "bench/native: no sources for $lang" >&2; exit 1; }
fn=$(go run ./grammars/build -q -src -only "$lang" >/dev/null; grep -o "\"id\": \"$lang\"[^}]*\"function\": \"[a-z_]*\"" grammars/manifest.json | sed 's/.*"function": "\([a-z_]*\)"/\1/')
srcs=("$rt/src/lib.c" "$src/parser.c" grammars/shim/shim.c bench/native/main.c)
[ -f "$src/scanner.c" ] && srcs+=("$src/scanner.c")
# Same optimisation level as the wasm build (grammars/build: -O3), no -march so
# both sides use baseline instructions.
flags=(-O3 -DNDEBUG -w -I "$rt/include" -I "$rt/src" -I "$src" -DTETHER_LANGUAGE="$fn")
if [ -f "$src/scanner.cc" ]; then
  # A C++ scanner (vue) is built with g++ and the system's libstdc++, not the
  # wasm build's libc++, so conformance.sh compares two C++ libraries too.
  obj=$(mktemp -d)
  trap 'rm -rf "$obj"' EXIT
  "${CXX:-g++}" "${flags[@]}" -fno-exceptions -fno-rtti -c "$src/scanner.cc" -o "$obj/scanner.o"
  "$cc" "${flags[@]}" "${srcs[@]}" "$obj/scanner.o" -lstdc++ -o "$out/tsnative-$lang"
else
  "$cc" "${flags[@]}" "${srcs[@]}" -o "$out/tsnative-$lang"
fi
echo "$out/tsnative-$lang"
