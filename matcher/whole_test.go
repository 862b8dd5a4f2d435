package matcher

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWholeWhileRoom: with WholeWhileRoom a file whose token is in one of
// its functions is parsed whole while the store has room, so the next
// pattern finds its tree; without room (or without the option) only the
// chunk holding the token is parsed, as the command line does.
func TestWholeWhileRoom(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n")
	for i := range 40 {
		fmt.Fprintf(&b, "\nfunc f%d() {\n\tx := %d\n\t_ = x\n}\n", i, i)
	}
	b.WriteString("\nfunc g() { mu.Lock() }\n")
	src := []byte(b.String())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	whole := keyOf("go", src)
	for _, c := range []struct {
		name      string
		cfg       Config
		wantWhole bool
	}{
		{"room", Config{Cache: NewCache(0), WholeWhileRoom: true}, true},
		{"no room", Config{Cache: NewCache(1), WholeWhileRoom: true}, false},
		{"chunks (the command line)", Config{Cache: NewCache(0)}, false},
	} {
		s := NewSearcher(fuzzParser(t), c.cfg)
		if r := memoSearch(t, s, dir, "$M.Lock()"); r.Total != 1 {
			t.Fatalf("%s: %d matches, want 1", c.name, r.Total)
		}
		if got := s.cache.inMemory(whole); got != c.wantWhole {
			t.Errorf("%s: the whole file's tree in the store: %v, want %v", c.name, got, c.wantWhole)
		}
		if r := memoSearch(t, s, dir, "$X := $V"); r.Total != 40 {
			t.Errorf("%s: the next pattern found %d matches, want 40", c.name, r.Total)
		}
	}
}
