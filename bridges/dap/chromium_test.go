package dap_test

import "path/filepath"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"

// tsPage is a page's script in TypeScript: tick runs three times as the
// page loads (line 7 once per call), with types tsc erases so that the
// .ts and .js lines differ.
const tsPage = `interface Item {
  n: number;
}

function tick(item: Item): number {
  const total: number = item.n * 10;
  return total;
}

const results: number[] = [];
for (let i = 0; i < 3; i++) results.push(tick({ n: i }));
console.log("ticks", results.join(","));
`

const tsPageHTML = `<!doctype html>
<html><head><title>ticks</title></head>
<body><script src="dist/app.js"></script></body></html>
`

// needChromium skips without Chromium (or fails under
// TETHER_REQUIRE_PEERS=1) and returns it.
func needChromium(t *testing.T) string {
	t.Helper()
	if bin := testenv.LookPath("chromium"); bin != "" {
		return bin
	}
	return testenv.RequireBinary(t, "chromium-browser")
}

// TestChromiumTypeScript: a page's script in headless Chromium stops at a
// breakpoint in its TypeScript source. The .ts is compiled with the
// project's tsc to .js with a source map; the breakpoint, set on a .ts
// line before the launch, is hit while the page loads; the stop, the
// frames and a step are reported in the .ts, with the frame's locals;
// evaluate runs in the frame; the page's console output is the session's
// output; terminate closes the browser.
func TestChromiumTypeScript(t *testing.T) {
	t.Parallel()
	needChromium(t)
	root := testenv.Workspace(t, map[string]string{"index.html": tsPageHTML, "src/app.ts": tsPage})
	needTsc(t, root)
	buildIn(t, root, filepath.Join(root, "node_modules", ".bin", "tsc"), "--sourceMap", "--outDir", "dist", "--rootDir", "src", "--target", "es2022", "src/app.ts")
	sv := dap.NewSupervisor(dap.Config{StopWait: 10 * time.Second})
	defer sv.Close()

	do(t, sv, "c", root, request{Op: "breakpoints", File: "src/app.ts", Lines: []int{7}})
	l := do(t, sv, "c", root, request{Op: "launch", Program: "index.html"})
	if l.Started == nil || l.Started.Adapter != "chromium" {
		t.Fatalf("index.html should launch with the chromium adapter: %s", l)
	}
	for _, a := range dap.DefaultAdapters() {
		if a.ID == "chromium" && strings.Join(a.Ops, ",") != strings.Join(l.Started.Ops, ",") {
			t.Errorf("chromium offers %v; its table entry says %v", l.Started.Ops, a.Ops)
		}
	}
	if l.Stop == nil || filepath.Base(l.Stop.File) != "app.ts" || l.Stop.Line != 7 || !strings.Contains(l.Stop.Source, "return total") {
		t.Fatalf("launch should stop at app.ts:7: %s", l)
	}
	if len(l.Breakpoints) != 1 || !l.Breakpoints[0].Verified || l.Breakpoints[0].Line != 7 {
		t.Fatalf("the .ts breakpoint should be verified at line 7: %s", l)
	}
	st := do(t, sv, "c", root, request{Op: "stack"})
	if len(st.Frames) < 2 || st.Frames[0].Name != "tick" || filepath.Base(st.Frames[1].File) != "app.ts" || st.Frames[1].Line != 11 {
		t.Fatalf("frames should be in app.ts (tick, then the loop at line 11): %s", st)
	}
	scopes := do(t, sv, "c", root, request{Op: "scopes", FrameID: st.Frames[0].ID})
	if len(scopes.Scopes) == 0 || scopes.Scopes[0].Name != "Local" {
		t.Fatalf("the frame's first scope should be its locals: %s", scopes)
	}
	vars := do(t, sv, "c", root, request{Op: "variables", Reference: scopes.Scopes[0].Reference})
	if v := findVar(t, vars.Variables, "total"); v.Value != "0" {
		t.Fatalf("total = %q at the first tick, want 0", v.Value)
	}
	if item := findVar(t, vars.Variables, "item"); item.Reference == 0 {
		t.Fatalf("item should have children: %+v", item)
	} else if n := findVar(t, do(t, sv, "c", root, request{Op: "variables", Reference: item.Reference}).Variables, "n"); n.Value != "0" {
		t.Fatalf("item.n = %q, want 0", n.Value)
	}
	c := do(t, sv, "c", root, request{Op: "continue"})
	if c.Stop == nil || c.Stop.Line != 7 {
		t.Fatalf("continue should stop at the second tick: %s", c)
	}
	evaluates(t, sv, root, "total", "10")
	evaluates(t, sv, root, "item.n + results.length", "2")
	over := do(t, sv, "c", root, request{Op: "step_over"})
	if over.Stop == nil || filepath.Base(over.Stop.File) != "app.ts" || over.Stop.Line != 11 {
		t.Fatalf("step_over should return to app.ts:11: %s", over)
	}
	do(t, sv, "c", root, request{Op: "breakpoints", File: "src/app.ts", Lines: []int{}})
	do(t, sv, "c", root, request{Op: "continue"})
	waitOutput(t, sv, root, "ticks 0,10,20")
	do(t, sv, "c", root, request{Op: "terminate"})
	testenv.RequireNoProcs(t, root)
}

// waitOutput polls the session's output until it holds want: a page that
// runs on has no end to wait for.
func waitOutput(t *testing.T, sv *dap.Supervisor, root, want string) {
	t.Helper()
	var out *reply
	for i := 0; i < 200; i++ {
		if out = do(t, sv, "c", root, request{Op: "output"}); strings.Contains(out.Output, want) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the page's console output should hold %q: %s", want, out)
}
