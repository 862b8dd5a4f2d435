package search

import "context"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "sync"
import "testing"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/search/store"

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
	whole := store.KeyOf("", enginetest.Language(t, "go"), src)
	for _, c := range []struct {
		name      string
		cfg       Config
		wantWhole bool
	}{
		{"room", Config{Cache: store.NewCache(0), WholeWhileRoom: true}, true},
		{"no room", Config{Cache: store.NewCache(1), WholeWhileRoom: true}, false},
		{"chunks (the command line)", Config{Cache: store.NewCache(0)}, false},
	} {
		s := NewSearcher(fuzzParser(t), c.cfg)
		if r := memoSearch(t, s, dir, "$M.Lock()"); r.Total != 1 {
			t.Fatalf("%s: %d matches, want 1", c.name, r.Total)
		}
		if got := s.cache.InMemory(whole); got != c.wantWhole {
			t.Errorf("%s: the whole file's tree in the store: %v, want %v", c.name, got, c.wantWhole)
		}
		if r := memoSearch(t, s, dir, "$X := $V"); r.Total != 40 {
			t.Errorf("%s: the next pattern found %d matches, want 40", c.name, r.Total)
		}
	}
}

// recParser records the source of every parse.
type recParser struct {
	p      matcher.Parser
	mu     sync.Mutex
	parsed []string
}

func (r *recParser) Parse(ctx context.Context, lang *grammars.Language, src []byte) (*engine.Tree, error) {
	r.mu.Lock()
	r.parsed = append(r.parsed, string(src))
	r.mu.Unlock()
	return r.p.Parse(ctx, lang, src)
}

// TestWarmUpTakesQueriedFilesFirst: a file a query parsed only in chunks is
// the warm-up's next, parsed whole before the files it had yet to reach.
func TestWarmUpTakesQueriedFilesFirst(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 5 {
		files[fmt.Sprintf("a%d.go", i)] = fmt.Sprintf("package p\n\nfunc a%d() {}\n", i)
	}
	var b strings.Builder
	b.WriteString("package p\n")
	for i := range 20 {
		fmt.Fprintf(&b, "\nfunc z%d() {\n\tx := %d\n\t_ = x\n}\n", i, i)
	}
	b.WriteString("\nfunc g() { mu.Lock() }\n")
	files["z.go"] = b.String()
	testenv.WriteFiles(t, dir, files)
	op := &recParser{p: fuzzParser(t)}
	s := NewSearcher(op, Config{Cache: store.NewCache(0)})
	// a query in flight holds the warm-up off once it has listed the files
	listed := make(chan struct{})
	s.testHookListed = func() { close(listed) }
	s.warm.BeginQuery()
	done := make(chan error)
	go func() { done <- s.WarmUp(context.Background(), dir) }()
	<-listed
	if r := memoSearch(t, s, dir, "$M.Lock()"); r.Total != 1 {
		t.Fatalf("%d matches, want 1", r.Total)
	}
	s.warm.EndQuery()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	at := map[string]int{}
	for i, src := range op.parsed {
		if _, seen := at[src]; !seen {
			at[src] = i
		}
	}
	whole, ok := at[files["z.go"]]
	if !ok {
		t.Fatalf("the warm-up never parsed z.go whole")
	}
	if a1 := at[files["a1.go"]]; whole > a1 {
		t.Errorf("z.go, which the query parsed in chunks, was warmed at parse %d, after a1.go (%d)", whole, a1)
	}
}
