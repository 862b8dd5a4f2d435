package tools_test

import "context"
import "encoding/json"
import "fmt"
import "os/exec"
import "regexp"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

func debugRun(t *testing.T, dir, conv string, sv *dap.Supervisor, surface tools.Surface) *tools.Run {
	t.Helper()
	return startRun(t, tools.Config{
		WorkDir: dir, ConversationID: conv, Surface: surface,
		Policy: tools.PolicyOf(tools.Allow), Debug: sv,
	})
}

func TestDebugToolWiring(t *testing.T) {
	dir := t.TempDir()
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	if !hasTool(debugRun(t, dir, "c1", sv, tools.SurfaceDefault), "debug") {
		t.Fatal("debug should be registered with a supervisor, a working dir and a conversation id")
	}
	if hasTool(debugRun(t, dir, "", sv, tools.SurfaceDefault), "debug") {
		t.Fatal("debug must not be registered without a conversation id")
	}
	if hasTool(debugRun(t, dir, "c1", nil, tools.SurfaceDefault), "debug") {
		t.Fatal("debug must not be registered without a supervisor")
	}
	plan := debugRun(t, dir, "c1", sv, tools.SurfacePlan)
	if hasTool(plan, "debug") {
		t.Fatal("debug is exec tier: the plan surface must not list it")
	}
	if _, err := plan.Call(context.Background(), "debug", json.RawMessage(`{"op":"adapters"}`), tools.FromModel); err == nil {
		t.Fatal("a call by name from the plan surface must be refused")
	}
	run := debugRun(t, dir, "c1", sv, tools.SurfaceDefault)
	res, err := run.Call(context.Background(), "debug", json.RawMessage(`{"op":"adapters"}`), tools.FromModel)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.AllText(), "dart: unavailable") {
		t.Fatal(res.AllText())
	}
	if _, err := run.Call(context.Background(), "debug", json.RawMessage(`{"op":"fly"}`), tools.FromModel); err == nil {
		t.Fatal("an unknown op must fail schema validation")
	}
}

// TestDebugToolRunClose: a session driven through Run.Call is torn down,
// adapter and program, by Run.Close.
func TestDebugToolRunClose(t *testing.T) {
	requireDebianDebugpy(t)
	prog := "import time\n\nn = 0\nwhile True:\n    n += 1\n    time.sleep(0.05)\n"
	dir, run, call := debugWorkspace(t, map[string]string{"requirements.txt": "", "loop.py": prog})
	call(`{"op":"breakpoints","file":"loop.py","lines":[5]}`)
	out := call(`{"op":"launch","program":"loop.py"}`)
	if !strings.Contains(out, "loop.py:5") || !strings.Contains(out, "n += 1") {
		t.Fatalf("launch should stop at the breakpoint with its source line:\n%s", out)
	}
	out = call(`{"op":"evaluate","expression":"n + 1"}`)
	if !strings.Contains(out, "= 1") {
		t.Fatal(out)
	}
	if len(testenv.ProcsIn(dir)) == 0 {
		t.Fatal("no debug processes found while the session is live")
	}
	if err := run.Close(); err != nil {
		t.Fatal(err)
	}
	testenv.RequireNoProcs(t, dir)
}

// TestDebugToolVariablesStart: an agent pages through a long container with
// variables' start argument, as the cut result tells it to.
func TestDebugToolVariablesStart(t *testing.T) {
	requireDebianDebugpy(t)
	call := debugCaller(t, map[string]string{"requirements.txt": "", "big.py": "big = list(range(80))\nprint(len(big))\n"})
	call(`{"op":"breakpoints","file":"big.py","lines":[2]}`)
	if out := call(`{"op":"launch","program":"big.py"}`); !strings.Contains(out, "big.py:2") {
		t.Fatal(out)
	}
	m := regexp.MustCompile(`\[reference (\d+)\]`).FindStringSubmatch(call(`{"op":"evaluate","expression":"big"}`))
	if m == nil {
		t.Fatal("evaluate big gave no reference")
	}
	first := call(`{"op":"variables","reference":` + m[1] + `}`)
	if !strings.Contains(first, "for more, call variables with reference "+m[1]+" and start 50") {
		t.Fatal(first)
	}
	next := call(`{"op":"variables","reference":` + m[1] + `,"start":50}`)
	if !strings.Contains(next, "children 50-") || !strings.Contains(next, "= 79") {
		t.Fatal(next)
	}
}

