package lsp

import "testing"

// TestResolveSymbolLandsOnTheNamedSymbol: a plain substring lands on its
// first name; a qualified one (fmt.Println, s.Area(), std::vector, p->next)
// on its last, the symbol it names.
func TestResolveSymbolLandsOnTheNamedSymbol(t *testing.T) {
	for _, tt := range []struct {
		line, symbol string
		col          int
	}{
		{"\tfmt.Println(x)", "Println", 5},
		{"\tfmt.Println(x)", "fmt.Println", 5},
		{"\tfmt.Println(x)", "fmt", 1},
		{"total += s.Area()", "s.Area", 11},
		{"total += s.Area()", "s.Area()", 11},
		{"total += s.Area()", "Area()", 11},
		{"f(a.b, c)", "f(a.b", 0},
		{"v := m.items[0]", "m.items[0]", 7},
		{"std::vector<int> v;", "std::vector", 5},
		{"n = p->next;", "p->next", 7},
		{"a = b?.c", "b?.c", 7},
		{"x := y + z", "y + z", 5},
		{"x := y + z", "(x", -1},
		{"é.ñ = 1", "é.ñ", 3},
		{"obj.", "obj.", 0},
	} {
		_, col, err := resolveSymbol([]byte(tt.line+"\n"), 1, tt.symbol, "f")
		if tt.col < 0 {
			if err == nil {
				t.Errorf("%q in %q: want an error, got column %d", tt.symbol, tt.line, col)
			}
			continue
		}
		if err != nil || col != tt.col {
			t.Errorf("%q in %q: column %d, %v; want %d", tt.symbol, tt.line, col, err, tt.col)
		}
	}
}
