package search_test

import "bytes"
import "context"
import "flag"
import "fmt"
import "os"
import "path/filepath"
import "sort"
import "strings"
import "testing"

import "golang.org/x/tools/txtar"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/search"

var update = flag.Bool("update", false, "rewrite the golden sections of testdata/matcher/**/*.txtar")

// parser returns the shared engine over the embedded grammars.
func parser(t testing.TB) matcher.Parser {
	t.Helper()
	return enginetest.Engine(t)
}

// goldenCase is one testdata/matcher/LANG/NAME.txtar file.
//
// The archive comment describes the case; lines "astgrep: differs: WHY" and
// "astgrep: skip: WHY" mark documented differences from ast-grep for the
// differential test. Files: "pattern", optional "rewrite", one "input.EXT",
// and the golden sections "matches" (or "error" for a pattern that must not
// compile) and, with a rewrite, "output.EXT". An optional "selector" is
// tether's and ast-grep's (Query.Selector, --selector). "astgrep-context"
// and "astgrep-selector" are for the differential test alone: ast-grep is
// run with them (-p CONTEXT --selector KIND) where it needs the context
// that tether must find by itself from the pattern.
type goldenCase struct {
	name, path, lang string
	ar               *txtar.Archive
	pattern, rewrite string
	hasRewrite       bool
	inputName        string
	input            []byte
	astgrep          string // "", "differs: ...", "skip: ..."
	selector         string
	agContext        string // ast-grep's pattern and selector, when it needs them
	agSelector       string
}

// astgrepArgs are the pattern arguments ast-grep is run with, the pattern
// joined to its flag: ast-grep's argument parser takes a separate pattern
// that starts with "-" (YAML's "- name: $N") for a flag.
func (c *goldenCase) astgrepArgs() []string {
	switch {
	case c.agContext != "":
		return []string{"--pattern=" + c.agContext, "--selector", c.agSelector}
	case c.selector != "":
		return []string{"--pattern=" + c.pattern, "--selector", c.selector}
	}
	return []string{"--pattern=" + c.pattern}
}

func loadCases(t *testing.T) []*goldenCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "matcher", "*", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []*goldenCase
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c := &goldenCase{
			name: filepath.Base(filepath.Dir(p)) + "/" + strings.TrimSuffix(filepath.Base(p), ".txtar"),
			path: p, lang: filepath.Base(filepath.Dir(p)), ar: ar,
		}
		for _, line := range strings.Split(string(ar.Comment), "\n") {
			if v, ok := strings.CutPrefix(line, "astgrep: "); ok {
				c.astgrep = v
			}
		}
		for _, f := range ar.Files {
			switch {
			case f.Name == "pattern":
				c.pattern = strings.TrimSuffix(string(f.Data), "\n")
			case f.Name == "selector":
				c.selector = strings.TrimSpace(string(f.Data))
			case f.Name == "astgrep-context":
				c.agContext = strings.TrimSuffix(string(f.Data), "\n")
			case f.Name == "astgrep-selector":
				c.agSelector = strings.TrimSpace(string(f.Data))
			case f.Name == "rewrite":
				c.rewrite, c.hasRewrite = strings.TrimSuffix(string(f.Data), "\n"), true
			case strings.HasPrefix(f.Name, "input."):
				c.inputName, c.input = f.Name, f.Data
			}
		}
		if c.pattern == "" || c.inputName == "" {
			t.Fatalf("%s: needs a pattern and an input.EXT file", p)
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases under testdata/matcher")
	}
	return cases
}

func (c *goldenCase) section(name string) (string, bool) {
	for _, f := range c.ar.Files {
		if f.Name == name {
			return string(f.Data), true
		}
	}
	return "", false
}

func (c *goldenCase) setSection(name, data string) {
	for i, f := range c.ar.Files {
		if f.Name == name {
			c.ar.Files[i].Data = []byte(data)
			return
		}
	}
	c.ar.Files = append(c.ar.Files, txtar.File{Name: name, Data: []byte(data)})
}

func (c *goldenCase) dropSection(name string) {
	var keep []txtar.File
	for _, f := range c.ar.Files {
		if f.Name != name {
			keep = append(keep, f)
		}
	}
	c.ar.Files = keep
}

