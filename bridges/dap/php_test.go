package dap_test

import "os/exec"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"

// needXdebug skips (or fails, where peers are required) without a php
// whose CLI loads Xdebug.
func needXdebug(t *testing.T) {
	t.Helper()
	php := testenv.RequireBinary(t, "php")
	out, err := exec.Command(php, "-m").Output()
	if err != nil || !strings.Contains(string(out), "Xdebug") {
		testenv.Missing(t, "php-xdebug (php -m lists no Xdebug)")
	}
}

const phpProgram = `<?php
function add($a, $b) {
    return $a + $b;
}

function main($argv) {
    $x = 41;
    $y = add($x, 1);
    echo "hello $y " . implode(",", array_slice($argv, 1)) . "\n";
}

main($argv);
`

// TestXdebug: PHP through tether's DBGp bridge stops at a breakpoint,
// shows the stack, scopes and variables, evaluates in the frame, steps,
// runs to the end with the program's output, and leaves no process
// behind, also when terminated at a stop.
func TestXdebug(t *testing.T) {
	t.Parallel()
	needXdebug(t)
	runScenario(t, scenario{
		files:   map[string]string{"composer.json": "{}\n", "main.php": phpProgram},
		program: "main.php", args: []string{"a1", "b 2"}, bpFile: "main.php", bpLine: 8, stopName: "main",
		varName: "$x", varValue: "41", expr: "add($x, 1) * 2", exprValue: "84",
		stepLine: 9, wantOutput: "hello 42 a1,b 2", badRef: true,
	})
}

const phpData = `<?php
class Point {
    public $x = 1;
    protected $label = "p";
    private $tags = ["a", "b"];
}

function fill($n) {
    $list = range(0, $n - 1);
    $point = new Point();
    $map = ["one" => 1, "two" => [2, 2]];
    return count($list);
}

for ($i = 0; $i < 3; $i++) {
    $total = fill(120 + $i);
}
echo "total $total\n";
`

// TestXdebugData: a conditional breakpoint stops where its condition
// holds; an array of 120 elements pages through Xdebug's pages, an object
// lists its members with their visibility's values, nested arrays expand,
// step_in and step_out move between frames and an outer frame's variable
// evaluates by name.
func TestXdebugData(t *testing.T) {
	t.Parallel()
	needXdebug(t)
	root := testenv.Workspace(t, map[string]string{"data.php": phpData})
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()

	do(t, sv, "c", root, request{Op: "breakpoints", File: "data.php", Breakpoints: []dap.SourceBreakpoint{{Line: 12, Condition: "$n == 121"}}})
	l := do(t, sv, "c", root, request{Op: "launch", Program: "data.php"})
	if l.Stop == nil || l.Stop.Line != 12 || l.Stop.Reason != "breakpoint" {
		t.Fatalf("launch should stop at the conditional breakpoint: %s", l)
	}
	evaluates(t, sv, root, "$n", "121")
	st := do(t, sv, "c", root, request{Op: "stack"})
	if len(st.Frames) != 2 || st.Frames[0].Name != "fill" || st.Frames[1].Line != 16 {
		t.Fatalf("want fill called from line 16: %s", st)
	}
	// An outer frame's variable, by name; PHP code there is refused.
	ev := do(t, sv, "c", root, request{Op: "evaluate", Expression: "$i", FrameID: st.Frames[1].ID})
	if ev.Value == nil || ev.Value.Value != "1" {
		t.Fatalf("$i in the outer frame: %s", ev)
	}
	if msg := doErr(t, sv, "c", root, request{Op: "evaluate", Expression: "$i + 1", FrameID: st.Frames[1].ID}); !strings.Contains(msg, "variables only") {
		t.Fatalf("PHP code in an outer frame should be refused saying what evaluates there: %s", msg)
	}

	scopes := do(t, sv, "c", root, request{Op: "scopes", FrameID: st.Frames[0].ID})
	locals := do(t, sv, "c", root, request{Op: "variables", Reference: scopes.Scopes[0].Reference})
	list := findVar(t, locals.Variables, "$list")
	if list.Value != "array(121)" || list.Reference == 0 {
		t.Fatalf("$list: %+v", list)
	}
	// Past Xdebug's first page of 100, and paged by the session.
	page := do(t, sv, "c", root, request{Op: "variables", Reference: list.Reference, Start: 95})
	if len(page.Variables) == 0 || page.Variables[0].Name != "95" || page.Variables[0].Value != "95" {
		t.Fatalf("elements from 95: %s", page)
	}
	last := page.Variables[len(page.Variables)-1]
	if page.Vars.Total != 121 || (page.Vars.Next == 0 && last.Value != "120") {
		t.Fatalf("the page should say how many elements there are and where the next starts: %s", page)
	}
	point := findVar(t, locals.Variables, "$point")
	if point.Type != "Point" || point.Reference == 0 {
		t.Fatalf("$point: %+v", point)
	}
	members := do(t, sv, "c", root, request{Op: "variables", Reference: point.Reference})
	if v := findVar(t, members.Variables, "label"); v.Value != `"p"` {
		t.Fatalf("the protected member: %+v", v)
	}
	tags := findVar(t, members.Variables, "tags")
	if tv := do(t, sv, "c", root, request{Op: "variables", Reference: tags.Reference}); len(tv.Variables) != 2 || tv.Variables[1].Value != `"b"` {
		t.Fatalf("the private array member: %s", tv)
	}
	m := do(t, sv, "c", root, request{Op: "evaluate", Expression: "$map"})
	two := findVar(t, do(t, sv, "c", root, request{Op: "variables", Reference: m.Value.Reference}).Variables, "two")
	if tv := do(t, sv, "c", root, request{Op: "variables", Reference: two.Reference}); len(tv.Variables) != 2 || tv.Variables[0].Value != "2" {
		t.Fatalf("$map['two']: %s", tv)
	}

	// Out of fill to the loop's next iteration, and into the next call.
	for _, step := range []struct {
		op   string
		line int
	}{{"step_out", 15}, {"step_in", 16}, {"step_in", 9}} {
		if s := do(t, sv, "c", root, request{Op: step.op}); s.Stop == nil || s.Stop.Line != step.line {
			t.Fatalf("%s should stop at line %d: %s", step.op, step.line, s)
		}
	}
	evaluates(t, sv, root, "$n", "122")
	runsToEnd(t, sv, root, "total 122")
	testenv.RequireNoProcs(t, root)
}