// TestDebugToolStackStart: an agent pages through a stack deeper than 30
// frames with stack's start argument, as the cut result tells it to.
func TestDebugToolStackStart(t *testing.T) {
	requireDebianDebugpy(t)
	deep := "def depth(n):\n    if n == 0:\n        return 0\n    return 1 + depth(n - 1)\n\n\nprint(depth(40))\n"
	call := debugCaller(t, map[string]string{"requirements.txt": "", "deep.py": deep})
	call(`{"op":"breakpoints","file":"deep.py","lines":[3]}`)
	if out := call(`{"op":"launch","program":"deep.py"}`); !strings.Contains(out, "deep.py:3") {
		t.Fatal(out)
	}
	// depth(40) .. depth(0) and the module: 42 frames.
	first := call(`{"op":"stack"}`)
	if !strings.Contains(first, "30 of 42 frames shown") || !strings.Contains(first, "call stack with start 30") {
		t.Fatal(first)
	}
	if next := call(`{"op":"stack","start":30}`); !strings.Contains(next, "frames 30-41 of 42") || strings.Count(next, "[frame ") != 12 {
		t.Fatal(next)
	}
}

// TestDebugToolLaunchesGoTest: the tool takes test, and launch of a Go
// package with a test name stops in that test under delve's test mode.
func TestDebugToolLaunchesGoTest(t *testing.T) {
	testenv.RequireBinary(t, "dlv")
	testenv.RequireBinary(t, "go")
	call := debugCaller(t, map[string]string{
		"go.mod":       "module calc\n\ngo 1.21\n",
		"calc.go":      "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tx := Add(40, 1)\n\tif x != 41 {\n\t\tt.Fatal(x)\n\t}\n}\n",
	})
	call(`{"op":"breakpoints","file":"calc_test.go","lines":[7]}`)
	if out := call(`{"op":"launch","program":".","test":"TestAdd"}`); !strings.Contains(out, "calc_test.go:7") || !strings.Contains(out, "go test -run ^TestAdd$") {
		t.Fatal(out)
	}
	call(`{"op":"terminate"}`)
}

// debugCaller writes files into a new working dir and returns a call of the
// debug tool of a run there (its own supervisor) that fails the test on an
// error result.
func debugCaller(t *testing.T, files map[string]string) func(args string) string {
	t.Helper()
	_, _, call := debugWorkspace(t, files)
	return call
}

// debugWorkspace is debugCaller's working dir and run as well as its call.
func debugWorkspace(t *testing.T, files map[string]string) (string, *tools.Run, func(args string) string) {
	t.Helper()
	dir := testenv.Workspace(t, files)
	sv := dap.NewSupervisor(dap.Config{})
	t.Cleanup(func() { sv.Close() })
	run := debugRun(t, dir, "c1", sv, tools.SurfaceDefault)
	return dir, run, func(args string) string {
		t.Helper()
		res, err := run.Call(context.Background(), "debug", json.RawMessage(args), tools.FromModel)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", args, err, res.AllText())
		}
		return res.AllText()
	}
}

// requireDebianDebugpy skips (or fails, see testenv) a test without
// Debian's python3 and its python3-debugpy, which the debug tool's
// supervisor runs.
func requireDebianDebugpy(t *testing.T) {
	t.Helper()
	if exec.Command("/usr/bin/python3", "-c", "import debugpy").Run() != nil {
		testenv.Missing(t, "Debian's python3 with python3-debugpy")
	}
}

