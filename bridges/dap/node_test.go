package dap_test

import "os"
import "path/filepath"
import "strconv"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"

const jsProgram = `function add(a, b) {
  return a + b;
}

function main() {
  const x = 41;
  const y = add(x, 1);
  console.log("hello", y, process.argv.slice(2));
}

main();
`

// TestNode: node's inspector through tether's own adapter stops at a
// breakpoint, shows the stack, scopes and variables, evaluates in the
// frame, steps, runs to the end with the program's output, and leaves no
// process behind.
func TestNode(t *testing.T) {
	t.Parallel()
	testenv.RequireBinary(t, "node")
	runScenario(t, scenario{
		files:   map[string]string{"package.json": "{}\n", "main.js": jsProgram},
		program: "main.js", args: []string{"a1"}, bpFile: "main.js", bpLine: 6, stopName: "main",
		varName: "x", varValue: "undefined", expr: "add(2, 3)", exprValue: "5",
		stepLine: 7, wantOutput: "hello 42 [ 'a1' ]", badRef: true,
	})
}

// jsCount calls tick five times; line 3 runs once per call.
const jsCount = `function tick(i) {
  const total = i * 10;
  return total;
}

for (let i = 0; i < 5; i++) tick(i);
console.log("done");
`

// tsCount is jsCount in TypeScript, with types that tsc erases (line 1)
// so that the .ts and .js lines differ.
const tsCount = `interface Item {
  n: number;
}

function tick(item: Item): number {
  const total: number = item.n * 10;
  return total;
}

for (let i = 0; i < 5; i++) tick({ n: i });
console.log("done");
`

