package dap

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

// TestReadFrame: a frame's header may carry fields besides Content-Length
// (Perl::LanguageServer's Content-Type), in any case; a header without a
// length, a bad length, an oversized frame and a cut frame are errors, and
// a clean end between frames is io.EOF.
func TestReadFrame(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}" +
		"content-length: 3\r\n\r\n[1]"))
	for _, want := range []string{"{}", "[1]"} {
		got, err := readFrame(r)
		if err != nil || string(got) != want {
			t.Fatalf("readFrame = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := readFrame(r); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
	for in, want := range map[string]string{
		"Content-Type: x\r\n\r\n{}":                                   "no Content-Length",
		"Content-Length: -4\r\n\r\n":                                  "not a length",
		"Content-Length: 99999999999\r\n\r\n{}":                       "over",
		"garbage\r\n\r\n":                                             "not name: value",
		"Content-Length: 9\r\n\r\n{}":                                 "unexpected EOF",
		"Content-Length: 2\r\n" + strings.Repeat("X-Pad: 1\r\n", 500): "over 4096",
	} {
		_, err := readFrame(bufio.NewReader(strings.NewReader(in)))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("readFrame(%.40q) = %v, want an error saying %q", in, err, want)
		}
	}
}