// tickProgram is a Python file whose tick(4) sets total to 40 (line 2) and
// returns it (line 3).
const tickProgram = "def tick(i):\n    total = i * 10\n    return total\n\n\nprint('got', tick(4))\n"

// debugTickAt launches prog as tick.py under real debugpy with a
// breakpoint at line, and returns the run, its debug call and what the
// launch said.
func debugTickAt(t *testing.T, prog string, line int) (*tools.Run, func(args string) string, string) {
	t.Helper()
	requireDebianDebugpy(t)
	_, run, call := debugWorkspace(t, map[string]string{"requirements.txt": "", "tick.py": prog})
	call(fmt.Sprintf(`{"op":"breakpoints","file":"tick.py","lines":[%d]}`, line))
	return run, call, call(`{"op":"launch","program":"tick.py"}`)
}

// TestDebugToolBreakpointKinds: the breakpoints op takes breakpoints with a
// hit condition and a logpoint for one file, function_breakpoints and
// exception_filters, in the shape clients rely on; the hit-count breakpoint
// stops on its third hit and the logpoint prints without stopping.
func TestDebugToolBreakpointKinds(t *testing.T) {
	requireDebianDebugpy(t)
	prog := "def tick(i):\n    total = i * 10\n    return total\n\n\nfor i in range(5):\n    tick(i)\nprint('done')\n"
	call := debugCaller(t, map[string]string{"requirements.txt": "", "count.py": prog})
	out := call(`{"op":"breakpoints","file":"count.py","breakpoints":[{"line":3,"hit_condition":"3"},{"line":2,"log_message":"tick {i}"}]}`)
	if !strings.Contains(out, "count.py:3 on hit 3 pending") || !strings.Contains(out, `logs "tick {i}" (does not stop)`) {
		t.Fatal(out)
	}
	if out := call(`{"op":"breakpoints","exception_filters":["raised"]}`); !strings.Contains(out, "exception filters: raised; no session yet") {
		t.Fatal(out)
	}
	if out := call(`{"op":"launch","program":"count.py"}`); !strings.Contains(out, "count.py:3") {
		t.Fatal(out)
	}
	if out := call(`{"op":"evaluate","expression":"i"}`); !strings.Contains(out, "= 2") {
		t.Fatalf("the hit-count breakpoint should stop on the third hit (i == 2): %s", out)
	}
	if out := call(`{"op":"output"}`); !strings.Contains(out, "tick 0") || !strings.Contains(out, "tick 2") {
		t.Fatalf("the logpoint should have printed each hit so far: %s", out)
	}
	out = call(`{"op":"breakpoints","function_breakpoints":["tick"],"exception_filters":["uncaught"]}`)
	if !strings.Contains(out, "function tick") || !strings.Contains(out, "uncaught (") {
		t.Fatal(out)
	}
	call(`{"op":"terminate"}`)
}

// TestDebugToolOptionalOps: set_variable, set_expression and modules go
// through the tool with real debugpy, and read_memory, which debugpy
// lacks, is refused naming debugpy and the optional ops it offers.
func TestDebugToolOptionalOps(t *testing.T) {
	run, call, out := debugTickAt(t, tickProgram, 3)
	if !strings.Contains(out, "tick.py:3") {
		t.Fatal(out)
	}
	scopes := call(`{"op":"scopes"}`)
	ref := regexp.MustCompile(`reference (\d+)`).FindStringSubmatch(scopes)
	if ref == nil {
		t.Fatal(scopes)
	}
	if out := call(`{"op":"set_variable","reference":` + ref[1] + `,"name":"total","value":"7"}`); !strings.Contains(out, "set total = 7") {
		t.Fatal(out)
	}
	if out := call(`{"op":"set_expression","expression":"total","value":"total * 6"}`); !strings.Contains(out, "set total = 42") {
		t.Fatal(out)
	}
	if out := call(`{"op":"modules"}`); !strings.Contains(out, "modules 0-") {
		t.Fatal(out)
	}
	msg := debugRefusal(t, run, `{"op":"read_memory","expression":"total"}`)
	if !strings.Contains(msg, "the debugpy adapter cannot read memory") || !strings.Contains(msg, "set_variable") {
		t.Fatalf("read_memory should be refused naming debugpy and what it offers: %q", msg)
	}
	call(`{"op":"terminate"}`)
}

