package main

import "context"
import "path/filepath"
import "runtime"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// BenchmarkVsAstGrep runs the comparison on a small slice of the standard
// library so CI keeps it working (make bench-once); ratios are reported as
// metrics, never asserted. The README's table comes from `go run ./bench/astgrep`.
func BenchmarkVsAstGrep(b *testing.B) {
	ag := testenv.RequireBinary(b, "ast-grep")
	tether := testenv.BuildTether(b)
	corpus := filepath.Join(runtime.GOROOT(), "src", "sync")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rows, err := Run(context.Background(), ag, tether, corpus, runtime.NumCPU(), Patterns[:2])
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range rows {
			name := strings.NewReplacer(" ", "", "$", "", "{", "", "}", "", "(", "", ")", "").Replace(r.Pattern)
			b.ReportMetric(r.AstGrep.Seconds()/r.Cold.Seconds(), name+"-cold-ratio")
			b.ReportMetric(r.AstGrep.Seconds()/r.Warm.Seconds(), name+"-warm-ratio")
		}
	}
}
