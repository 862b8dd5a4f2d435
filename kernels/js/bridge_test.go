package js_test

import "context"
import "encoding/json"
import "strings"
import "testing"

import "github.com/tetherhq/tether/kernels"

// TestToolResultStructured: tool() returns the tool's text as a String whose
// .structured is the tool's structured output (null without one) and whose
// .text is the plain string; it echoes and prints as the text.
func TestToolResultStructured(t *testing.T) {
	caller := func(ctx context.Context, name string, args json.RawMessage) (kernels.ToolReply, error) {
		if name == "plain" {
			return kernels.ToolReply{Text: "no structure"}, nil
		}
		return kernels.ToolReply{Text: "class Auth {}\n", Structured: json.RawMessage(`{"matches":[{"line":1}],"lines":2}`)}, nil
	}
	k := newKernel(t, kernels.Config{Tools: caller})
	for code, want := range map[string]string{
		"const r = tool('read', {path: 'a'}); r.structured.matches[0].line + r.structured.lines":                       "3",
		"const r2 = tool('read'); [typeof r2.text, r2.text === 'class Auth {}\\n', r2.length, r2.split('\\n').length]": "[ 'string', true, 14, 2 ]",
		"const r3 = tool('read'); r3": "'class Auth {}\\n'",
		"const r4 = tool('read'); `${r4}`.trim() + JSON.stringify(r4.structured.lines)": "'class Auth {}2'",
		"tool('plain').structured":        "null",
		"tool('plain') == 'no structure'": "true",
	} {
		wantValue(t, k, code, want)
	}
	r := run(t, k, "console.log(tool('read'))")
	if r.Error != nil || r.Stdout.Text != "class Auth {}\n\n" {
		t.Errorf("console.log of a tool result: %+v %q", r.Error, r.Stdout.Text)
	}
}

// TestAwaitCellsParseAsInNode: a cell with top-level await whose
// declarations, function declarations and last expression statement share
// the async wrapper parses as node's REPL parses it, and a cell that is no
// JavaScript either way reports the async reading's error on its own line,
// not the script reading's (where await is an identifier).
func TestAwaitCellsParseAsInNode(t *testing.T) {
	caller := func(ctx context.Context, name string, args json.RawMessage) (kernels.ToolReply, error) {
		return kernels.ToolReply{Text: "a\nb\n"}, nil
	}
	k := newKernel(t, kernels.Config{Tools: caller})
	for code, want := range map[string]string{
		"const res = await tool('read', {path: 'a'})\nfunction lines(s) { return s.split('\\n').length }\nlines(res)": "3",
		"let n = await tool('read')\nclass C { get x() { return 1 } }\nn.length + new C().x":                          "5",
		"function f() { return 2 }\nconst v = await Promise.resolve(1)\nf() + v":                                      "3",
	} {
		r := run(t, k, code)
		if r.Error != nil {
			t.Errorf("%q: %s: %s", code, r.Error.Name, r.Error.Message)
			continue
		}
		if got := value(t, r); got != want {
			t.Errorf("%q = %s, want %s", code, got, want)
		}
	}
	// node: SyntaxError: Unexpected token '.' on line 2 (a / h / .test(res)).
	r := run(t, k, "const res = await tool('read')\n/h/.test(res)")
	if r.Error == nil || r.Error.Name != "SyntaxError" || r.Error.Line != 2 || strings.Contains(r.Error.Message, "identifier") {
		t.Errorf("a cell that is not JavaScript: %+v", r.Error)
	}
}