const phpThrows = `<?php
function f($why) { throw new RuntimeException($why); }
try { f("first"); } catch (Exception $e) { echo "caught\n"; }
f("second");
`

// TestXdebugExceptions: by default an uncaught exception (a fatal error
// to PHP) stops where it was thrown and names it; with filter "all" a
// caught one stops too, by class and message.
func TestXdebugExceptions(t *testing.T) {
	t.Parallel()
	needXdebug(t)
	root := testenv.Workspace(t, map[string]string{"throws.php": phpThrows})
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()

	l := do(t, sv, "c", root, request{Op: "launch", Program: "throws.php"})
	if l.Stop == nil || l.Stop.Reason != "exception" || l.Stop.Line != 2 || !strings.Contains(l.Stop.Exception, "Uncaught RuntimeException: second") {
		t.Fatalf("the uncaught exception should stop at its throw, named: %s", l)
	}
	if out := do(t, sv, "c", root, request{Op: "output"}); !strings.Contains(out.Output, "caught") {
		t.Fatalf("the caught exception should not stop: %s", out)
	}
	c := do(t, sv, "c", root, request{Op: "continue"})
	if c.Exited == nil {
		t.Fatalf("continue after the fatal error should end the program: %s", c)
	}

	do(t, sv, "c", root, request{Op: "exception_filters", Filters: []string{"all"}})
	l = do(t, sv, "c", root, request{Op: "launch", Program: "throws.php"})
	if l.Stop == nil || l.Stop.Exception != "RuntimeException: first" {
		t.Fatalf("with filter all the caught exception should stop: %s", l)
	}
	evaluates(t, sv, root, "$why", `"first"`)
	if c := do(t, sv, "c", root, request{Op: "continue"}); c.Stop == nil || c.Stop.Exception != "RuntimeException: second" {
		t.Fatalf("then the second throw: %s", c)
	}
	do(t, sv, "c", root, request{Op: "terminate"})
	testenv.RequireNoProcs(t, root)
}
