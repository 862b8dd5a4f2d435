#!/usr/bin/env bash
# Proves what a user with Go and no C toolchain gets, with a PATH that holds only
# `go` (no clang, cc or gcc) and CGO_ENABLED=0: `make test` (CI) runs it.
#  1. A fresh clone: in a copy of the tree (tracked and new files, not ignored
#     ones, so no locally built module is used), `go install ./cmd/tether` and
#     `go run ./cmd/tether parse` a file of every shipped language.
#  2. `go install github.com/tetherhq/tether/cmd/tether@VERSION`: the same copy
#     zipped as a module version and served by a file proxy (every other module
#     from the local module cache), into an empty module cache; the installed
#     tether parses a file of every shipped language.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/bin"
git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
  tar --null -T - -cf - | tar -xf - -C "$tmp/src"
ln -s "$(command -v go)" "$tmp/bin/go"
mkdir -p "$tmp/modzip"
cat > "$tmp/modzip/main.go" <<'GO'
// Command modzip writes the module in the current directory as a module zip
// of version VERSION, as a proxy serves it: modzip MODULE VERSION OUT.zip
package main

import (
	"archive/zip"
	"io/fs"
	"os"
	"path/filepath"
)

func main() {
	mod, ver, out := os.Args[1], os.Args[2], os.Args[3]
	f, err := os.Create(out)
	if err != nil {
		panic(err)
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// As the go command zips a module: no nested module, no VCS dir.
			if _, err := os.Stat(filepath.Join(p, "go.mod")); p != "." && err == nil || d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		w, err := zw.Create(mod + "@" + ver + "/" + filepath.ToSlash(p))
		if err == nil {
			_, err = w.Write(b)
		}
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		panic(err)
	}
}
GO

# Only go's own settings come along (caches, proxy, toolchain), not the PATH.
goenv=(HOME="$HOME" PATH="$tmp/bin" CGO_ENABLED=0 TMPDIR="${TMPDIR:-/tmp}")
for v in GOPATH GOCACHE GOMODCACHE GOPROXY GOSUMDB GONOSUMDB GOPRIVATE GOFLAGS GOTOOLCHAIN; do
  goenv+=("$v=$(go env "$v")")
done
modcache=$(go env GOMODCACHE)

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

# 2. go install MODULE/cmd/tether@VERSION from a proxy.
mod=$(go list -m)
ver=v0.0.0-check
at="$tmp/proxy/$mod/@v"
mkdir -p "$at" "$tmp/modcache" "$tmp/gobin"
go run "$tmp/modzip/main.go" "$mod" "$ver" "$at/$ver.zip"
cp go.mod "$at/$ver.mod"
printf '{"Version":"%s"}\n' "$ver" > "$at/$ver.info"
printf '%s\n' "$ver" > "$at/list"
cd "$tmp"
env -i HOME="$HOME" PATH="$tmp/bin" CGO_ENABLED=0 TMPDIR="${TMPDIR:-/tmp}" \
  GOCACHE="$(go env GOCACHE)" GOTOOLCHAIN="$(go env GOTOOLCHAIN)" GOFLAGS=-modcacherw \
  GOMODCACHE="$tmp/modcache" GOPROXY="file://$tmp/proxy,file://$modcache/cache/download" GOSUMDB=off \
  GOBIN="$tmp/gobin" /bin/bash -euo pipefail -c '
  mod=$0 ver=$1
  go install "$mod/cmd/tether@$ver"
  cd src
  files=()
  while read -r id _ ; do
    case "$id" in LANGUAGE|"") continue ;; esac
    set -- testdata/parse/"$id"/ok.*
    files+=("$1")
  done < <(../gobin/tether languages)
  ../gobin/tether parse -q "${files[@]}"
  v=$(../gobin/tether version)
  echo "check-noclang: go install $mod/cmd/tether@$ver: ${#files[@]} languages parse (${v%%$'"'"'\n'"'"'*})"
' "$mod" "$ver"
