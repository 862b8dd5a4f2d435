// Package outsize measures what the answers an agent pays for most cost in
// its context: the bytes of a tool result's text and of its structured part,
// for calls against real language servers (pyright, gopls) and the
// structural tools on generated fixtures. Run with TETHER_BENCH_OUTSIZE=1
// and -v; bench/README.md records the table it prints.
//
// A benchmark: its tests may import whatever they measure (tools, the LSP
// bridge, engine), and nothing imports it. It holds no code outside its
// tests.
package outsize
