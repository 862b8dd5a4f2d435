package lsp

import "strings"
import "testing"
import "unicode/utf8"

// FuzzResolveSymbol: any line and symbol either resolve to a column inside
// the line where the symbol occurs, or fail with an "lsp: " error.
func FuzzResolveSymbol(f *testing.F) {
	f.Add("package x\n\nfunc A() { a := A; _ = a }\n", 3, "A")
	f.Add("x := y + y\n", 1, "y#2")
	f.Add("héllo wörld\n", 1, "wörld")
	f.Add("", 1, "")
	f.Fuzz(func(t *testing.T, text string, line int, symbol string) {
		l, col, err := resolveSymbol([]byte(text), line, symbol, "f")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "lsp: ") {
				t.Fatalf("error without prefix: %v", err)
			}
			return
		}
		starts := lineStarts([]byte(text))
		lt := lineText([]byte(text), starts, l)
		if col < 0 || col > len(lt) {
			t.Fatalf("column %d outside line %q", col, lt)
		}
		if utf8.ValidString(lt) {
			if got := byteCol(lt, utf16Col(lt, col)); got != col {
				t.Fatalf("utf16 round trip %d -> %d on %q", col, got, lt)
			}
			for _, enc := range []encoding{encUTF8, encUTF16, encUTF32} {
				if got := enc.byteOf(lt, enc.col(lt, col)); got != col {
					t.Fatalf("encoding %d round trip %d -> %d on %q", enc, col, got, lt)
				}
			}
		}
	})
}

// FuzzApplyEdits: edits never panic, and a single in-range replacement keeps
// the text around it.
func FuzzApplyEdits(f *testing.F) {
	f.Add("abc\ndef\n", 0, 1, 1, 1, "X")
	f.Add("", 0, 0, 5, 5, "y")
	f.Fuzz(func(t *testing.T, text string, sl, sc, el, ec int, repl string) {
		out, err := applyEdits([]byte(text), []wTextEdit{{Range: wRange{Start: wPosition{sl, sc}, End: wPosition{el, ec}}, NewText: repl}}, encUTF16)
		if err != nil {
			return
		}
		if !strings.Contains(string(out), repl) {
			t.Fatalf("replacement %q missing from %q", repl, out)
		}
	})
}

// FuzzCheckerOutput: any checker output parses without panicking and every
// entry has a path and a line.
func FuzzCheckerOutput(f *testing.F) {
	f.Add("./main.go:5:2: undefined: x\n")
	f.Add("src/a.ts(3,5): error TS2322: Type 'number' is not assignable to type 'string'.\n")
	f.Add("  /w/a.py:1:10 - error: Type \"Literal['no']\" is not assignable\n")
	f.Add("src/main.rs:1:37: error[E0308]: mismatched types\n")
	f.Add("  error - lib/main.dart:3:22 - A value can't be assigned. - invalid_assignment\n")
	f.Fuzz(func(t *testing.T, out string) {
		s := &Supervisor{workdir: "/w"}
		rep := &CheckReport{}
		s.parseCheckerOutput(rep, out, "/w")
		for _, d := range rep.Items {
			if d.Path == "" {
				t.Fatalf("entry without path from %q", out)
			}
		}
	})
}
