package engine

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// TestPrefetch: a language is named as Parse names it (id, alias, file
// name); a name of no language is an error prefetch returns and Prefetch
// drops.
func TestPrefetch(t *testing.T) {
	for _, name := range []string{"go", "golang", "main.go", "lib/x.py"} {
		if err := prefetch(name); err != nil {
			t.Errorf("prefetch(%q) = %v", name, err)
		}
	}
	if err := prefetch("cobol"); !errors.Is(err, ErrUnknownLanguage) {
		t.Errorf("prefetch(cobol) = %v, want ErrUnknownLanguage", err)
	}
	Prefetch("")
	Prefetch("cobol")
}

// TestPrefetchBesideParse: Prefetch racing an engine's first parses of
// the same language, as a CLI's start does (run under -race), leaves them
// as they would be.
func TestPrefetchBesideParse(t *testing.T) {
	ctx := context.Background()
	e := newTestEngine(t, NewConfig())
	for _, c := range []struct{ lang, src, root string }{
		{"lua", "local x = 1\n", "chunk"},
		{"css", "a { color: red }\n", "stylesheet"},
		{"yaml", "a: 1\n", "stream"},
	} {
		l, err := resolve(c.lang)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 4 {
			Prefetch(c.lang)
			wg.Add(1)
			go func() {
				defer wg.Done()
				tree, err := e.Parse(ctx, l, []byte(c.src))
				if err != nil {
					t.Errorf("%s: %v", c.lang, err)
					return
				}
				if tree.HasError() || tree.Root().Kind() != c.root {
					t.Errorf("%s: root %s (error: %v), want %s", c.lang, tree.Root().Kind(), tree.HasError(), c.root)
				}
			}()
		}
		wg.Wait()
	}
}
