package lsp_test

import "fmt"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"

// TestNormalizeMessage: messages that differ only in the order of a
// union's or an intersection's members normalize alike, at any depth, and
// messages that differ in meaning do not.
func TestNormalizeMessage(t *testing.T) {
	same := [][2]string{
		{"Argument of type 'URL | RequestInfo' is not assignable to parameter of type 'Input'.", "Argument of type 'RequestInfo | URL' is not assignable to parameter of type 'Input'."},
		{"Type 'Promise<B | A>' is not assignable to type 'A & B'.", "Type 'Promise<A | B>' is not assignable to type 'B & A'."},
		{`Argument of type "str | int" cannot be assigned to parameter "x" of type "bytes"`, `Argument of type "int | str" cannot be assigned to parameter "x" of type "bytes"`},
		{`Type "list[int | None]" is not assignable to "list[str]"`, `Type "list[None | int]" is not assignable to "list[str]"`},
		{"Type '{ a: string | number; }' is missing", "Type '{ a: number | string; }' is missing"},
		{`Type "Literal['b', 'a'] | None" is not "x"`, `Type "None | Literal['b', 'a']" is not "x"`},
		{"Unknown type name 'size_t' (fix available)", "Unknown type name 'size_t'"},
	}
	for _, c := range same {
		if a, b := lsp.NormalizeMessage(c[0]), lsp.NormalizeMessage(c[1]); a != b {
			t.Errorf("want alike:\n%s\n%s", a, b)
		}
	}
	differ := [][2]string{
		{"Argument of type 'URL | RequestInfo' is not assignable", "Argument of type 'URL | Request' is not assignable"},
		{"Type '(a: string) => A | B' is not assignable", "Type 'B | (a: string) => A' is not assignable"},
		{`Type "Literal['b', 'a']" is not "x"`, `Type "Literal['a', 'b']" is not "x"`},
		{"Operator '||' cannot be applied to types 'a' and 'b'", "Operator '||' cannot be applied to types 'b' and 'a'"},
	}
	for _, c := range differ {
		if a, b := lsp.NormalizeMessage(c[0]), lsp.NormalizeMessage(c[1]); a == b {
			t.Errorf("want different, both read %s", a)
		}
	}
	if got := lsp.NormalizeMessage("no quotes | here"); got != "no quotes | here" {
		t.Errorf("prose changed: %s", got)
	}
}

// TestSeenUnionOrder: a file's diagnostic printed with a union's members
// in another order after a write is neither new nor cleared (tsserver
// printed 'URL | RequestInfo' before an edit and 'RequestInfo | URL'
// after it, and six old errors were reported new and cleared at once);
// a diagnostic that changed type is both.
func TestSeenUnionOrder(t *testing.T) {
	d := func(msg string) lsp.Diagnostic {
		return lsp.Diagnostic{Path: "test/hooks.ts", Line: 3, Severity: "error", Code: "2345", Message: msg}
	}
	before := []lsp.Diagnostic{d("Argument of type 'URL | RequestInfo' is not assignable to parameter of type 'Input'.")}
	var s lsp.Seen
	s.Baseline("test/hooks.ts", before)
	// The elaboration below names the union's first member: it changes
	// with the order too.
	after := []lsp.Diagnostic{d("Argument of type 'RequestInfo | URL' is not assignable to parameter of type 'Input'.\n  Type 'RequestInfo' is not assignable to type 'Input'.")}
	if c := s.Cleared("test/hooks.ts", after); c != 0 {
		t.Fatalf("cleared %d", c)
	}
	if fresh, more := s.FreshN("test/hooks.ts", after, -1); len(fresh)+more != 0 {
		t.Fatalf("new: %v", fresh)
	}
	changed := []lsp.Diagnostic{d("Argument of type 'RequestInfo | string' is not assignable to parameter of type 'Input'.")}
	if c := s.Cleared("test/hooks.ts", changed); c != 1 {
		t.Fatalf("a changed type must clear the old one, cleared %d", c)
	}
	if fresh, _ := s.FreshN("test/hooks.ts", changed, -1); len(fresh) != 1 {
		t.Fatalf("a changed type must be new: %v", fresh)
	}
}

// TestSeenClearsUnshown: the new diagnostics a report left out (over its
// bound) stay new while they last, and count as cleared when they go, as
// the shown ones do.
func TestSeenClearsUnshown(t *testing.T) {
	var s lsp.Seen
	s.Baseline("a.ts", nil)
	var ds []lsp.Diagnostic
	for i := range 5 {
		ds = append(ds, lsp.Diagnostic{Path: "a.ts", Line: i, Severity: "error", Message: fmt.Sprintf("e%d", i)})
	}
	shown, more := s.FreshN("a.ts", ds, 2)
	if len(shown) != 2 || more != 3 {
		t.Fatalf("shown %d, more %d; want 2 and 3", len(shown), more)
	}
	if shown, more := s.FreshN("a.ts", ds, 10); len(shown) != 3 || more != 0 {
		t.Fatalf("the left-out ones are still new: shown %d, more %d; want 3 and 0", len(shown), more)
	}
	shown, more = s.FreshN("b.ts", append([]lsp.Diagnostic(nil), ds...), 1)
	if len(shown) != 1 || more != 4 {
		t.Fatalf("b.ts: shown %d, more %d", len(shown), more)
	}
	if n := s.Cleared("b.ts", nil); n != 5 {
		t.Fatalf("cleared %d of b.ts's 5 (1 shown, 4 left out); want 5", n)
	}
}
