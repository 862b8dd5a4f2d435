package dap_test

import "context"
import "fmt"
import "os/exec"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"

// needRdbg returns the ruby whose debug gem has rdbg (Ruby 3.1 bundles
// it), or fails/skips the test.
func needRdbg(t *testing.T) string {
	t.Helper()
	ruby := testenv.LookPath("ruby")
	if ruby == "" || exec.Command(ruby, "-e", `Gem.bin_path("debug", "rdbg")`).Run() != nil {
		testenv.Missing(t, "ruby with the debug gem (rdbg; apt-get install ruby)")
	}
	return ruby
}

// needPerlLS returns a perl that loads Perl::LanguageServer, or
// fails/skips the test.
func needPerlLS(t *testing.T) string {
	t.Helper()
	for _, p := range []string{testenv.LookPath("perl"), "/usr/bin/perl"} {
		if p != "" && exec.Command(p, "-MPerl::LanguageServer", "-e", "1").Run() == nil {
			return p
		}
	}
	testenv.Missing(t, "perl with Perl::LanguageServer (libperl-languageserver-perl)")
	return ""
}

const rbProgram = `def add(a, b)
  a + b
end

def main
  x = 41
  y = add(x, 1)
  puts "hello #{y} #{ARGV.inspect}"
end

main
`

// TestRdbg walks Ruby's rdbg, which is the program it debugs, through
// the scenario: its stdout is the program's output and its exit the
// program's end.
func TestRdbg(t *testing.T) {
	t.Parallel()
	needRdbg(t)
	runScenario(t, scenario{
		files:   map[string]string{"main.rb": rbProgram},
		program: "main.rb", args: []string{"a b", "$HOME"}, bpFile: "main.rb", bpLine: 7, stopName: "main",
		varName: "x", varValue: "41", expr: "x + 1", exprValue: "42",
		stepLine: 8, wantOutput: `hello 42 ["a b", "$HOME"]`,
	})
}

const plProgram = `use strict;
use warnings;

sub add {
    my ($a, $b) = @_;
    return $a + $b;
}

sub main {
    my $x = 41;
    my $y = add($x, 1);
    print "hello $y @ARGV\n";
}

main();
`

// TestPerl walks Perl::LanguageServer's debug adapter through the
// scenario.
func TestPerl(t *testing.T) {
	t.Parallel()
	needPerlLS(t)
	runScenario(t, scenario{
		files:   map[string]string{"main.pl": plProgram},
		program: "main.pl", args: []string{"a b", "$HOME"}, bpFile: "main.pl", bpLine: 11, stopName: "main",
		varName: "$x", varValue: "41", expr: "$x + 1", exprValue: "42",
		stepLine: 12, wantOutput: "hello 42 a b $HOME",
	})
}

// TestScriptAdapterOps: the optional ops the rdbg and perl rows list are
// the ones the real adapters' capabilities offer, and a Ruby program's
// exit code is the session's.
func TestScriptAdapterOps(t *testing.T) {
	t.Parallel()
	want := map[string][]string{}
	for _, a := range dap.DefaultAdapters() {
		want[a.ID] = a.Ops
	}
	for _, tg := range []target{
		{name: "rdbg", need: needRdbg, files: map[string]string{"exit.rb": "puts 'bye'\nexit 3\n"}, program: "exit.rb"},
		{name: "perl", need: needPerlLS, files: map[string]string{"exit.pl": "print \"bye\\n\";\nexit 3;\n"}, program: "exit.pl"},
	} {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			sv, root := tg.start(t)
			l := do(t, sv, "c", root, request{Op: "launch", Program: tg.program})
			if l.Started.Adapter != tg.name || strings.Join(l.Started.Ops, ",") != strings.Join(want[tg.name], ",") {
				t.Errorf("%s offers %v; its table entry (%s) says %v", l.Started.Adapter, l.Started.Ops, tg.name, want[tg.name])
			}
			if l.Exited == nil || !l.Exited.Known || l.Exited.Code != 3 || !strings.Contains(l.Exited.Output, "bye") {
				t.Fatalf("the program should end with its exit code 3 and its output: %s", l)
			}
			testenv.RequireNoProcs(t, root)
		})
	}
}

const rbLoop = `n = 0
loop do
  n += 1
  sleep 0.05
end
`

