package metrics

import "bufio"
import "os"
import "runtime"
import "runtime/metrics"
import "strconv"
import "strings"

// goCollector writes the Go runtime's series, under client_golang's names.
type goCollector struct{}

// NewGoCollector returns the collector of the Go runtime's series:
// goroutines, threads, the heap, collections and the collector's settings.
func NewGoCollector() Collector { return goCollector{} }

var goNames = []string{"go_info", "go_goroutines", "go_threads", "go_sched_gomaxprocs_threads",
	"go_memstats_alloc_bytes", "go_memstats_heap_inuse_bytes", "go_memstats_heap_objects", "go_memstats_sys_bytes",
	"go_memstats_last_gc_time_seconds", "go_gc_duration_seconds", "go_gc_gogc_percent", "go_gc_gomemlimit_bytes"}

func (goCollector) names() []string { return goNames }

func (goCollector) write(w *bufio.Writer) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	threads, _ := runtime.ThreadCreateProfile(nil)
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	gauge := func(name, help string, v float64) {
		header(w, Opts{name, help}, "gauge")
		sample(w, name, v)
	}
	header(w, Opts{"go_info", "Information about the Go environment."}, "gauge")
	sample(w, "go_info", 1, "version", runtime.Version())
	gauge("go_goroutines", "Number of goroutines that currently exist.", float64(runtime.NumGoroutine()))
	gauge("go_threads", "Number of OS threads created.", float64(threads))
	gauge("go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS setting.", float64(runtime.GOMAXPROCS(0)))
	gauge("go_memstats_alloc_bytes", "Number of bytes allocated in heap and currently in use.", float64(ms.HeapAlloc))
	gauge("go_memstats_heap_inuse_bytes", "Number of heap bytes that are in use.", float64(ms.HeapInuse))
	gauge("go_memstats_heap_objects", "Number of currently allocated objects.", float64(ms.HeapObjects))
	gauge("go_memstats_sys_bytes", "Number of bytes obtained from system.", float64(ms.Sys))
	gauge("go_memstats_last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection.", float64(ms.LastGC)/1e9)
	header(w, Opts{"go_gc_duration_seconds", "Sum and count of the garbage collection pauses."}, "summary")
	sample(w, "go_gc_duration_seconds_sum", float64(ms.PauseTotalNs)/1e9)
	sample(w, "go_gc_duration_seconds_count", float64(ms.NumGC))
	gauge("go_gc_gogc_percent", "Heap size target percentage configured by the user (GOGC), otherwise 100.", float64(int64(s[0].Value.Uint64())))
	gauge("go_gc_gomemlimit_bytes", "Go runtime memory limit configured by the user (GOMEMLIMIT), otherwise math.MaxInt64.", float64(s[1].Value.Uint64()))
}

// processCollector writes the process's series from /proc/self, under
// client_golang's names; where /proc cannot be read it writes none.
type processCollector struct{}

// NewProcessCollector returns the collector of the process's series: CPU
// time, resident and virtual memory, open and most file descriptors, and
// the start time (Linux; none elsewhere).
func NewProcessCollector() Collector { return processCollector{} }

func (processCollector) names() []string {
	return []string{"process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
		"process_open_fds", "process_max_fds", "process_start_time_seconds"}
}

// clockTicks is the kernel's USER_HZ, which /proc's times count in (100 on
// every Linux architecture Go supports).
const clockTicks = 100

func (processCollector) write(w *bufio.Writer) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return
	}
	f := strings.Fields(s[i+1:]) // field 3 (state) on
	if len(f) < 22 {
		return
	}
	num := func(k int) float64 { v, _ := strconv.ParseFloat(f[k-3], 64); return v }
	one := func(name, help, typ string, v float64) {
		header(w, Opts{name, help}, typ)
		sample(w, name, v)
	}
	one("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", "counter", (num(14)+num(15))/clockTicks)
	one("process_resident_memory_bytes", "Resident memory size in bytes.", "gauge", num(24)*float64(os.Getpagesize()))
	one("process_virtual_memory_bytes", "Virtual memory size in bytes.", "gauge", num(23))
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		one("process_open_fds", "Number of open file descriptors.", "gauge", float64(len(fds)))
	}
	if n, ok := maxFDs(); ok {
		one("process_max_fds", "Maximum number of open file descriptors.", "gauge", n)
	}
	if boot := bootTime(); boot > 0 {
		one("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", "gauge", boot+num(22)/clockTicks)
	}
}

// bootTime is /proc/stat's btime, 0 when it cannot be read.
func bootTime() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			n, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return n
		}
	}
	return 0
}