// needTsc skips without typescript's tsc and links it into the project's
// node_modules/.bin, where the node adapter looks first.
func needTsc(t *testing.T, root string) {
	t.Helper()
	tsc := testenv.RequireBinary(t, "tsc")
	if err := os.MkdirAll(filepath.Join(root, "node_modules", ".bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tsc, filepath.Join(root, "node_modules", ".bin", "tsc")); err != nil {
		t.Fatal(err)
	}
}

// TestNodeBreakpointKinds: in real node, a conditional breakpoint stops
// where its condition holds, a hit-count breakpoint on its third hit, and
// a logpoint prints without stopping.
func TestNodeBreakpointKinds(t *testing.T) {
	t.Parallel()
	testenv.RequireBinary(t, "node")
	root := testenv.Workspace(t, map[string]string{"package.json": "{}\n", "count.js": jsCount})
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()

	t.Run("condition", func(t *testing.T) {
		do(t, sv, "c", root, request{Op: "breakpoints", File: "count.js", Breakpoints: []dap.SourceBreakpoint{{Line: 3, Condition: "i === 3"}}})
		l := do(t, sv, "c", root, request{Op: "launch", Program: "count.js"})
		if l.Stop == nil || l.Stop.Line != 3 || l.Stop.Reason != "breakpoint" {
			t.Fatalf("launch should stop at the conditional breakpoint: %s", l)
		}
		evaluates(t, sv, root, "i", "3")
		evaluates(t, sv, root, "total", "30")
		// The condition holds once.
		runsToEnd(t, sv, root)
	})
	t.Run("hit_condition", func(t *testing.T) {
		do(t, sv, "c", root, request{Op: "breakpoints", File: "count.js", Breakpoints: []dap.SourceBreakpoint{{Line: 3, HitCondition: "3"}}})
		launchStops(t, sv, root, 3, "count.js")
		evaluates(t, sv, root, "i", "2")
		// After the third hit the program runs to its end.
		runsToEnd(t, sv, root)
	})
	t.Run("logpoint", func(t *testing.T) {
		do(t, sv, "c", root, request{Op: "breakpoints", File: "count.js", Breakpoints: []dap.SourceBreakpoint{{Line: 3, LogMessage: "total is {total} `{i}`"}}})
		logsWithoutStop(t, sv, root, do(t, sv, "c", root, request{Op: "launch", Program: "count.js"}), "total is 40 `4`", "done")
	})
	t.Run("bad_hit_condition", func(t *testing.T) {
		bp := do(t, sv, "c", root, request{Op: "breakpoints", File: "count.js", Breakpoints: []dap.SourceBreakpoint{{Line: 3, HitCondition: "often"}}})
		l := do(t, sv, "c", root, request{Op: "launch", Program: "count.js"})
		if len(l.Breakpoints) != 1 || l.Breakpoints[0].Verified || !strings.Contains(l.Breakpoints[0].Message, ">=N") {
			t.Fatalf("a hit condition that is no count should be refused, saying which are: %s\n%s", bp, l)
		}
		if l.Exited == nil {
			do(t, sv, "c", root, request{Op: "terminate"})
		}
	})
	testenv.RequireNoProcs(t, root)
}

// TestNodeTypeScript: a .ts file is compiled with source maps; a
// conditional breakpoint on a .ts line stops there, frames name the .ts
// file and line, and a step stays in the .ts source. The same holds for
// JavaScript the project compiled itself, with map files or inline maps.
func TestNodeTypeScript(t *testing.T) {
	t.Parallel()
	testenv.RequireBinary(t, "node")
	root := testenv.Workspace(t, map[string]string{"package.json": "{}\n", "src/app.ts": tsCount})
	needTsc(t, root)
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()

	check := func(t *testing.T, program string) {
		do(t, sv, "c", root, request{Op: "breakpoints", File: "src/app.ts", Breakpoints: []dap.SourceBreakpoint{{Line: 7, Condition: "item.n === 2"}}})
		l := do(t, sv, "c", root, request{Op: "launch", Program: program})
		if l.Stop == nil || filepath.Base(l.Stop.File) != "app.ts" || l.Stop.Line != 7 || !strings.Contains(l.Stop.Source, "return total") {
			t.Fatalf("launch should stop at app.ts:7: %s", l)
		}
		if len(l.Breakpoints) != 1 || !l.Breakpoints[0].Verified {
			t.Fatalf("the .ts breakpoint should be verified: %s", l)
		}
		evaluates(t, sv, root, "total", "20")
		st := do(t, sv, "c", root, request{Op: "stack"})
		if len(st.Frames) < 2 || st.Frames[0].Name != "tick" || filepath.Base(st.Frames[1].File) != "app.ts" || st.Frames[1].Line != 10 {
			t.Fatalf("frames should be in app.ts (tick, then the loop at line 10): %s", st)
		}
		// Over the return: back in the loop that called tick, in app.ts.
		over := do(t, sv, "c", root, request{Op: "step_over"})
		if over.Stop == nil || filepath.Base(over.Stop.File) != "app.ts" || over.Stop.Line != 10 {
			t.Fatalf("step_over should return to app.ts:10: %s", over)
		}
		do(t, sv, "c", root, request{Op: "breakpoints", File: "src/app.ts", Lines: []int{}})
		if c := do(t, sv, "c", root, request{Op: "continue"}); c.Exited == nil {
			t.Fatalf("continue should run to the end: %s", c)
		}
		if out := do(t, sv, "c", root, request{Op: "output"}); !strings.Contains(out.Output, "done") {
			t.Fatalf("output: %s", out)
		}
	}
	t.Run("ts_file", func(t *testing.T) { check(t, "src/app.ts") })
	t.Run("compiled_by_the_project", func(t *testing.T) {
		buildIn(t, root, filepath.Join(root, "node_modules", ".bin", "tsc"), "--sourceMap", "--outDir", "dist", "--rootDir", "src", "--module", "commonjs", "--target", "es2022", "src/app.ts")
		check(t, "dist/app.js")
	})
	t.Run("inline_map", func(t *testing.T) {
		// Known only once node parses the script: set before it runs.
		buildIn(t, root, filepath.Join(root, "node_modules", ".bin", "tsc"), "--inlineSourceMap", "--outDir", "inline", "--rootDir", "src", "--module", "commonjs", "--target", "es2022", "src/app.ts")
		check(t, "inline/app.js")
	})
	testenv.RequireNoProcs(t, root)
}

// jsThrow throws a TypeError it catches, then one it does not.
const jsThrow = `function parse(s) {
  if (!s) throw new TypeError("empty input");
  return s.trim();
}

try { parse(""); } catch (e) { console.log("caught", e.message); }
parse(" a ");
parse("");
`

// TestNodeUncaughtException: an uncaught exception stops where it is
// thrown and names the error (a caught one does not stop); continuing ends
// the program with its exit code. In an ES module the stop names the error
// too.
func TestNodeUncaughtException(t *testing.T) {
	t.Parallel()
	testenv.RequireBinary(t, "node")
	root := testenv.Workspace(t, map[string]string{"package.json": "{}\n", "throw.js": jsThrow, "throw.mjs": jsThrow})
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	l := do(t, sv, "c", root, request{Op: "launch", Program: "throw.js"})
	if l.Stop == nil || l.Stop.Reason != "exception" || l.Stop.Line != 2 || !strings.Contains(l.Stop.Exception, "TypeError: empty input") {
		t.Fatalf("an uncaught exception should stop at throw.js:2 and name the TypeError: %s", l)
	}
	evaluates(t, sv, root, "s", `""`)
	st := do(t, sv, "c", root, request{Op: "stack"})
	if len(st.Frames) < 2 || st.Frames[1].Line != 8 {
		t.Fatalf("the stop should be the uncaught call at line 8, not the caught one: %s", st)
	}
	c := do(t, sv, "c", root, request{Op: "continue"})
	if c.Exited == nil || c.Exited.Code == 0 {
		t.Fatalf("continuing past an uncaught exception should end the program with an error code: %s", c)
	}
	if out := do(t, sv, "c", root, request{Op: "output"}); !strings.Contains(out.Output, "caught empty input") ||
		!strings.Contains(out.Output, "TypeError: empty input") || strings.Contains(out.Output, "debugger") {
		t.Fatalf("the output should hold the program's own lines and node's report of the error, and nothing about the inspector: %s", out)
	}

	l = do(t, sv, "c", root, request{Op: "launch", Program: "throw.mjs"})
	if l.Stop == nil || l.Stop.Reason != "exception" || !strings.Contains(l.Stop.Exception, "TypeError: empty input") ||
		!strings.Contains(l.Stop.Description, "thrown at throw.mjs:2") {
		t.Fatalf("an uncaught exception in an ES module should stop, name the TypeError and say where it was thrown: %s", l)
	}
	do(t, sv, "c", root, request{Op: "terminate"})
	testenv.RequireNoProcs(t, root)
}

// jsTests is a node:test file with two tests.
const jsTests = `const test = require("node:test");
const assert = require("node:assert");

function double(x) {
  return x * 2;
}

test("doubles", () => {
  const got = double(21);
  assert.strictEqual(got, 42);
});

test("other", () => {
  assert.ok(true);
});
`

// TestNodeTests: a node:test file runs its tests under the debugger; a
// test name selects one; step_in enters the function under test; pause
// stops a running program.
func TestNodeTests(t *testing.T) {
	t.Parallel()
	testenv.RequireBinary(t, "node")
	root := testenv.Workspace(t, map[string]string{"package.json": "{}\n", "math.test.js": jsTests,
		"spin.js": "let n = 0;\nconst t = setInterval(() => {\n  n++;\n}, 5);\nsetTimeout(() => clearInterval(t), 60000);\n"})
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	do(t, sv, "c", root, request{Op: "breakpoints", File: "math.test.js", Lines: []int{9}})
	l := do(t, sv, "c", root, request{Op: "launch", Program: "math.test.js", Test: "doubles"})
	if l.Stop == nil || l.Stop.Line != 9 || !strings.Contains(l.Session, "node:test math.test.js") {
		t.Fatalf("the test should stop at math.test.js:9: %s", l)
	}
	in := do(t, sv, "c", root, request{Op: "step_in"})
	if in.Stop == nil || in.Stop.Line != 5 || in.Stop.Frames[0].Name != "double" {
		t.Fatalf("step_in should enter double at line 5: %s", in)
	}
	// V8 steps out to the next statement with a break position: the rest
	// of line 9 is an assignment, so line 10.
	out1 := do(t, sv, "c", root, request{Op: "step_out"})
	if out1.Stop == nil || out1.Stop.Line != 10 || !strings.HasSuffix(out1.Stop.File, "math.test.js") {
		t.Fatalf("step_out should return to the test at line 10: %s", out1)
	}
	// Off the end of the test: node's test runner is passed over.
	if s := do(t, sv, "c", root, request{Op: "step_over"}); s.Stop != nil && !strings.HasSuffix(s.Stop.File, "math.test.js") {
		t.Fatalf("stepping off the end of a test should not stop in node's own code: %s", s)
	}
	do(t, sv, "c", root, request{Op: "breakpoints", File: "math.test.js", Lines: []int{}})
	c := do(t, sv, "c", root, request{Op: "continue"})
	if c.Exited == nil || c.Exited.Code != 0 {
		t.Fatalf("the tests should pass and end: %s", c)
	}
	out := do(t, sv, "c", root, request{Op: "output"})
	if !strings.Contains(out.Output, "ok 1 - doubles") || !strings.Contains(out.Output, "other # SKIP") {
		t.Fatalf("only the chosen test should run: %s", out)
	}

	// A launch with no breakpoint waits StopWait for a stop: keep it short.
	quick := dap.NewSupervisor(dap.Config{StopWait: time.Second})
	defer quick.Close()
	if l := do(t, quick, "c", root, request{Op: "launch", Program: "spin.js"}); l.Stop != nil || l.Exited != nil {
		t.Fatalf("spin.js should still be running: %s", l)
	}
	p := do(t, quick, "c", root, request{Op: "pause"})
	if p.Stop == nil || p.Stop.Reason != "pause" {
		t.Fatalf("pause should stop the running program: %s", p)
	}
	do(t, quick, "c", root, request{Op: "terminate"})
	testenv.RequireNoProcs(t, root)
}

// TestNodeWithoutNetwork: with no network for debuggees (the sandbox gives
// node a network namespace of its own), the node adapter still reaches the
// inspector, which it talks to over pipes, not a port.
func TestNodeWithoutNetwork(t *testing.T) {
	testenv.RequireBinary(t, "node")
	withoutNetwork(t)
	root := testenv.Workspace(t, map[string]string{"package.json": "{}\n", "count.js": jsCount})
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	do(t, sv, "c", root, request{Op: "breakpoints", File: "count.js", Breakpoints: []dap.SourceBreakpoint{{Line: 3, Condition: "i === 4"}}})
	l := do(t, sv, "c", root, request{Op: "launch", Program: "count.js"})
	if l.Stop == nil || l.Stop.Line != 3 || !strings.Contains(l.Started.Sandbox, "no network") {
		t.Fatalf("node should stop at count.js:3 in a sandbox without network: %s", l)
	}
	evaluates(t, sv, root, "i", "4")
	do(t, sv, "c", root, request{Op: "terminate"})
	testenv.RequireNoProcs(t, root)
}

// TestNodePackageScript: launching package.json runs the script args[0]
// names, with the script's node flags and arguments and then the rest of
// args; a script that is not `node file` is refused, saying what to do.
func TestNodePackageScript(t *testing.T) {
	t.Parallel()
	testenv.RequireBinary(t, "node")
	root := testenv.Workspace(t, map[string]string{
		"package.json": `{"scripts": {"start": "node --require ./setup.js lib/main.js --verbose", "build": "tsc && node lib/main.js"}}`,
		"setup.js":     "globalThis.setUp = 'yes';\n",
		"lib/main.js":  "const args = process.argv.slice(2);\nconsole.log('args', args.join(' '), globalThis.setUp);\n",
	})
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	do(t, sv, "c", root, request{Op: "breakpoints", File: "lib/main.js", Lines: []int{2}})
	l := do(t, sv, "c", root, request{Op: "launch", Program: "package.json", Args: []string{"start", "extra"}})
	if l.Stop == nil || filepath.Base(l.Stop.File) != "main.js" || l.Stop.Line != 2 {
		t.Fatalf("the start script should stop at lib/main.js:2: %s", l)
	}
	evaluates(t, sv, root, "args.join(' ')", `"--verbose extra"`)
	do(t, sv, "c", root, request{Op: "continue"})
	if out := do(t, sv, "c", root, request{Op: "output"}); !strings.Contains(out.Output, "args --verbose extra yes") {
		t.Fatalf("output: %s", out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "scripts: build, start"},
		{[]string{"nosuch"}, `no script "nosuch"`},
		{[]string{"build"}, "launch the file it runs instead"},
	} {
		if msg := doErr(t, sv, "c", root, request{Op: "launch", Program: "package.json", Args: tc.args}); !strings.Contains(msg, tc.want) {
			t.Errorf("launch package.json %v: %s, want %q", tc.args, msg, tc.want)
		}
	}
	testenv.RequireNoProcs(t, root)
}

// TestNodeTypeScriptProjects: a .ts file under a tsconfig.json compiles
// with the project's settings; one in an ES module package (no tsconfig)
// compiles to ES modules. Both stop at a .ts breakpoint.
func TestNodeTypeScriptProjects(t *testing.T) {
	t.Parallel()
	testenv.RequireBinary(t, "node")
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		{"tsconfig", map[string]string{
			"package.json":  "{}\n",
			"tsconfig.json": `{"compilerOptions": {"target": "es2020", "module": "commonjs", "rootDir": "src", "outDir": "build", "strict": true}, "include": ["src"]}`,
			"src/app.ts":    tsCount,
		}},
		{"esm", map[string]string{
			"package.json": `{"type": "module"}` + "\n",
			"src/app.ts":   tsCount,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := testenv.Workspace(t, tc.files)
			needTsc(t, root)
			sv := dap.NewSupervisor(dap.Config{})
			defer sv.Close()
			do(t, sv, "c", root, request{Op: "breakpoints", File: "src/app.ts", Breakpoints: []dap.SourceBreakpoint{{Line: 7, Condition: "item.n === 3"}}})
			l := do(t, sv, "c", root, request{Op: "launch", Program: "src/app.ts"})
			if l.Stop == nil || filepath.Base(l.Stop.File) != "app.ts" || l.Stop.Line != 7 {
				t.Fatalf("launch should stop at app.ts:7: %s", l)
			}
			evaluates(t, sv, root, "total", "30")
			if c := do(t, sv, "c", root, request{Op: "continue"}); c.Exited == nil || c.Exited.Code != 0 {
				t.Fatalf("continue should run to the end: %s", c)
			}
			if _, err := os.Stat(filepath.Join(root, "build")); err == nil {
				t.Fatal("the compile should not write into the project")
			}
			testenv.RequireNoProcs(t, root)
		})
	}
}

