# tether's build. The README's two commands are `make demo` and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

GOPATH_BIN := $(shell go env GOPATH)/bin
# Peers installed by scripts/install-deps.sh: go-installed ones and the pinned npm prefix.
export PATH := $(CURDIR)/.deps/npm/node_modules/.bin:$(GOPATH_BIN):$(PATH)

GO_TEST_TIMEOUT ?= 25m
FUZZTIME ?= 5s

.PHONY: all demo build grammars grammars-update check-noclang deps test check unit fuzz bench-once clean

all: build

## demo: the main job on the embedded default (builds tether first; no C
## toolchain needed: the grammar modules are committed).
demo: build
	./bin/tether ast-grep -p 'fmt.Errorf($$$$$$ARGS)' -l go --max-results 20 .

## deps: install every peer the tests drive (apt-get, go install, npm).
deps:
	scripts/install-deps.sh all

## grammars: rebuild the grammar wasm modules from the pinned packages (clang;
## cached under the user cache dir) and fail when one differs from the committed
## grammars/wasm/ID.wasm.zst; then compile them once for wazero so tests start warm.
grammars:
	scripts/install-deps.sh build
	go run ./grammars/build
	go run ./engine/precompile

## grammars-update: rebuild and write the committed modules and their records in
## grammars/manifest.json (after changing the shim, the flags or the toolchain).
## SET=tree-sitter-go@0.25.1 first pins that package version (integrity from npm
## view) for every grammar built from it; ONLY=go,rust limits the rebuild.
grammars-update:
	scripts/install-deps.sh build
	go run ./grammars/build -update $(if $(SET),-set $(SET)) $(if $(ONLY),-only $(ONLY))

## build: a cgo-free tether binary with the committed grammars embedded
## (symbols stripped: -s -w).
build:
	CGO_ENABLED=0 go build -ldflags='-s -w' -o bin/tether ./cmd/tether

## check-noclang: with no C compiler on PATH (only go), build tether cgo-free in a
## copy of the tree and as `go install MODULE/cmd/tether@VERSION` from a file proxy,
## and parse a file of every shipped language with each.
check-noclang:
	scripts/check-noclang.sh

## check: formatting, tidy modules, vet, cgo-free build.
check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@go mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }
	go vet ./...
	CGO_ENABLED=0 go build -o /dev/null ./cmd/tether

## test: install what is missing, build the grammars, and run every check and test.
## Fuzz targets run here on their seeds and their testdata/fuzz corpora (inside
## `unit`), so CI is repeatable; `make fuzz` explores new inputs, and whatever it
## finds is fixed and its input added to testdata/fuzz.
test: deps grammars check check-noclang bench-once unit

unit:
	GO_TEST_TIMEOUT=$(GO_TEST_TIMEOUT) scripts/unit.sh

## fuzz: explore each fuzz target for FUZZTIME (not part of `test`: random inputs
## would make CI unrepeatable).
fuzz:
	@scripts/fuzz-all.sh $(FUZZTIME)

## bench-once: every benchmark once so they keep working (numbers are not asserted).
bench-once:
	TETHER_REQUIRE_PEERS=1 go test -run '^$$' -bench . -benchtime 1x -timeout 15m ./...

clean:
	rm -rf bin grammars/wasm/*.wasm grammars/wasm/*.json
