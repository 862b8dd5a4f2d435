#!/usr/bin/env bash
# Installs every tool tether's build and tests need on a Debian machine with Go.
# Idempotent: each step is skipped when what it installs is already there.
# Usage: scripts/install-deps.sh [all|build|peers]
#   build: the C-to-wasm toolchain and npm that rebuild the grammar modules
#          (make grammars, make grammars-update); building tether needs only Go,
#          since the modules are committed.
#   peers: every peer the tests drive.
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-all}
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

log() { printf '== install-deps: %s\n' "$*" >&2; }

# libc++ and libc++abi for wasm32-wasi match clang-16: grammars whose external
# scanner is C++ (vue) are compiled against them. gcc and g++ build bench/native.
apt_pkgs_build=(clang-16 lld-16 wasi-libc libclang-rt-16-dev-wasm32 libc++-16-dev-wasm32
  libc++abi-16-dev-wasm32 gcc g++)
# nginx-light, haproxy: the fleet tests run their own proxy from a temporary directory
# (Debian may also start its nginx or haproxy service; `systemctl disable --now nginx haproxy`).
# clang-19 (the version of clangd-19) is the C checker of bench/diagdiff;
# python3-pyparsing is the real package the diagnostics-on-write tests edit;
# python3-nbformat validates the notebooks the notebook tools write.
# php-cli, php-xdebug: the debug tool's PHP adapter drives Xdebug (3.1 or later).
# ruby (its debug gem's rdbg) and libperl-languageserver-perl are the Ruby
# and Perl debug adapters; gdb 13 is checked to be refused as too old for DAP.
apt_pkgs_peers=(clangd-19 lldb-19 python3 python3-debugpy python3-pandas python3-matplotlib
  python3-pip python3-venv python3-wheel python3-setuptools chromium procps python3-pylsp
  python3-pytest python3-pyparsing python3-nbformat nginx-light haproxy shellcheck clang-19 php-cli php-xdebug
  ruby libperl-languageserver-perl gdb)

need_apt=()
want=()
case "$what" in
  build) want=("${apt_pkgs_build[@]}") ;;
  peers) want=("${apt_pkgs_peers[@]}") ;;
  all) want=("${apt_pkgs_build[@]}" "${apt_pkgs_peers[@]}") ;;
  *) echo "usage: $0 [all|build|peers]" >&2; exit 2 ;;
esac
# npm fetches the pinned grammar packages (npm pack) and the npm peers; the
# machine's own Node.js is used when there is one, else Debian's.
if ! command -v npm >/dev/null; then want+=(nodejs npm); fi
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need_apt+=("$p")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

if [ "$what" = build ]; then exit 0; fi

# Go-installed peers, pinned in scripts/go-peers.txt, go to GOBIN (default
# GOPATH/bin), which make puts on PATH.
gobin=$(go env GOBIN); [ -n "$gobin" ] || gobin="$(go env GOPATH)/bin"
while read -r pkg; do
  case "$pkg" in ''|'#'*) continue ;; esac
  bin=${pkg%@*}; bin=${bin##*/}
  if ! command -v "$bin" >/dev/null && [ ! -x "$gobin/$bin" ]; then
    log "go install $pkg"
    go install "$pkg"
  fi
done < scripts/go-peers.txt

# npm peers live in a project-local prefix (git-ignored), pinned in scripts/npm/package.json.
if [ ! -f .deps/npm/node_modules/.installed ] || ! cmp -s scripts/npm/package.json .deps/npm/package.json; then
  log "npm install (the peers of scripts/npm/package.json)"
  mkdir -p .deps/npm
  cp scripts/npm/package.json .deps/npm/package.json
  (cd .deps/npm && npm install --no-audit --no-fund --loglevel=error >/dev/null)
  touch .deps/npm/node_modules/.installed
fi
log "ok"
