package main

import "context"
import "path/filepath"
import "runtime"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// BenchmarkScanVsAstGrep runs the comparison on a small slice of the
// standard library so CI keeps it working (make bench-once); the table is
// reported, never asserted. The README's table comes from `go run
// ./bench/scan`.
func BenchmarkScanVsAstGrep(b *testing.B) {
	ag := testenv.RequireBinary(b, "ast-grep")
	tether := testenv.BuildTether(b)
	corpus := filepath.Join(runtime.GOROOT(), "src", "sync")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		table, err := Run(context.Background(), ag, tether, corpus, runtime.NumCPU())
		if err != nil {
			b.Fatal(err)
		}
		if !strings.Contains(table, "lock-without-defer") {
			b.Fatalf("the table names no rule:\n%s", table)
		}
		b.Log(table)
	}
}
