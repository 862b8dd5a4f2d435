#!/usr/bin/env bash
# Proves what a fresh clone gives a user with Go and no C toolchain: in a copy of
# the tree (tracked and new files, not ignored ones, so no locally built module
# is used), with a PATH that holds only `go`, `go install` tether cgo-free and
# `go run ./cmd/tether parse` a file of every shipped language. `make test` (CI) runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/bin"
git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
  tar --null -T - -cf - | tar -xf - -C "$tmp/src"
ln -s "$(command -v go)" "$tmp/bin/go"

# Only go's own settings come along (caches, proxy, toolchain), not the PATH.
goenv=(HOME="$HOME" PATH="$tmp/bin" CGO_ENABLED=0 TMPDIR="${TMPDIR:-/tmp}")
for v in GOPATH GOCACHE GOMODCACHE GOPROXY GOSUMDB GONOSUMDB GOPRIVATE GOFLAGS GOTOOLCHAIN; do
  goenv+=("$v=$(go env "$v")")
done

cd "$tmp/src"
# Inside, only bash builtins, go and the built tether are at hand.
env -i "${goenv[@]}" /bin/bash -euo pipefail -c '
  for cc in clang clang-16 cc gcc; do
    if command -v "$cc" >/dev/null; then echo "check-noclang: $cc is still on PATH" >&2; exit 1; fi
  done
  GOBIN="$0" go install ./cmd/tether
  "$0/tether" version
  # Every shipped language is embedded and has a fixture.
  files=() ids=""
  while read -r id _ ; do
    case "$id" in LANGUAGE|"") continue ;; esac
    line=$("$0/tether" languages | while read -r l rest; do if [ "$l" = "$id" ]; then echo "$rest"; fi; done)
    case "$line" in *embedded) ;; *) echo "check-noclang: $id is not embedded: $line" >&2; exit 1 ;; esac
    set -- testdata/parse/"$id"/ok.*
    [ -e "$1" ] || { echo "check-noclang: no testdata/parse/$id/ok.* fixture" >&2; exit 1; }
    files+=("$1") ids+=" $id"
  done < <("$0/tether" languages)
  set -- "${files[@]}"
  go run ./cmd/tether parse -q "$@"
  echo "check-noclang: $# languages parse with no C compiler on PATH:$ids"
' "$tmp/bin"
