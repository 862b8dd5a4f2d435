// Command parse measures tether's parse throughput in MB/s over Go's standard
// library ($(go env GOROOT)/src) with the Go grammar: the wasm engine on one
// core and on all cores, against the same C (runtime, grammar and shim)
// compiled natively with gcc (bench/native), all in one run. It prints both
// and their ratio; bench/README.md records the results.
//
//	bench/native/build.sh go && go run ./bench/parse
//
// A benchmark command: it may import whatever it measures, and nothing imports
// it.
package main
