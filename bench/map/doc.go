// Package repomap measures the map tool (a ranked outline of a project)
// over Go's standard library ($(go env GOROOT)/src): the time and memory of
// a cold map (every file parsed), a warm one (the trees from the store) and
// a focused warm one. Run with TETHER_BENCH_MAP=1 and -v; bench/README.md
// records the table it prints. BenchmarkMap times the same on a small part
// of the library, for CI's single run.
//
// A benchmark: its tests may import whatever they measure (tools, search,
// engine), and nothing imports it. It holds no code outside its tests.
package repomap
