package debug_test

import "context"
import "encoding/json"
import "os/exec"
import "slices"
import "strconv"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

const goProg = `package main

import "fmt"

func main() {
	x := 41
	fmt.Println(x + 1)
}
`

const pyProg = `x = 41
print(x + 1)
`

const jsProg = `const x = 41;
console.log(x + 1);
`

const cProg = `#include <stdio.h>

int main(void) {
	int x = 41;
	printf("%d\n", x + 1);
	return 0;
}
`

// target is one adapter's tiny program and where it first stops.
type target struct {
	adapter string            // adapter id in the debug tool's table
	files   map[string]string // the workspace
	build   []string          // a build command run in the workspace first, if any
	program string            // launch's program
	file    string            // the breakpoint's file
	line    int               // the breakpoint's line
}

var targets = []target{
	{adapter: "delve", files: map[string]string{"go.mod": "module tiny\n\ngo 1.21\n", "main.go": goProg},
		program: "main.go", file: "main.go", line: 7},
	{adapter: "debugpy", files: map[string]string{"requirements.txt": "", "tiny.py": pyProg},
		program: "tiny.py", file: "tiny.py", line: 2},
	{adapter: "lldb", files: map[string]string{"main.c": cProg},
		build: []string{"cc", "-g", "-O0", "-o", "tiny", "main.c"}, program: "tiny", file: "main.c", line: 5},
	{adapter: "node", files: map[string]string{"package.json": "{}\n", "tiny.js": jsProg},
		program: "tiny.js", file: "tiny.js", line: 2},
}

// BenchmarkLaunchToFirstStop: for each adapter, each iteration starts a new
// run with its own debug supervisor, sets one line breakpoint, and times the
// launch call, which returns at the first stop. It reports the median, min
// and max in ms over the iterations (-benchtime Nx for N launches). A Go
// launch includes delve's build of the program (from a warm build cache
// after the first), as an agent sees it.
func BenchmarkLaunchToFirstStop(b *testing.B) {
	for _, tg := range targets {
		b.Run(tg.adapter, func(b *testing.B) {
			dir := testenv.Workspace(b, tg.files)
			if tg.build != nil {
				cc := testenv.RequireBinary(b, tg.build[0])
				cmd := exec.Command(cc, tg.build[1:]...)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%s: %v\n%s", strings.Join(tg.build, " "), err, out)
				}
			}
			requireAdapter(b, dir, tg.adapter)
			bp := map[string]any{"op": "breakpoints", "file": tg.file, "lines": []int{tg.line}}
			launch := map[string]any{"op": "launch", "program": tg.program, "adapter": tg.adapter}
			want := tg.file + ":" + itoa(tg.line)
			var ms []float64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				run, call := newRun(b, dir)
				call(bp)
				b.StartTimer()
				start := time.Now()
				out := call(launch)
				d := time.Since(start)
				b.StopTimer()
				if !strings.Contains(out, want) {
					run.Close()
					b.Fatalf("launch should stop at %s:\n%s", want, out)
				}
				ms = append(ms, float64(d.Microseconds())/1000)
				if err := run.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.StopTimer()
			slices.Sort(ms)
			b.ReportMetric(ms[len(ms)/2], "median-ms")
			b.ReportMetric(ms[0], "min-ms")
			b.ReportMetric(ms[len(ms)-1], "max-ms")
		})
	}
}

// requireAdapter skips (or fails under TETHER_REQUIRE_PEERS=1) the case when
// the debug tool's adapters op says the adapter cannot start in dir, naming
// it and why. A missing root marker is the benchmark's own fault and fails.
func requireAdapter(b *testing.B, dir, id string) {
	b.Helper()
	run, call := newRun(b, dir)
	defer run.Close()
	out := call(map[string]any{"op": "adapters"})
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "- ")
		if !strings.HasPrefix(line, id+": unavailable") {
			continue
		}
		if strings.Contains(line, "marker missing") {
			b.Fatalf("the benchmark's workspace lacks the adapter's root marker: %s", line)
		}
		testenv.Missing(b, "debug adapter "+id+" ("+line+")")
	}
}

// newRun starts a run in dir with its own debug supervisor and returns it
// with a call of its debug tool that fails the benchmark on an error result.
func newRun(b *testing.B, dir string) (*tools.Run, func(args map[string]any) string) {
	b.Helper()
	sv := dap.NewSupervisor(dap.Config{})
	b.Cleanup(func() { sv.Close() })
	run, err := tools.NewRun(context.Background(), tools.Config{
		WorkDir: dir, ConversationID: "bench", Surface: tools.SurfaceDefault,
		Policy: tools.PolicyOf(tools.Allow), Debug: sv,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { run.Close() })
	return run, func(args map[string]any) string {
		b.Helper()
		raw, err := json.Marshal(args)
		if err != nil {
			b.Fatal(err)
		}
		res, err := run.Call(context.Background(), "debug", raw, tools.FromModel)
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %s", raw, err, res.AllText())
		}
		return res.AllText()
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
