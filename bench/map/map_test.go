package repomap_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/engine"
	"github.com/tetherhq/tether/search"
	"github.com/tetherhq/tether/search/store"
	"github.com/tetherhq/tether/tools"
)

// TestMapStdlib prints the cold, warm and focused warm map of the standard
// library through the tool: wall time, the heap in use after the call
// (after a GC), the process's peak resident memory, the trees the store
// holds, and the answer's size against its budget.
func TestMapStdlib(t *testing.T) {
	if os.Getenv("TETHER_BENCH_MAP") == "" {
		t.Skip("set TETHER_BENCH_MAP=1 to map the Go standard library (parses all of it)")
	}
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.NewConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	src := filepath.Join(runtime.GOROOT(), "src")
	r, err := tools.NewRun(ctx, tools.Config{WorkDir: src, Surface: tools.SurfacePlan, Search: tools.SearchConfig{Parser: eng}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fmt.Printf("corpus: %s (%s, %d cores, GOMAXPROCS %d)\n\n", src, runtime.Version(), runtime.NumCPU(), runtime.GOMAXPROCS(0))
	fmt.Println("| map | wall | heap in use after | peak RSS | trees in the store | answer (tokens / budget) | definitions shown / found | files outlined (languages) |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, c := range []struct{ name, args string }{
		{"cold, whole library", `{}`},
		{"warm, whole library", `{}`},
		{"warm, focused (paths net/http, query handler)", `{"paths":["net/http"],"query":"handler"}`},
		{"warm, budget 8000", `{"budget":8000}`},
	} {
		start := time.Now()
		res, err := r.Call(ctx, "map", json.RawMessage(c.args), tools.FromModel)
		wall := time.Since(start)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		out, ok := res.Structured.(*tools.MapResult)
		if !ok {
			t.Fatalf("%s: %s", c.name, res.AllText())
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		st := store.SharedCache().Stats()
		fmt.Printf("| %s | %.2f s | %d MiB | %s | %d (%d MiB) | %d / %d | %d / %d | %d (%d) |\n", c.name, wall.Seconds(), m.HeapInuse>>20, peakRSS(),
			st.Entries, st.Bytes>>20, out.Tokens, out.Budget, out.Shown, out.Total, out.Outlined, len(out.Languages))
		if os.Getenv("TETHER_BENCH_MAP_SHOW") != "" {
			fmt.Println(res.AllText())
		}
	}
}

// peakRSS is the process's peak resident memory (VmHWM), or "?".
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return fmt.Sprintf("%d MiB", kb>>10)
		}
	}
	return "?"
}

// BenchmarkMap maps go/ast, go/token and go/parser of the standard
// library: cold (a new store each time) and warm (the trees stored).
func BenchmarkMap(b *testing.B) {
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.NewConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close(ctx)
	src := filepath.Join(runtime.GOROOT(), "src")
	q := search.MapQuery{Paths: []string{filepath.Join(src, "go", "ast"), filepath.Join(src, "go", "token"), filepath.Join(src, "go", "parser")}}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			s := search.NewSearcher(eng, search.Config{Root: src, Cache: store.NewCache(0)})
			if _, err := s.Map(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		s := search.NewSearcher(eng, search.Config{Root: src, Cache: store.NewCache(0)})
		if _, err := s.Map(ctx, q); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for b.Loop() {
			if _, err := s.Map(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
	})
}
