package kernels_test

import "encoding/json"
import "errors"
import "flag"
import "os/exec"
import "strconv"
import "testing"

// zygoteKernels is how many kernels BenchmarkPythonZygote starts at once
// each way (go test ... -args -zygote-kernels 50).
var zygoteKernels = flag.Int("zygote-kernels", 20, "kernels BenchmarkPythonZygote starts at once, fresh and forked")

// zygoteRun is testdata/zygote.py's report.
type zygoteRun struct {
	Kernels int `json:"kernels"`
	Fresh   struct {
		PSS float64 `json:"pss_kib_avg"`
		P50 float64 `json:"first_cell_p50_s"`
		Max float64 `json:"first_cell_max_s"`
	} `json:"fresh"`
	Forked struct {
		PSS float64 `json:"pss_kib_avg"`
		P50 float64 `json:"first_cell_p50_s"`
		Max float64 `json:"first_cell_max_s"`
	} `json:"forked"`
	ZygotePSS  float64 `json:"zygote_pss_kib"`
	ZygoteBoot float64 `json:"zygote_boot_s"`
}

// BenchmarkPythonZygote sizes what a zygote would save (bench/README.md,
// "kernels"): N kernels each started as a fresh python3 that compiles the
// driver in pieces, against N children forked from one python3 that
// compiled the driver's definitions once, each running the driver's main
// over its own pipes (passed to the zygote with SCM_RIGHTS) and one cell.
// It reports each kernel's PSS after its first cell and how long that cell
// took from the start request, both ways, measured in the same run; neither
// side is sandboxed, so it says nothing of the sandbox's own cost.
func BenchmarkPythonZygote(b *testing.B) {
	requirePython(b)
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(debianPython, "testdata/zygote.py", "../../kernels/python/driver.py", strconv.Itoa(*zygoteKernels))
		out, err := cmd.Output()
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			b.Fatalf("testdata/zygote.py: %v: %s", err, ee.Stderr)
		} else if err != nil {
			b.Fatal(err)
		}
		var r zygoteRun
		if err := json.Unmarshal(out, &r); err != nil {
			b.Fatalf("testdata/zygote.py printed %q: %v", out, err)
		}
		if r.Kernels != *zygoteKernels || r.Fresh.PSS <= 0 || r.Forked.PSS <= 0 {
			b.Fatalf("testdata/zygote.py: incomplete report %s", out)
		}
		b.ReportMetric(r.Fresh.PSS/1024, "fresh-PSS-MiB/kernel")
		b.ReportMetric(r.Forked.PSS/1024, "forked-PSS-MiB/kernel")
		b.ReportMetric(r.ZygotePSS/1024, "zygote-PSS-MiB")
		b.ReportMetric(r.Fresh.P50, "fresh-first-cell-p50-s")
		b.ReportMetric(r.Fresh.Max, "fresh-first-cell-max-s")
		b.ReportMetric(r.Forked.P50, "forked-first-cell-p50-s")
		b.ReportMetric(r.Forked.Max, "forked-first-cell-max-s")
		b.ReportMetric(r.Fresh.PSS/r.Forked.PSS, "PSS-fresh/forked")
	}
}
