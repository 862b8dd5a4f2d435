package tools_test

import "context"
import "encoding/json"
import "regexp"
import "strings"
import "testing"

import "github.com/tetherhq/tether/tools"

// debugRefusal runs a debug call that must fail and returns its message.
func debugRefusal(t *testing.T, run *tools.Run, args string) string {
	t.Helper()
	res, err := run.Call(context.Background(), "debug", json.RawMessage(args), tools.FromModel)
	switch {
	case err != nil:
		return err.Error()
	case res.IsError:
		return res.AllText()
	}
	t.Fatalf("%s should be refused: %s", args, res.AllText())
	return ""
}

// TestDebugToolGotoCompletionsCustom: with real debugpy, goto jumps back a
// line and the program stops there; completions lists a local; custom
// sends threads by name and shows the answer, and refuses a request
// tether sends for an op of its own; exception_info describes the
// uncaught KeyError; restart, which debugpy lacks, is refused naming what
// it offers; data_breakpoints without watch says what it needs.
func TestDebugToolGotoCompletionsCustom(t *testing.T) {
	prog := "def tick(i):\n    total = i * 10\n    total = total + 1\n    return total\n\n\nprint('got', tick(4))\nprint({}['missing'])\n"
	run, call, out := debugTickAt(t, prog, 4)
	if !strings.Contains(out, "the adapter also offers set_variable, set_expression, modules, goto, completions, exception_info") {
		t.Fatal(out)
	}
	if out := call(`{"op":"goto","file":"tick.py","line":3}`); !strings.Contains(out, "tick.py:3") || !strings.Contains(out, "total = total + 1") {
		t.Fatalf("goto should stop at line 3: %s", out)
	}
	call(`{"op":"step_over"}`)
	if out := call(`{"op":"evaluate","expression":"total"}`); !strings.Contains(out, "= 42") {
		t.Fatalf("the jumped-to line should run again: %s", out)
	}
	if out := call(`{"op":"completions","expression":"tot"}`); !regexp.MustCompile(`completion\(s\) of "tot" at column 4[\s\S]*\n- total`).MatchString(out) {
		t.Fatalf("completions of tot: %s", out)
	}
	if out := call(`{"op":"custom","command":"threads"}`); !strings.Contains(out, "the adapter's answer to threads:") || !strings.Contains(out, "MainThread") {
		t.Fatalf("custom threads: %s", out)
	}
	if msg := debugRefusal(t, run, `{"op":"custom","command":"next","arguments":{"threadId":1}}`); !strings.Contains(msg, "use op step_over") {
		t.Fatalf("custom next: %s", msg)
	}
	if msg := debugRefusal(t, run, `{"op":"custom"}`); !strings.Contains(msg, "custom needs command") {
		t.Fatalf("custom without command: %s", msg)
	}
	if msg := debugRefusal(t, run, `{"op":"data_breakpoints"}`); !strings.Contains(msg, "data_breakpoints needs watch") {
		t.Fatalf("data_breakpoints without watch: %s", msg)
	}
	if msg := debugRefusal(t, run, `{"op":"restart"}`); !strings.Contains(msg, "the debugpy adapter cannot restart the program") || !strings.Contains(msg, "goto, completions, exception_info") {
		t.Fatalf("restart should be refused naming debugpy and what it offers: %s", msg)
	}
	call(`{"op":"breakpoints","file":"tick.py"}`)
	if out := call(`{"op":"continue"}`); !strings.Contains(out, "tick.py:8") {
		t.Fatalf("continue should stop on the KeyError: %s", out)
	}
	if out := call(`{"op":"exception_info"}`); !strings.Contains(out, "stopped on") || !strings.Contains(out, "KeyError") || !strings.Contains(out, "stack trace:") {
		t.Fatalf("exception_info: %s", out)
	}
	call(`{"op":"terminate"}`)
}

// TestDebugToolWatchWriteMemory: with real delve, write_memory writes
// bytes that read_memory and evaluate show, data_breakpoints places a watch on a
// local and clears it, and instruction_breakpoints stops the next turn of
// the loop at the stop's instruction.
func TestDebugToolWatchWriteMemory(t *testing.T) {
	src := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\txs := []int64{41, 42}\n\tsum := 0\n\tfor i := 0; i < 3; i++ {\n\t\tsum += i\n\t}\n\tfmt.Println(sum, xs)\n}\n"
	call, _ := delveAt(t, src, 9)
	if out := call(`{"op":"write_memory","expression":"xs","data":"e8 03 00 00 00 00 00 00"}`); !strings.Contains(out, "wrote 8 byte(s) at memory_reference") {
		t.Fatal(out)
	}
	// delve reads a slice's memory only as far as its length in elements.
	if out := call(`{"op":"read_memory","expression":"xs","count":2}`); !strings.Contains(out, "+0000  e8 03") {
		t.Fatalf("read_memory should show the bytes written: %s", out)
	}
	if out := call(`{"op":"evaluate","expression":"xs[0]"}`); !strings.Contains(out, "= 1000") {
		t.Fatal(out)
	}
	if out := call(`{"op":"data_breakpoints","watch":[{"name":"sum"}]}`); !strings.Contains(out, "1 data breakpoints set:\n- sum (write): placed") {
		t.Fatal(out)
	}
	if out := call(`{"op":"data_breakpoints","watch":[]}`); out != "cleared the data breakpoints" {
		t.Fatal(out)
	}
	// disassemble starts at the stop's instruction.
	ip := regexp.MustCompile(`instruction\(s\) from (0x[0-9a-fA-F]+)`).FindStringSubmatch(call(`{"op":"disassemble","count":1}`))
	if ip == nil {
		t.Fatal("disassemble shows no instruction address")
	}
	call(`{"op":"breakpoints","file":"main.go"}`)
	if out := call(`{"op":"instruction_breakpoints","addresses":["` + ip[1] + `"]}`); !strings.Contains(out, "- "+ip[1]+": placed") {
		t.Fatal(out)
	}
	if out := call(`{"op":"continue"}`); !strings.Contains(out, "main.go:9") {
		t.Fatalf("continue should stop at the instruction breakpoint: %s", out)
	}
	if out := call(`{"op":"evaluate","expression":"i"}`); !strings.Contains(out, "= 1") {
		t.Fatal(out)
	}
	call(`{"op":"terminate"}`)
}
