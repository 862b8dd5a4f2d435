package search_test

import "context"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/search"

// fuzzSources are the real files of testdata/symedit (ORIGINS.md), each
// parsed as the language of its name without ".txt".
var fuzzSources = []string{"builder.go.txt", "gcc_util.c.txt", "jsonpointer.py.txt", "fswalk_index.d.ts.txt", "fswalk_async.d.ts.txt", "ron_lib.rs.txt"}

// FuzzSymbolEdits makes one random symbol edit to a real file: the file
// index, the declaration's index and the action come from the input. A
// replace or insert uses the declaration's own text with its name
// renamed (code that is valid where it stands); a body replace puts a
// comment before the body's own lines. The edited file must parse with no
// syntax errors when it had none before, and every declaration the edit does not
// overlap must keep its text byte for byte (found by its name path and
// its rank among those of that path).
func FuzzSymbolEdits(f *testing.F) {
	srcs := make([][]byte, len(fuzzSources))
	for i, name := range fuzzSources {
		b, err := os.ReadFile(filepath.Join("testdata", "symedit", name))
		if err != nil {
			f.Fatal(err)
		}
		srcs[i] = b
	}
	s := search.NewSearcher(parser(f), search.Config{})
	// The seed corpus is every action on every declaration of every file.
	for file, src := range srcs {
		fd, err := s.DeclarationsOf(context.Background(), strings.TrimSuffix(fuzzSources[file], ".txt"), src)
		if err != nil {
			f.Fatal(err)
		}
		for decl := range fd.Decls {
			for action := range 5 {
				f.Add(uint8(file), uint16(decl), uint8(action))
			}
		}
	}
	f.Fuzz(func(t *testing.T, file uint8, decl uint16, action uint8) {
		name := strings.TrimSuffix(fuzzSources[int(file)%len(fuzzSources)], ".txt")
		src := srcs[int(file)%len(fuzzSources)]
		ctx := context.Background()
		before, err := s.DeclarationsOf(ctx, name, src)
		if err != nil {
			t.Fatal(err)
		}
		if len(before.Decls) == 0 {
			t.Fatalf("%s: no declarations", name)
		}
		d := before.Decls[int(decl)%len(before.Decls)]
		e := fuzzEdit(name, src, d, action)
		out, err := before.EditSymbol(d, e)
		if err != nil {
			if e.Body && d.BodyStart < 0 {
				return // a declaration without a body: refused, as it should be
			}
			t.Fatalf("%s %s of %s: %v", name, e.Action, d.PathString(), err)
		}
		after, err := s.DeclarationsOf(ctx, name, out)
		if err != nil {
			t.Fatal(err)
		}
		if after.Errors && !before.Errors {
			t.Fatalf("%s: %s (body %v) of %s (line %d) leaves syntax errors:\n%s", name, e.Action, e.Body, d.PathString(), d.Line, out)
		}
		kept := ranked(after)
		gone := e.Action == search.SymbolDelete || e.Action == search.SymbolReplace && !e.Body // d's path is no more
		for i, o := range before.Decls {
			if o.Start < d.End && d.Start < o.End {
				continue // the edited declaration, one it holds or one that holds it
			}
			key := rankKey(before, i, 0)
			if gone && o.PathString() == d.PathString() && o.Start > d.Start {
				key = rankKey(before, i, 1) // one fewer of its path before it
			}
			n, ok := kept[key]
			if !ok {
				t.Fatalf("%s: %s (body %v) of %s lost %s (line %d)", name, e.Action, e.Body, d.PathString(), key, o.Line)
			}
			if was, now := string(src[o.Start:o.End]), string(out[n.Start:n.End]); was != now {
				t.Fatalf("%s: %s (body %v) of %s changed %s:\nwas:\n%s\nnow:\n%s", name, e.Action, e.Body, d.PathString(), key, was, now)
			}
		}
	})
}

// fuzzEdit is the edit action picks for d: replace, body replace, insert
// before, insert after or delete.
func fuzzEdit(name string, src []byte, d search.Declaration, action uint8) search.SymbolEdit {
	renamed := string(src[d.Start:d.NameStart]) + "fuzzRenamed" + string(src[d.NameStart+len(d.Name):d.End])
	switch action % 5 {
	case 0:
		return search.SymbolEdit{Action: search.SymbolReplace, Text: renamed}
	case 1:
		comment := "// fuzzed"
		if strings.HasSuffix(name, ".py") {
			comment = "# fuzzed"
		}
		body := ""
		if d.BodyStart >= 0 {
			from := d.BodyStart
			if line := lineStartOf(src, from); strings.TrimSpace(string(src[line:from])) == "" {
				from = line // whole lines, so that their indentation is common
			}
			body = string(src[from:d.BodyEnd])
		}
		return search.SymbolEdit{Action: search.SymbolReplace, Body: true, Text: comment + "\n" + reindentFirst(body)}
	case 2:
		return search.SymbolEdit{Action: search.SymbolInsertBefore, Text: renamed}
	case 3:
		return search.SymbolEdit{Action: search.SymbolInsertAfter, Text: renamed}
	}
	return search.SymbolEdit{Action: search.SymbolDelete}
}

// reindentFirst gives body's first line the indentation of its second
// when it has none (a body that starts on its header's line).
func reindentFirst(body string) string {
	first, rest, ok := strings.Cut(strings.TrimLeft(body, "\n"), "\n")
	if !ok || strings.TrimSpace(first) == "" || first != strings.TrimLeft(first, " \t") {
		return body
	}
	indent := rest[:len(rest)-len(strings.TrimLeft(rest, " \t"))]
	return indent + first + "\n" + rest
}

func lineStartOf(src []byte, at int) int {
	for at > 0 && src[at-1] != '\n' {
		at--
	}
	return at
}

// rankKey names f's i-th declaration by its path and its rank among the
// declarations of that path, less fewer.
func rankKey(f *search.FileDecls, i, fewer int) string {
	n := -fewer
	for _, o := range f.Decls[:i] {
		if o.PathString() == f.Decls[i].PathString() {
			n++
		}
	}
	return fmt.Sprintf("%s#%d", f.Decls[i].PathString(), n)
}

// ranked maps each of f's declarations by rankKey.
func ranked(f *search.FileDecls) map[string]search.Declaration {
	out := map[string]search.Declaration{}
	for i, d := range f.Decls {
		out[rankKey(f, i, 0)] = d
	}
	return out
}