// formatMatches renders a result for the golden "matches" section.
func formatMatches(pat *matcher.Pattern, res *search.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "context: %s\n", strings.Join(pat.Contexts(), " + "))
	for i, r := range pat.Readings() {
		if i == 0 {
			fmt.Fprintf(&b, "pattern: %s\n", r.String())
		} else {
			fmt.Fprintf(&b, "pattern (%s): %s\n", r.Context(), r.String())
		}
	}
	for i, m := range res.Matches {
		reading := ""
		if m.Context != "" {
			reading = " [" + m.Context + "]"
		}
		fmt.Fprintf(&b, "match %d: %d:%d-%d:%d bytes %d-%d %q%s\n", i+1,
			m.Span.Start.Line, m.Span.Start.Column, m.Span.End.Line, m.Span.End.Column,
			m.Span.StartByte, m.Span.EndByte, m.Text, reading)
		for _, bd := range m.Bindings {
			mark := "$"
			if bd.Multi {
				mark = "$$$"
			}
			fmt.Fprintf(&b, "  %s%s = %q\n", mark, bd.Name, bd.Text)
		}
	}
	// a file with syntax errors is named as the case names it
	for i := range res.Broken {
		res.Broken[i].Path = filepath.Base(res.Broken[i].Path)
	}
	if nm := res.NoMatch; nm != nil {
		// the reading and its hints; the counts depend on what the tree
		// store held (a file its kinds rule out is not parsed)
		res.NoMatch = nil
		var hints []string
		for _, h := range nm.Hints {
			hints = append(hints, h.Kind)
		}
		fmt.Fprintf(&b, "no match: read as %s (%s), hints %v\n", nm.Reading.Context, strings.Join(nm.Reading.Roots, ", "), hints)
	}
	fmt.Fprintf(&b, "summary: %s\n", res.Summary())
	return b.String()
}

// runCase searches (and rewrites) the case's input in a fresh directory.
func runCase(t *testing.T, p matcher.Parser, c *goldenCase) (matches, output, errText string) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, c.inputName)
	if err := os.WriteFile(file, c.input, 0o644); err != nil {
		t.Fatal(err)
	}
	s := search.NewSearcher(p, search.Config{})
	q := search.Query{Pattern: c.pattern, Selector: c.selector, Language: c.lang, Paths: []string{dir}, MaxResults: 0}
	ctx := context.Background()
	if c.hasRewrite {
		plan, err := s.Rewrite(ctx, q, c.rewrite)
		if err != nil {
			return "", "", strings.ReplaceAll(err.Error(), dir, "$DIR") + "\n"
		}
		out := c.input
		for _, ch := range plan.Changes {
			out = ch.New
		}
		return formatMatches(plan.Result.Pattern, plan.Result), string(out), ""
	}
	res, err := s.Search(ctx, q)
	if err != nil {
		return "", "", strings.ReplaceAll(err.Error(), dir, "$DIR") + "\n"
	}
	return formatMatches(res.Pattern, res), "", ""
}

func TestGolden(t *testing.T) {
	p := parser(t)
	cases := loadCases(t)
	langs := map[string]bool{}
	for _, c := range cases {
		langs[c.lang] = true
	}
	var ids []string
	for l := range langs {
		ids = append(ids, l)
	}
	sort.Strings(ids)
	enginetest.RequireLoads(t, ids...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			matches, output, errText := runCase(t, p, c)
			outName := "output" + filepath.Ext(c.inputName)
			if *update {
				if errText != "" {
					c.dropSection("matches")
					c.dropSection(outName)
					c.setSection("error", errText)
				} else {
					c.dropSection("error")
					c.setSection("matches", matches)
					if c.hasRewrite {
						c.setSection(outName, output)
					}
				}
				if err := os.WriteFile(c.path, txtar.Format(c.ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want, ok := c.section("error"); ok {
				if errText != want {
					t.Errorf("error:\n%s\nwant:\n%s", errText, want)
				}
				return
			}
			if errText != "" {
				t.Fatalf("unexpected error: %s", errText)
			}
			want, ok := c.section("matches")
			if !ok {
				t.Fatal("no golden matches section: run go test ./search -run TestGolden -update")
			}
			if matches != want {
				t.Errorf("matches:\n%s\nwant:\n%s", matches, want)
			}
			if c.hasRewrite {
				if want, _ := c.section(outName); output != want {
					t.Errorf("%s:\n%s\nwant:\n%s", outName, output, want)
				}
			}
		})
	}
	if len(cases) < 150 {
		t.Errorf("%d golden cases, want at least 150", len(cases))
	}
	// Every shipped language has its cases: at least a match and a
	// near-miss for two of its readings.
	for _, l := range grammars.All() {
		n := 0
		for _, c := range cases {
			if c.lang == l.ID {
				n++
			}
		}
		if n < 2 {
			t.Errorf("%s has %d golden cases under testdata/matcher/%s, want at least 2", l.Name, n, l.ID)
		}
	}
	_ = bytes.MinRead
}
