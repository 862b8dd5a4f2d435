package search_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tetherhq/tether/search"
)

// symeditCase is one symbol edit of a small file and the file it gives.
type symeditCase struct {
	name, file, src, path string
	edit                  search.SymbolEdit
	want                  string
}

func TestEditSymbol(t *testing.T) {
	p := parser(t)
	s := search.NewSearcher(p, search.Config{})
	for _, c := range symeditCases {
		t.Run(c.name, func(t *testing.T) {
			f, err := s.DeclarationsOf(context.Background(), c.file, []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			d, err := f.Find(c.path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := f.EditSymbol(d, c.edit)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
			after, err := s.DeclarationsOf(context.Background(), c.file, got)
			if err != nil {
				t.Fatal(err)
			}
			if after.Errors {
				t.Errorf("the edited file has syntax errors:\n%s", got)
			}
		})
	}
}

func TestFindSymbolErrors(t *testing.T) {
	s := search.NewSearcher(parser(t), search.Config{})
	src := "package p\n\nfunc A() {}\n\ntype T struct{}\n\nfunc (t *T) M() {}\n\nfunc (t T) N() {}\n"
	f, err := s.DeclarationsOf(context.Background(), "p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{"T/M", ""}, {"p.A", ""}, {"(*T).M", ""}, {"M", ""},
		{"B", "top-level symbols: A (line 3), T (line 5)"},
		{"T/X", "top-level symbols"},
		{"A#2", "there are 1 of that name"},
	} {
		_, err := f.Find(c.path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.path, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, search.ErrNoSymbol)):
			t.Errorf("%s: got %v, want an ErrNoSymbol with %q", c.path, err, c.want)
		}
	}
}
