package main

import "os"
import "path/filepath"
import "strconv"
import "strings"

import "github.com/tetherhq/tether/search/store"
import "github.com/tetherhq/tether/server/metrics"

// hostRegistry is the registry of `tether serve --http`'s /metrics: the Go
// runtime's and the process's (RSS, open files), the shared tree store's hits,
// misses and bytes, and the child processes running; the host adds its
// sessions, calls and latencies.
func hostRegistry() *metrics.Registry {
	reg := metrics.NewRegistry()
	stats := func(f func(store.CacheStats) float64) func() float64 {
		return func() float64 { return f(store.SharedCache().Stats()) }
	}
	reg.MustRegister(
		metrics.NewGoCollector(),
		metrics.NewProcessCollector(),
		metrics.NewCounterFunc(metrics.Opts{Name: "tether_tree_store_hits_total", Help: "Tree-store lookups served from memory."},
			stats(func(s store.CacheStats) float64 { return float64(s.Hits) })),
		metrics.NewCounterFunc(metrics.Opts{Name: "tether_tree_store_misses_total", Help: "Tree-store lookups that had to parse."},
			stats(func(s store.CacheStats) float64 { return float64(s.Misses) })),
		metrics.NewGaugeFunc(metrics.Opts{Name: "tether_tree_store_bytes", Help: "Memory the shared tree store holds (estimated)."},
			stats(func(s store.CacheStats) float64 { return float64(s.Bytes) })),
		metrics.NewGaugeFunc(metrics.Opts{Name: "tether_child_processes", Help: "Processes descended from this one (kernels, language servers, debug adapters, workers); -1 where /proc cannot be read."},
			func() float64 { return float64(descendants(os.Getpid())) }),
	)
	return reg
}

// descendants counts the live processes below pid, from /proc; -1 when
// /proc cannot be read.
func descendants(pid int) int {
	pids, ok := descendantPids(pid)
	if !ok {
		return -1
	}
	return len(pids)
}

// descendantPids lists the live processes below pid, from /proc; false when
// /proc cannot be read.
func descendantPids(pid int) ([]int, bool) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return nil, false
	}
	children := map[int][]int{}
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // it ended
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:]) // state, ppid, ...
		if i < 0 || len(f) < 2 || f[0] == "Z" {
			continue
		}
		c, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		pp, _ := strconv.Atoi(f[1])
		children[pp] = append(children[pp], c)
	}
	var found []int
	for todo := children[pid]; len(todo) > 0; {
		c := todo[len(todo)-1]
		todo = append(todo[:len(todo)-1], children[c]...)
		found = append(found, c)
	}
	return found, true
}
