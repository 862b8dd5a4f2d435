package search_test

import "context"
import "errors"
import "path/filepath"
import "strings"
import "testing"

import "golang.org/x/tools/txtar"

import "github.com/tetherhq/tether/search"

// symeditCase is one testdata/symedit/cases/LANG/NAME.txtar: a small file,
// one symbol edit of it and the file that edit gives. The archive comment
// holds "path: SYMBOL", "action: ACTION" and, for a body edit, "body: true";
// the files are the source (named as its language wants), "text" (the new
// code less its final newline; none for a delete) and "want".
type symeditCase struct {
	name, file, src, path string
	edit                  search.SymbolEdit
	want                  string
}

func loadSymeditCases(t *testing.T) []symeditCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "symedit", "cases", "*", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no symbol edit cases in testdata/symedit/cases: %v", err)
	}
	cases := make([]symeditCase, 0, len(paths))
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c := symeditCase{name: filepath.Base(filepath.Dir(p)) + "/" + strings.TrimSuffix(filepath.Base(p), ".txtar")}
		for _, line := range strings.Split(strings.TrimSpace(string(ar.Comment)), "\n") {
			key, val, _ := strings.Cut(line, ": ")
			switch key {
			case "path":
				c.path = val
			case "action":
				c.edit.Action = val
			case "body":
				c.edit.Body = val == "true"
			default:
				t.Fatalf("%s: unknown header line %q", p, line)
			}
		}
		for _, f := range ar.Files {
			switch f.Name {
			case "text":
				c.edit.Text = strings.TrimSuffix(string(f.Data), "\n")
			case "want":
				c.want = string(f.Data)
			default:
				c.file, c.src = f.Name, string(f.Data)
			}
		}
		if c.path == "" || c.edit.Action == "" || c.file == "" || c.want == "" {
			t.Fatalf("%s: wants path and action lines and a source and a want file", p)
		}
		cases = append(cases, c)
	}
	return cases
}

func TestEditSymbol(t *testing.T) {
	p := parser(t)
	s := search.NewSearcher(p, search.Config{})
	for _, c := range loadSymeditCases(t) {
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
