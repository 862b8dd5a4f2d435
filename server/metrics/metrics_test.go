package metrics_test

import "bufio"
import "math"
import "net/http/httptest"
import "os"
import "strconv"
import "strings"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/server/metrics"

// TestExposition: each metric kind is written in the text format, label
// values escaped, a series' labels in name order (le last) and series
// sorted by their label values.
func TestExposition(t *testing.T) {
	reg := metrics.NewRegistry()
	calls := metrics.NewCounterVec(metrics.Opts{Name: "calls_total", Help: "Calls by tool\nand outcome."}, []string{"tool", "outcome"})
	lat := metrics.NewHistogramVec(metrics.Opts{Name: "call_seconds", Help: "Latency."}, []float64{0.1, 1}, []string{"tool"})
	cut := metrics.NewCounter(metrics.Opts{Name: "cut_total", Help: `A \ help.`})
	open := 3.0
	reg.MustRegister(calls, lat, cut,
		metrics.NewGaugeFunc(metrics.Opts{Name: "open", Help: "Open."}, func() float64 { return open }),
		metrics.NewCounterFunc(metrics.Opts{Name: "hits_total", Help: "Hits."}, func() float64 { return 1e21 }))
	calls.WithLabelValues("zed", "ok").Inc()
	calls.WithLabelValues("a\"b\\c\nd", "error").Add(2)
	calls.WithLabelValues("zed", "ok").Add(0.5)
	calls.WithLabelValues("zed", "ok").Add(-1) // a counter never goes down
	for _, v := range []float64{0.05, 0.1, 0.5, 7} {
		lat.WithLabelValues("eval").Observe(v)
	}
	cut.Inc()
	open = 4

	rec := httptest.NewRecorder()
	reg.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("content type %q", ct)
	}
	want := `# HELP calls_total Calls by tool\nand outcome.
# TYPE calls_total counter
calls_total{outcome="error",tool="a\"b\\c\nd"} 2
calls_total{outcome="ok",tool="zed"} 1.5
# HELP call_seconds Latency.
# TYPE call_seconds histogram
call_seconds_bucket{tool="eval",le="0.1"} 2
call_seconds_bucket{tool="eval",le="1"} 3
call_seconds_bucket{tool="eval",le="+Inf"} 4
call_seconds_sum{tool="eval"} 7.65
call_seconds_count{tool="eval"} 4
# HELP cut_total A \\ help.
# TYPE cut_total counter
cut_total 1
# HELP open Open.
# TYPE open gauge
open 4
# HELP hits_total Hits.
# TYPE hits_total counter
hits_total 1e+21
`
	if got := rec.Body.String(); got != want {
		t.Errorf("exposition:\n%s\nwant:\n%s", got, want)
	}
}

// TestRegisterRejects: a name registered twice, or not a metric name, is
// a programming error and panics; so are label values that do not fit.
func TestRegisterRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"twice", func() {
			reg := metrics.NewRegistry()
			reg.MustRegister(metrics.NewCounter(metrics.Opts{Name: "a_total"}))
			reg.MustRegister(metrics.NewCounter(metrics.Opts{Name: "a_total"}))
		}},
		{"histogram suffix", func() {
			reg := metrics.NewRegistry()
			reg.MustRegister(metrics.NewHistogramVec(metrics.Opts{Name: "h"}, []float64{1}, nil),
				metrics.NewCounter(metrics.Opts{Name: "h_count"}))
		}},
		{"bad name", func() { metrics.NewRegistry().MustRegister(metrics.NewCounter(metrics.Opts{Name: "9-lives"})) }},
		{"label count", func() {
			metrics.NewCounterVec(metrics.Opts{Name: "v"}, []string{"a", "b"}).WithLabelValues("x")
		}},
		{"buckets", func() { metrics.NewHistogramVec(metrics.Opts{Name: "h"}, []float64{2, 1}, nil) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			c.f()
		})
	}
}

// TestRuntimeCollectors: the Go and process collectors write the series
// client_golang's did under the same names, and the process's resident
// memory agrees with /proc/self/status.
// sink keeps TestRuntimeCollectors' busy loop from being optimised away.
var sink int

func TestRuntimeCollectors(t *testing.T) {
	// /proc counts CPU time in ticks of 10 ms: a test binary that has used
	// less than one shows 0. Work until the kernel has counted some
	// (bounded: a few seconds of wall time).
	for start := time.Now(); time.Since(start) < 5*time.Second; {
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil || time.Duration(ru.Utime.Nano()+ru.Stime.Nano()) >= 30*time.Millisecond {
			break
		}
		for i := 0; i < 1e6; i++ {
			sink += i
		}
	}
	reg := metrics.NewRegistry()
	reg.MustRegister(metrics.NewGoCollector(), metrics.NewProcessCollector())
	var b strings.Builder
	if _, err := reg.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		name := line[:i]
		if j := strings.IndexByte(name, '{'); j >= 0 {
			name = name[:j]
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got[name] = v
	}
	wantPositive := []string{"go_info", "go_goroutines", "go_threads", "go_sched_gomaxprocs_threads", "go_memstats_alloc_bytes",
		"go_memstats_heap_inuse_bytes", "go_memstats_heap_objects", "go_memstats_sys_bytes", "go_gc_gomemlimit_bytes"}
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		wantPositive = append(wantPositive, "process_cpu_seconds_total", "process_resident_memory_bytes",
			"process_virtual_memory_bytes", "process_open_fds", "process_max_fds", "process_start_time_seconds")
	}
	for _, name := range wantPositive {
		if v, ok := got[name]; !ok || !(v > 0) || math.IsInf(v, 0) {
			t.Errorf("%s = %v (present %v), want a positive number", name, v, ok)
		}
	}
	for _, name := range []string{"go_gc_duration_seconds_sum", "go_gc_duration_seconds_count", "go_memstats_last_gc_time_seconds", "go_gc_gogc_percent"} {
		if _, ok := got[name]; !ok {
			t.Errorf("%s missing", name)
		}
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if rss := got["process_resident_memory_bytes"]; rss < kb*1024/2 || rss > kb*1024*2 {
				t.Errorf("process_resident_memory_bytes %v, /proc/self/status VmRSS %v kB", rss, kb)
			}
		}
	}
}
