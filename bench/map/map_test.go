package repomap_test

import "bufio"
import "bytes"
import "context"
import "encoding/json"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "runtime"
import "strings"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/store"
import "github.com/tetherhq/tether/tools"

// mapCall is one call of a bench's table.
type mapCall struct{ name, args string }

// mapRow is what one call measured.
type mapRow struct {
	Name                       string
	Wall, CPU                  float64 // seconds; CPU is user+sys of the process
	HeapMiB                    uint64
	RSS                        string
	Trees, TreeMiB             int
	Outlines, OutlineMiB       int
	Tokens, Budget             int
	Shown, Total, Outlined, NL int
}

// TestMapStdlib prints the map of the standard library through the tool:
// cold, warm (same process) and warm in a new process whose disk tier the
// cold call filled.
func TestMapStdlib(t *testing.T) {
	if os.Getenv("TETHER_BENCH_MAP") == "" {
		t.Skip("set TETHER_BENCH_MAP=1 to map the Go standard library (parses all of it)")
	}
	benchMap(t, filepath.Join(runtime.GOROOT(), "src"), `{"paths":["net/http"],"query":"handler"}`)
}

// TestMapTypeScript prints the same table for the TypeScript project
// checked out at $TETHER_BENCH_MAP_TS.
func TestMapTypeScript(t *testing.T) {
	dir := os.Getenv("TETHER_BENCH_MAP_TS")
	if dir == "" {
		t.Skip("set TETHER_BENCH_MAP_TS to a TypeScript project's checkout (typeorm) to map it")
	}
	benchMap(t, dir, `{"paths":["src/query-builder"],"query":"select"}`)
}

// benchMap maps corpus cold, warm, focused (focus's args) and in a new
// process, with a new disk tier, and prints the table.
func benchMap(t *testing.T, corpus, focus string) {
	tier := t.TempDir()
	d, err := store.OpenDiskCache(tier, 0)
	if err != nil {
		t.Fatal(err)
	}
	store.SharedCache().SetDisk(d)
	defer store.SharedCache().SetDisk(nil)
	fmt.Printf("corpus: %s (%s, %d cores, GOMAXPROCS %d)\n\n", corpus, runtime.Version(), runtime.NumCPU(), runtime.GOMAXPROCS(0))
	fmt.Println("| map | wall | CPU (user+sys) | heap in use after | peak RSS | trees in the store | outlines in the store | answer (tokens / budget) | definitions shown / found | files outlined (languages) |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	rows := mapRows(t, corpus, []mapCall{
		{"cold, whole project", `{}`},
		{"warm, whole project", `{}`},
		{"warm, focused " + focus, focus},
		{"warm, budget 8000", `{"budget":8000}`},
	})
	d.Settle(5 * time.Minute)
	rows = append(rows, childRow(t, corpus, tier))
	for _, r := range rows {
		fmt.Printf("| %s | %.2f s | %.2f s | %d MiB | %s | %d (%d MiB) | %d (%d MiB) | %d / %d | %d / %d | %d (%d) |\n", r.Name, r.Wall, r.CPU, r.HeapMiB, r.RSS,
			r.Trees, r.TreeMiB, r.Outlines, r.OutlineMiB, r.Tokens, r.Budget, r.Shown, r.Total, r.Outlined, r.NL)
	}
}

// mapRows makes calls through one run over corpus, in this process.
func mapRows(t *testing.T, corpus string, calls []mapCall) []mapRow {
	ctx := context.Background()
	eng := enginetest.Engine(t)
	r, err := tools.NewRun(ctx, tools.Config{WorkDir: corpus, Surface: tools.SurfacePlan, Search: tools.SearchConfig{Parser: eng}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rows []mapRow
	for _, c := range calls {
		start, cpu := time.Now(), cpuTime()
		res, err := r.Call(ctx, "map", json.RawMessage(c.args), tools.FromModel)
		row := mapRow{Name: c.name, Wall: time.Since(start).Seconds(), CPU: cpuTime() - cpu}
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
		row.HeapMiB, row.RSS = m.HeapInuse>>20, peakRSS()
		row.Trees, row.TreeMiB, row.Outlines, row.OutlineMiB = st.Entries, int(st.Bytes>>20), st.Outlines, int(st.OutlineBytes>>20)
		row.Tokens, row.Budget, row.Shown, row.Total, row.Outlined, row.NL = out.Tokens, out.Budget, out.Shown, out.Total, out.Outlined, len(out.Languages)
		rows = append(rows, row)
		if os.Getenv("TETHER_BENCH_MAP_SHOW") != "" {
			fmt.Println(res.AllText())
		}
	}
	return rows
}

// childRow maps corpus in a new process (this test binary, running
// TestMapChild) whose store has only the disk tier at tier.
func childRow(t *testing.T, corpus, tier string) mapRow {
	cmd := exec.Command(os.Args[0], "-test.run", "^TestMapChild$", "-test.v")
	cmd.Env = append(os.Environ(), "TETHER_BENCH_MAP_CHILD="+corpus, "TETHER_BENCH_MAP_TIER="+tier)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the new process: %v\n%s", err, out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "maprow: "); ok {
			var r mapRow
			if err := json.Unmarshal([]byte(v), &r); err != nil {
				t.Fatal(err)
			}
			return r
		}
	}
	t.Fatalf("the new process printed no row:\n%s", out)
	return mapRow{}
}

// TestMapChild is the new process of childRow: one warm map from the disk
// tier, its row printed as JSON.
func TestMapChild(t *testing.T) {
	corpus, tier := os.Getenv("TETHER_BENCH_MAP_CHILD"), os.Getenv("TETHER_BENCH_MAP_TIER")
	if corpus == "" || tier == "" {
		t.Skip("run by TestMapStdlib and TestMapTypeScript")
	}
	d, err := store.OpenDiskCache(tier, 0)
	if err != nil {
		t.Fatal(err)
	}
	store.SharedCache().SetDisk(d)
	rows := mapRows(t, corpus, []mapCall{{"warm, new process (disk tier warm)", `{}`}})
	b, _ := json.Marshal(rows[0])
	fmt.Printf("maprow: %s\n", b)
}

// cpuTime is the process's user+sys time so far, in seconds.
func cpuTime() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
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
// library: cold (a new store each time) and warm (the outlines stored).
func BenchmarkMap(b *testing.B) {
	ctx := context.Background()
	eng := enginetest.Engine(b)
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
