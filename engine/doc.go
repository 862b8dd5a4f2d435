// Package engine parses source with tree-sitter grammars running as sandboxed
// WebAssembly modules in wazero, so tether's structural core needs no cgo and
// one tenant's grammar can never touch the host.
//
// One Engine serves a whole process: each grammar module (from package
// grammars) is compiled once and shared. Tenants (runs) get their own Parser
// with its own instance pools and limits (NewParser); Engine.Parse uses the
// engine's default tenant. Instances have no filesystem, network, environment
// or real clock, a memory cap, and stop when the parse's context is done.
//
// A parse takes the language as a *grammars.Language that its caller
// resolved once (grammars.Lookup, grammars.ForPath): the engine never looks
// a name up on a parse; only Precompile, given names, resolves them.
//
// A parse crosses into wasm a few times, not per node: the shim
// (grammars/shim) walks the tree inside the module and writes a flat pre-order
// node table that the host copies out in one read into an immutable Tree.
//
// A custom language (grammars.NewCustom: a grammar's web-tree-sitter side
// module) runs in the host module (grammars.HostWasm) in a runtime of its
// own that stops a call when its context is done, with a deadline on every
// parse (Limits.CustomTimeout); a module that traps, loops or outgrows its
// memory fails with a *CustomError naming it (custom.go).
//
// engine imports grammars, internal/ and wazero only: never matcher, tools,
// bridges, kernels or anything above them, and no type of wazero's appears in
// its exported API beyond what the Config takes.
package engine
