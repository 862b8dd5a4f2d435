// BenchmarkParseGoStdlib is the quick `go test -bench` side of this program:
// it parses part of Go's standard library once per iteration so CI runs the
// parse path (make bench-once). The comparison with native tree-sitter is
// main.go (see bench/README.md).
package main

import "context"
import "os"
import "os/exec"
import "path/filepath"
import "runtime"
import "strconv"
import "strings"
import "testing"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/engine/enginetest"

// stdlibSubset loads a few packages of GOROOT/src: about half a megabyte.
func stdlibSubset(b *testing.B) ([][]byte, int64) {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	var srcs [][]byte
	var total int64
	for _, dir := range []string{"go/parser", "go/ast", "go/scanner", "go/token", "strings", "bufio", "container/list"} {
		ents, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".go") {
				continue
			}
			src, err := os.ReadFile(filepath.Join(root, dir, e.Name()))
			if err != nil {
				b.Fatal(err)
			}
			srcs = append(srcs, src)
			total += int64(len(src))
		}
	}
	return srcs, total
}

// BenchmarkParseGoStdlib parses the subset once per iteration, on one core and
// on all cores; -benchmem and the MB/s column give throughput.
func BenchmarkParseGoStdlib(b *testing.B) {
	e := enginetest.Engine(b, "go")
	srcs, total := stdlibSubset(b)
	ctx := context.Background()
	goLang := enginetest.Language(b, "go")
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("cores="+strconv.Itoa(workers), func(b *testing.B) {
			p := e.NewParser(engine.Limits{Instances: workers})
			defer p.Close(ctx)
			if _, err := p.Parse(ctx, goLang, srcs[0]); err != nil { // warm: compile, instantiate
				b.Fatal(err)
			}
			b.SetBytes(total)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := parseAll(ctx, p, goLang, srcs, int64(len(srcs)), workers, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