// TestAttachRdbg attaches by port to a Ruby program started under
// rdbg --open, which pauses it on the attach (else pause does); its
// frames and values are there, and ending the session leaves it running.
// No breakpoint: Debian 12's rdbg (debug 1.4.0) cannot remove one, and a
// program that reaches one with no client attached is ended.
func TestAttachRdbg(t *testing.T) {
	t.Parallel()
	ruby := needRdbg(t)
	root := testenv.Workspace(t, map[string]string{"loop.rb": rbLoop})
	port := testenv.FreeLoopback(t).Port
	cmd := server(root, ruby, "-e", `load Gem.bin_path("debug", "rdbg")`, "--", "--open", "--nonstop",
		"--host", "127.0.0.1", "--port", fmt.Sprint(port), "--", "loop.rb")
	startServer(t, cmd)
	sv := dap.NewSupervisor(dap.Config{StopWait: 3 * time.Second})
	t.Cleanup(func() { sv.Close() })

	a := do(t, sv, "c", root, request{Op: "attach", Port: port})
	if a.Started.Adapter != "rdbg" {
		t.Fatalf("the root's *.rb should name rdbg: %s", a)
	}
	stop := a.Stop
	if stop == nil {
		stop = do(t, sv, "c", root, request{Op: "pause"}).Stop
	}
	if stop == nil || stop.File == "" || len(stop.Frames) == 0 {
		t.Fatalf("the attached program should be paused where it runs, with its frames: %+v", stop)
	}
	// The top frame may be sleep's, a C frame with no binding: evaluate in
	// the loop's block.
	frame := 0
	for _, f := range stop.Frames {
		if strings.Contains(f.Name, "block in") {
			frame = f.ID
		}
	}
	if ev := do(t, sv, "c", root, request{Op: "evaluate", Expression: "n > 0", FrameID: frame}); ev.Value == nil || ev.Value.Value != "true" {
		t.Fatalf("evaluate n > 0 in the loop's frame %d = %+v, want true", frame, ev.Value)
	}
	// rdbg 1.4.0 traps twice on an attach (the connection, the attach
	// request), and a trap not yet taken when pause was asked comes after
	// it: a continue may stop again, paused, twice.
	c := do(t, sv, "c", root, request{Op: "continue"})
	for i := 0; i < 2 && c.Stop != nil && c.Stop.Reason == "pause"; i++ {
		c = do(t, sv, "c", root, request{Op: "continue"})
	}
	if c.Outcome == nil || !c.Outcome.Running {
		t.Fatalf("continue should leave the attached program running: %s", c)
	}
	do(t, sv, "c", root, request{Op: "terminate"})
	time.Sleep(300 * time.Millisecond)
	if cmd.ProcessState != nil || !testenv.Alive(cmd.Process.Pid) {
		t.Fatal("ending an attached session must leave the program running")
	}
}

