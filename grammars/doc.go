// Package grammars is tether's language table: which tree-sitter grammars ship,
// the pinned npm packages they are built from (manifest.json), and the
// WebAssembly module of each, committed compressed and embedded into every
// binary and every program that imports this package.
//
// The modules are built by `go run ./grammars/build` from the packages and
// integrity hashes in manifest.json, with the C shim in grammars/shim, and
// committed as grammars/wasm/ID.wasm.zst (zstd). manifest.json records how
// they were built (toolchain, flags) and the sha256 of each module and of
// each committed file; `make grammars` rebuilds them and fails when a rebuild
// differs from what is committed, so no C toolchain is needed to build tether
// and the committed bytes are checked, not trusted.
//
// Each module is decompressed on first use, once per process. The embedded
// files and the manifest cannot change after the build, so the sha256s are
// checked by the package's tests, not on every start.
//
// grammars never imports wazero or engine: it only describes and carries
// the bytes. It imports internal/ and the zstd codec only.
package grammars

//go:generate go run ./build -root .. -table