// TestNodeProjectRoot: a script in a directory without package.json is
// its own project; a script under src/ of a package runs in the package's
// directory, not in src/.
func TestNodeProjectRoot(t *testing.T) {
	t.Parallel()
	testenv.RequireBinary(t, "node")
	for _, tc := range []struct {
		name, program, cwd string
		files              map[string]string
	}{
		{"loose", "hello.js", ".", map[string]string{"hello.js": "const dir = process.cwd();\nconsole.log(dir);\n"}},
		{"package", "src/hello.js", ".", map[string]string{"package.json": "{}\n", "src/hello.js": "const dir = process.cwd();\nconsole.log(dir);\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := testenv.Workspace(t, tc.files)
			sv := dap.NewSupervisor(dap.Config{})
			defer sv.Close()
			do(t, sv, "c", root, request{Op: "breakpoints", File: tc.program, Lines: []int{2}})
			l := do(t, sv, "c", root, request{Op: "launch", Program: tc.program})
			if l.Stop == nil || l.Stop.Line != 2 {
				t.Fatalf("launch should stop at %s:2: %s", tc.program, l)
			}
			evaluates(t, sv, root, "dir", strconv.Quote(filepath.Join(root, tc.cwd)))
			do(t, sv, "c", root, request{Op: "terminate"})
			testenv.RequireNoProcs(t, root)
		})
	}
}
