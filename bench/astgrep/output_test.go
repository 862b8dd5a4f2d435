package main

import "context"
import "encoding/json"
import "path/filepath"
import "runtime"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/tools"

// outputSizeModes are the output choices BenchmarkOutputSize measures ("" is
// the default).
var outputSizeModes = []string{"", "full", "captures"}

// BenchmarkOutputSize measures what a 50-match ast_grep over whole functions
// costs an agent: the bytes of its text and of its structuredContent (the
// JSON of Result.Structured), reported as metrics for bench/README.md's
// table, never asserted. The corpus is the standard library's strings
// package, searched in place (read tier).
func BenchmarkOutputSize(b *testing.B) {
	ctx := context.Background()
	eng := enginetest.Engine(b)
	r, err := tools.NewRun(ctx, tools.Config{
		WorkDir: filepath.Join(runtime.GOROOT(), "src", "strings"),
		Surface: tools.SurfacePlan,
		Policy:  tools.PolicyOf(tools.Allow),
		Search:  tools.SearchConfig{Parser: eng},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for _, output := range outputSizeModes {
		b.Run("output="+output, func(b *testing.B) {
			args := `{"pattern":"func $F($$$A) $$$R { $$$B }","language":"go","max_results":50`
			if output != "" {
				args += `,"output":"` + output + `"`
			}
			args += `}`
			for i := 0; i < b.N; i++ {
				res, err := r.Call(ctx, "ast_grep", json.RawMessage(args), tools.FromModel)
				if err != nil {
					b.Fatal(err)
				}
				structured, err := json.Marshal(res.Structured)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(res.AllText())), "text-bytes")
				b.ReportMetric(float64(len(structured)), "structured-bytes")
			}
		})
	}
}
