// Package repomap measures the map tool (a ranked outline of a project)
// over Go's standard library ($(go env GOROOT)/src) and over a TypeScript
// project ($TETHER_BENCH_MAP_TS, a checkout of typeorm): the wall and CPU
// time and the memory of a cold map (every file parsed), warm ones in the
// same process (the outlines from the store), and a warm one in a new
// process whose disk tier the cold map filled (the outlines from the disk
// tier, no tree read). Run with TETHER_BENCH_MAP=1 (TestMapStdlib) or
// TETHER_BENCH_MAP_TS=DIR (TestMapTypeScript) and -v; bench/README.md records
// the tables they print. BenchmarkMap times a cold and a warm map of a small
// part of the library, for CI's single run.
//
// A benchmark: its tests may import whatever they measure (tools, search,
// engine), and nothing imports it. It holds no code outside its tests.
package repomap
