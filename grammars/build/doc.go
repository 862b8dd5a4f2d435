// Command build rebuilds tether's grammar modules from the pinned packages and
// checks them against the committed ones: `make grammars` runs it as
// `go run ./grammars/build` from the repository root, and fails when a rebuilt
// module differs from the committed one. `make grammars-update` runs it with
// -update, which writes the rebuilt modules (grammars/wasm/ID.wasm.zst) and
// their records in grammars/manifest.json instead.
//
// For every language in grammars/manifest.json it fetches the pinned npm
// package with `npm pack`, checks the tarball against the manifest's integrity
// hash, and compiles the tree-sitter runtime, the grammar (parser.c and
// scanner.c, or a C++ scanner.cc against libc++ for the languages the
// manifest marks "cxx", with grammars/shim/cxx.cc) and tether's shim
// (grammars/shim) with clang-16 for wasm32-wasi into one self-contained
// reactor module exporting only what
// grammars/shim/exports.txt lists, then compresses it with zstd
// (klauspost/compress at its best level, one goroutine, so the bytes depend
// only on the module and the codec's version in go.mod).
//
// Every step is cached under the user cache dir (tether/grammars), keyed by
// the hash of its inputs (package integrity, shim, flags, toolchain; libc++
// only for a C++ module), so a
// second run, or another checkout on the same machine, costs nothing.
// Languages build in parallel on all cores.
//
// A command run by `make grammars`: it imports grammars and internal/ only,
// and nothing imports it.
package main
