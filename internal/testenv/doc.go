// Package testenv helps tests find the real peers (language servers, debug
// adapters, interpreters, browsers) that tether drives.
//
// `make test` sets TETHER_REQUIRE_PEERS=1, under which a missing peer fails the
// test: CI must never pass by skipping. A plain `go test` on a machine without
// the peers skips those tests and says which install step brings them
// (scripts/install-deps.sh).
//
// It is for tests only: no production package imports it. It imports no tether
// package outside internal/ (the standard library and the few third-party
// modules internal/layout_test.go allows it), so that every layer may use it.
package testenv