// TestGDBRowUntested: the gdb row is marked untested, and where the gdb
// installed predates DAP (Debian 12's gdb 13) the adapters op says so
// instead of offering an adapter that cannot start.
func TestGDBRowUntested(t *testing.T) {
	t.Parallel()
	for _, a := range dap.DefaultAdapters() {
		if a.ID == "gdb" && a.Untested == "" {
			t.Fatal("the gdb row must say why it is not tested here")
		}
	}
	gdb := testenv.RequireBinary(t, "gdb")
	if exec.Command(gdb, "-nx", "-batch", "-ex", "python import gdb.dap").Run() == nil {
		t.Skip("this gdb serves DAP; the row's refusal of an older gdb cannot be seen here")
	}
	root := testenv.Workspace(t, map[string]string{"main.c": cProgram})
	sv := dap.NewSupervisor(dap.Config{})
	t.Cleanup(func() { sv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, st := range sv.Adapters(ctx, root) {
		if st.ID == "gdb" {
			if st.Usable || !strings.Contains(st.Reason, "older than gdb 14") {
				t.Fatalf("gdb 13 should be unusable, saying it is too old: %+v", st)
			}
			return
		}
	}
	t.Fatal("no gdb row in the adapters op")
}

// TestLoadDebuggeeAdapter: a configured adapter may use the unix
// transport and be the program it debugs, but then its command must name
// the program.
func TestLoadDebuggeeAdapter(t *testing.T) {
	ok := `[{"id": "rb", "transport": "unix", "debuggee": true, "extensions": [".rb"],
		"commands": [["rdbg", "--open", "--sock-path=${socket}", "--", "${program}", "${args}"]]}]`
	table, err := dap.LoadAdapters(strings.NewReader(ok))
	if err != nil || len(table) != 1 || table[0].Transport != dap.Unix || !table[0].Debuggee {
		t.Fatalf("LoadAdapters(%s) = %+v, %v", ok, table, err)
	}
	bad := `[{"id": "rb", "transport": "unix", "debuggee": true, "commands": [["rdbg", "--open", "--sock-path=${socket}"]]}]`
	if _, err := dap.LoadAdapters(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "${program}") {
		t.Fatalf("a debuggee adapter whose command does not name the program: %v, want a refusal naming ${program}", err)
	}
}

// rbSteps sets n on three lines in a row.
const rbSteps = `def main
  n = 1
  n = n + 10
  n = n + 100
  puts "n #{n}"
end

main
`

// rdbgRecordOn is Ruby that turns rdbg's recorder on for the stopped
// thread, as its `record on` command does (evaluate runs Ruby in the
// program, not debugger commands): rdbg steps back only through what it
// recorded.
const rdbgRecordOn = `DEBUGGER__::ThreadClient.current.instance_eval { @recorder ||= DEBUGGER__::ThreadClient::Recorder.new; @recorder.enable; :on }`

// TestStepBackRdbg: real rdbg, the one adapter here that offers stepBack,
// steps back over a line it recorded, to the line and the locals before.
// rdbg 1.4 answers stepBack with the stop alone, no response: the stop
// ends the wait. reverse_continue, which rdbg announces with stepBack but
// does not do, comes back refused ("cancelled", rdbg's word).
func TestStepBackRdbg(t *testing.T) {
	t.Parallel()
	tg := target{name: "rdbg", need: needRdbg, files: map[string]string{"main.rb": rbSteps}, program: "main.rb"}
	sv, root := breakAt{tg, "main.rb", 2}.stopped(t)
	ctx := ctxT(t)
	evaluates(t, sv, root, rdbgRecordOn, ":on")
	o, err := sv.StepOver(ctx, "c", 0)
	stoppedAt(t, "step_over", o, err, 3, "")
	o, err = sv.StepOver(ctx, "c", 0)
	stoppedAt(t, "step_over", o, err, 4, "")
	evaluates(t, sv, root, "n", "11")
	start := time.Now()
	o, err = sv.StepBack(ctx, "c", 0)
	stoppedAt(t, "step_back", o, err, 3, "")
	if d := time.Since(start); d > 20*time.Second {
		t.Logf("step_back took %s", d)
	}
	// a recorded frame has no binding to evaluate in; its locals are
	// the recorded ones
	if v := localVar(t, sv, root, "n"); v.Value != "1" {
		t.Fatalf("after step_back n is %q, want the recorded 1", v.Value)
	}
	if _, err := sv.ReverseContinue(ctx, "c", 0); err == nil || !strings.Contains(err.Error(), "reverseContinue: the adapter says: cancelled") {
		t.Fatalf("reverse_continue on rdbg: %v, want rdbg's refusal", err)
	}
}

// TestRdbgOutputBeforeStop: rdbg is the program, so its output comes
// through tether's pipes while its stops come over DAP; what the program
// wrote before it stopped is in the output read at the stop, every time.
func TestRdbgOutputBeforeStop(t *testing.T) {
	t.Parallel()
	needRdbg(t)
	root := testenv.Workspace(t, map[string]string{"late.rb": `$stdout.sync = true
$stdout.write("x" * 40000 + "\n")
$stderr.puts "to stderr"
puts "last words"
debugger
puts "after"
`})
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	for i := range 4 {
		l := do(t, sv, "c", root, request{Op: "launch", Program: "late.rb"})
		if l.Stop == nil || l.Stop.Line != 5 {
			t.Fatalf("run %d: the program should stop at its debugger call: %s", i, l)
		}
		out := do(t, sv, "c", root, request{Op: "output"}).Output
		if n := strings.Count(out, "x"); n != 40000 || !strings.Contains(out, "to stderr") || !strings.Contains(out, "last words") || strings.Contains(out, "after") {
			t.Fatalf("run %d: the output at the stop should hold all that came before it: %d x's, %q", i, n, out[strings.LastIndexByte(out, 'x')+1:])
		}
		do(t, sv, "c", root, request{Op: "terminate"})
	}
	testenv.RequireNoProcs(t, root)
}
