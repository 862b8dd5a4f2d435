// Command scan measures `tether scan` against `ast-grep scan` in one run:
// the same ten Go rules (rules.yml) over the same corpus (by default Go's
// standard library), the same thread count, and writes the table into
// bench/README.md ("Rule scan vs ast-grep" section).
//
//	go run ./bench/scan [-corpus DIR] [-j N] [-tether bin/tether] [-readme bench/README.md]
//
// Both run as new processes. tether runs twice: cold (no disk tier of
// parsed trees: every file is parsed) and with its disk tier warm from the
// cold run's trees; ast-grep has no cache, so its one time is the reference
// for both ratios. Each file is parsed once per scan whatever the number of
// rules, in both tools.
//
// A benchmark command: it may import whatever it measures, and nothing
// imports it.
package main