// TestDebugToolSessionArg: session (a child session) is refused on ops
// that apply to the whole session, and a child that does not exist is
// refused, saying what to do.
func TestDebugToolSessionArg(t *testing.T) {
	dir := t.TempDir()
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	run := debugRun(t, dir, "c1", sv, tools.SurfaceDefault)
	for args, want := range map[string]string{
		`{"op":"status","session":1}`:  "status does not take session",
		`{"op":"threads","session":1}`: "no debug session is running",
	} {
		if msg := debugRefusal(t, run, args); !strings.Contains(msg, want) {
			t.Errorf("%s: want an error saying %q, got %q", args, want, msg)
		}
	}
}

// TestDebugToolBreakpointsFollowEdits: with real debugpy stopped at a
// breakpoint, an edit that adds two lines above it moves the breakpoint
// two lines down and sends it to the adapter again; one below it leaves it
// alone; a new launch of the edited file stops on the moved line, the same
// statement.
func TestDebugToolBreakpointsFollowEdits(t *testing.T) {
	run, call, out := debugTickAt(t, tickProgram, 3)
	if !strings.Contains(out, "tick.py:3") {
		t.Fatal(out)
	}
	edit := func(args string) string {
		t.Helper()
		return mustCall(t, run, "edit", args)
	}
	out = edit(`{"path":"tick.py","old_string":"def tick(i):\n","new_string":"# counts\n# by tens\ndef tick(i):\n"}`)
	if !strings.Contains(out, "debug: breakpoints of tick.py moved with the edit: line 3 -> 5; sent again to the debugpy adapter: 5 ") {
		t.Fatalf("the edit should move the breakpoint and say so: %s", out)
	}
	if out := edit(`{"path":"tick.py","old_string":"print('got', tick(4))","new_string":"print('got', tick(5))"}`); strings.Contains(out, "debug:") {
		t.Fatalf("an edit below the breakpoint should not move it: %s", out)
	}
	call(`{"op":"terminate"}`)
	if out := call(`{"op":"launch","program":"tick.py"}`); !strings.Contains(out, "tick.py:5") || !strings.Contains(out, "return total") {
		t.Fatalf("a new launch should stop on the moved breakpoint, the same statement: %s", out)
	}
	if out := call(`{"op":"evaluate","expression":"total"}`); !strings.Contains(out, "= 50") {
		t.Fatalf("the edited program should run: %s", out)
	}
	call(`{"op":"terminate"}`)
}

// TestDebugToolSchemaListsSupport: the debug tool's schema lists every op
// (the optional ones included) and its description every adapter with
// what it supports, from the adapter table.
func TestDebugToolSchemaListsSupport(t *testing.T) {
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	tool, _ := debugRun(t, t.TempDir(), "c1", sv, tools.SurfaceDefault).Lookup("debug")
	if want := dap.DescribeSupport(dap.DefaultAdapters()); !strings.Contains(tool.Description, want) {
		t.Errorf("the description should say what each adapter supports (%s):\n%s", want, tool.Description)
	}
	var schema struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	b, err := json.Marshal(tool.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	ops := strings.Join(schema.Properties["op"].Enum, ",")
	for _, op := range append(tools.DebugOps(), dap.OptionalOps()...) {
		if !strings.Contains(","+ops+",", ","+op+",") {
			t.Errorf("the schema's ops lack %s: %s", op, ops)
		}
	}
	if adapters := strings.Join(schema.Properties["adapter"].Enum, ","); adapters != strings.Join(dap.AdapterIDs(dap.DefaultAdapters()), ",") {
		t.Errorf("the schema's adapters %s are not the table's", adapters)
	}
}
