// Package metrics serves counters, gauges and histograms in the Prometheus
// text exposition format (version 0.0.4) for `tether serve --http`'s
// /metrics, with the Go runtime's and the process's own series.
//
// It is the few metric kinds tether uses and nothing more: client_golang
// (with protobuf, procfs and expvar) initialised about 4% of every tether
// process's CPU, a one-file search's included, though only serve scrapes.
// See https://prometheus.io/docs/instrumenting/exposition_formats/.
//
// metrics imports the standard library only; server and cmd import it.
package metrics
