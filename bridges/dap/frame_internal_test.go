package dap

import "bufio"
import "io"
import "strings"
import "testing"

// TestReadFrame: a frame's header may carry fields besides Content-Length
// (Perl::LanguageServer's Content-Type), in any case; a header without a
// length, a bad length, an oversized frame and a cut frame are errors, and
// a clean end between frames is io.EOF.
func TestReadFrame(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}" +
		"content-length: 3\r\n\r\n[1]"))
	for _, want := range []string{"{}", "[1]"} {
		got, err := readFrame(r, nil)
		if err != nil || string(got) != want {
			t.Fatalf("readFrame = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := readFrame(r, nil); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
	for in, want := range map[string]string{
		"Content-Type: x\r\n\r\n{}":                                   "no Content-Length",
		"Content-Length: -4\r\n\r\n":                                  "not a length",
		"Content-Length: 99999999999\r\n\r\n{}":                       "over",
		"Content-Length: 2\r\ngarbage\r\n\r\n{}":                      "not name: value",
		strings.Repeat("out x\n", 20000):                              "not DAP",
		"Content-Length: 9\r\n\r\n{}":                                 "unexpected EOF",
		"Content-Length: 2\r\n" + strings.Repeat("X-Pad: 1\r\n", 500): "over 4096",
	} {
		_, err := readFrame(bufio.NewReader(strings.NewReader(in)), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("readFrame(%.40q) = %v, want an error saying %q", in, err, want)
		}
	}
}

// TestReadFrameStray: lines before a frame's header that are no header
// field (rdbg's console "out ..." lines, written before it reads the DAP
// greeting) are handed on as stray output, blank ones dropped, and the
// frame after them is read; a stray line cut by the end is handed on too.
func TestReadFrameStray(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("out [1, 2] in /w/exit.rb\nout =>    1| x = {a: 1}\r\n\r\n" +
		"Content-Length: 2\r\n\r\n{}" + ": odd\nout bye"))
	var stray []string
	got, err := readFrame(r, func(l string) { stray = append(stray, l) })
	if err != nil || string(got) != "{}" {
		t.Fatalf("readFrame = %q, %v; want the frame after the stray lines", got, err)
	}
	if _, err := readFrame(r, func(l string) { stray = append(stray, l) }); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
	want := []string{"out [1, 2] in /w/exit.rb", "out =>    1| x = {a: 1}", ": odd", "out bye"}
	if strings.Join(stray, "|") != strings.Join(want, "|") {
		t.Fatalf("stray lines %q, want %q", stray, want)
	}
}
