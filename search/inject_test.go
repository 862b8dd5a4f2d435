package search_test

import "bytes"
import "context"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/inject"
import "github.com/tetherhq/tether/search/stage"
import "github.com/tetherhq/tether/search/store"

// injectHTML has every kind of HTML region: a one-line script (a region
// that starts within its line), a module script, a TypeScript script, a
// JSON script, a template script (no code), a style and an SCSS style; and
// JavaScript-looking text outside any region.
const injectHTML = `<!DOCTYPE html>
<html>
<head>
<script>console.log("head"); let a = 1;</script>
<script type="module">
  import x from "y";
  console.log(x);
</script>
<script lang="ts">
  let n: number = 1;
  console.log(n);
</script>
<script type="application/json">{"a": 1}</script>
<script type="text/template"><p>console.log(t)</p></script>
<style>
  body { color: red; }
</style>
<style lang="scss">
  .a { .b { color: blue; } }
</style>
</head>
<body onclick="console.log(1)">console.log(2)</body>
</html>
`

// injectMarkdown has fences of several languages, one named by an alias,
// fences in a block quote and a list item (not contiguous: not searched), a
// fence without a language, and code-looking text outside any fence.
const injectMarkdown = "# Notes\n\nCall fmt.Println(\"prose\") to print.\n\n" +
	"```go\nfunc main() {\n\tfmt.Println(\"go\")\n}\n```\n\n" +
	"~~~python\nprint(\"py\")\n~~~\n\n" +
	"```js\nconsole.log(\"js\")\n```\n\n" +
	"```python\nfmt.Println(\"not go\")\n```\n\n" +
	"> ```go\n> fmt.Println(\"quoted\")\n> ```\n\n" +
	"- item\n\n  ```go\n  fmt.Println(\"listed\")\n  ```\n\n" +
	"```\nfmt.Println(\"bare\")\n```\n"

const injectSvelte = `<script lang="ts">
  let n: number = 1;
  console.log(n);
</script>

<script context="module">
  console.log("m");
</script>

<h1>console.log(3)</h1>

<style>
  h1 { color: red; }
</style>
`

// writeFiles writes name -> content under a new directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, files)
	return dir
}

// where renders a match as host-file coordinates and text, checked against
// the host's own bytes.
func where(t *testing.T, src string, m search.Match) string {
	t.Helper()
	if got := src[m.Span.StartByte:m.Span.EndByte]; got != m.Text {
		t.Errorf("%s: bytes %d-%d of the host are %q, the match says %q", m.Path, m.Span.StartByte, m.Span.EndByte, got, m.Text)
	}
	// the line and column are the host's: count them from its bytes
	line := strings.Count(src[:m.Span.StartByte], "\n") + 1
	col := m.Span.StartByte - (strings.LastIndex(src[:m.Span.StartByte], "\n") + 1) + 1
	if m.Span.Start.Line != line || m.Span.Start.Column != col {
		t.Errorf("%s: match %q at %d:%d, the host has it at %d:%d", m.Path, m.Text, m.Span.Start.Line, m.Span.Start.Column, line, col)
	}
	endLine := strings.Count(src[:m.Span.EndByte], "\n") + 1
	endCol := m.Span.EndByte - (strings.LastIndex(src[:m.Span.EndByte], "\n") + 1) + 1
	if m.Span.End.Line != endLine || m.Span.End.Column != endCol {
		t.Errorf("%s: match %q ends at %d:%d, the host has it end at %d:%d", m.Path, m.Text, m.Span.End.Line, m.Span.End.Column, endLine, endCol)
	}
	ls := strings.LastIndex(src[:m.Span.StartByte], "\n") + 1
	le := strings.Index(src[m.Span.EndByte:], "\n")
	if want := src[ls : m.Span.EndByte+le]; m.Lines != want {
		t.Errorf("%s: lines %q, want the host's %q", m.Path, m.Lines, want)
	}
	for _, b := range m.Bindings {
		if got := src[b.Span.StartByte:b.Span.EndByte]; got != b.Text {
			t.Errorf("%s: capture $%s at %d-%d is %q in the host, says %q", m.Path, b.Name, b.Span.StartByte, b.Span.EndByte, got, b.Text)
		}
	}
	return fmt.Sprintf("%s:%d:%d %s %s", filepath.Base(m.Path), m.Span.Start.Line, m.Span.Start.Column, m.Language, m.Text)
}

// wantWheres searches q with s and fails unless where renders the matches,
// checked against their files as they stand, as want; it returns the result.
func wantWheres(t *testing.T, s *search.Searcher, q search.Query, want []string) *search.Result {
	t.Helper()
	res, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Matches {
		src, err := os.ReadFile(m.Path)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, where(t, string(src), m))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	return res
}

// stageLogToInfo rewrites console.log($A) to console.info($A) in dir's
// file as lang, fails unless the plan changes that file alone with
// replacements replacements, stages and accepts it, and returns the file's
// new content.
func stageLogToInfo(t *testing.T, s *search.Searcher, dir, file, lang string, replacements int) string {
	t.Helper()
	path := filepath.Join(dir, file)
	plan, err := s.Rewrite(context.Background(), search.Query{Pattern: "console.log($A)", Language: lang, Paths: []string{path}}, "console.info($A)")
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Changes) != 1 || plan.Replacements != replacements {
		t.Fatalf("plan changes %d files with %d replacements, want %s with %d", len(plan.Changes), plan.Replacements, file, replacements)
	}
	return string(acceptPlan(t, dir, path, plan))
}

// acceptPlan stages plan in dir, accepts it and returns the new content
// of the file at path.
func acceptPlan(t *testing.T, dir, path string, plan *search.Plan) []byte {
	t.Helper()
	stager := stage.New(dir)
	if _, err := stager.Accept(stager.Stage(plan)); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestInjectedRegions(t *testing.T) {
	p := parser(t)
	dir := writeFiles(t, map[string]string{
		"page.html":  injectHTML,
		"notes.md":   injectMarkdown,
		"app.svelte": injectSvelte,
		"main.js":    "console.log(\"file\")\n",
		"main.go":    "package main\n\nfunc f() { fmt.Println(\"file\") }\n",
	})
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cases := []struct {
		name, lang, pattern string
		paths               []string // default: the directory
		want                []string
	}{
		{name: "javascript", lang: "js", pattern: "console.log($A)", want: []string{
			`app.svelte:7:3 javascript console.log("m")`,
			`main.js:1:1 javascript console.log("file")`,
			`notes.md:16:1 javascript console.log("js")`,
			`page.html:4:9 javascript console.log("head")`,
			`page.html:7:3 javascript console.log(x)`,
		}},
		{name: "typescript", lang: "ts", pattern: "console.log($A)", want: []string{
			`app.svelte:3:3 typescript console.log(n)`,
			`page.html:11:3 typescript console.log(n)`,
		}},
		{name: "typescript type annotation", lang: "typescript", pattern: "let $N: number = $V", want: []string{
			`app.svelte:2:3 typescript let n: number = 1;`,
			`page.html:10:3 typescript let n: number = 1;`,
		}},
		{name: "css", lang: "css", pattern: "$S { color: red; }", want: []string{
			`app.svelte:13:3 css h1 { color: red; }`,
			`page.html:16:3 css body { color: red; }`,
		}},
		{name: "scss", lang: "scss", pattern: ".b { $$$ }", want: []string{
			`page.html:19:8 scss .b { color: blue; }`,
		}},
		{name: "json", lang: "json", pattern: `{"a": $X}`, want: []string{
			`page.html:13:33 json {"a": 1}`,
		}},
		{name: "go fence", lang: "go", pattern: "fmt.Println($A)", want: []string{
			`main.go:3:12 go fmt.Println("file")`,
			`notes.md:7:2 go fmt.Println("go")`,
		}},
		{name: "python fence", lang: "python", pattern: "print($A)", want: []string{
			`notes.md:12:1 python print("py")`,
		}},
		{name: "one host file named", lang: "javascript", pattern: "console.log($A)", paths: []string{"page.html"}, want: []string{
			`page.html:4:9 javascript console.log("head")`,
			`page.html:7:3 javascript console.log(x)`,
		}},
		{name: "a fence named by an alias", lang: "javascript", pattern: "console.log($A)", paths: []string{"notes.md"}, want: []string{
			`notes.md:16:1 javascript console.log("js")`,
		}},
	}
	s := search.NewSearcher(p, search.Config{Cache: store.NewCache(0)})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			paths := []string{dir}
			if c.paths != nil {
				paths = nil
				for _, n := range c.paths {
					paths = append(paths, filepath.Join(dir, n))
				}
			}
			// twice: the second run takes the trees and the kind sets from the
			// store, which must not rule a host file out
			for run := 0; run < 2; run++ {
				res, err := s.Search(context.Background(), search.Query{Pattern: c.pattern, Language: c.lang, Paths: paths})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, m := range res.Matches {
					got = append(got, where(t, read(filepath.Base(m.Path)), m))
				}
				if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
					t.Errorf("run %d: got\n%s\nwant\n%s", run, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
				}
				if res.Total != len(c.want) {
					t.Errorf("run %d: total %d, want %d", run, res.Total, len(c.want))
				}
			}
		})
	}
}

// TestInjectedNotInferred: a search without a language infers one language
// and searches the regions of that language only; markdown files do not
// make every language's fences searched.
func TestInjectedNotInferred(t *testing.T) {
	p := parser(t)
	dir := writeFiles(t, map[string]string{
		"notes.md": injectMarkdown,
		"a.py":     "print(\"file\")\n",
		// a binary markdown file is no python file: neither searched nor
		// skipped
		"bin.md": "```python\nprint(\"x\")\n```\n\x00",
	})
	s := search.NewSearcher(p, search.Config{Cache: store.NewCache(0)})
	res, err := s.Search(context.Background(), search.Query{Pattern: "print($A)", Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Matches {
		got = append(got, fmt.Sprintf("%s:%d %s", filepath.Base(m.Path), m.Span.Start.Line, m.Language))
	}
	if want := "a.py:1 python\nnotes.md:12 python"; strings.Join(got, "\n") != want {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	if res.Searched != 2 || res.Skipped.Total() != 0 {
		t.Errorf("%d files searched, %d skipped (%s); want a.py and notes.md searched, none skipped", res.Searched, res.Skipped.Total(), res.Summary())
	}
	// the markdown file alone, without a language, is searched as markdown:
	// its fences are not
	res, err = s.Search(context.Background(), search.Query{Pattern: "print($A)", Paths: []string{filepath.Join(dir, "notes.md")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Matches {
		if m.Language != "markdown" {
			t.Errorf("a search of notes.md without a language matched %s code: %+v", m.Language, m)
		}
	}
	// no match: the summary says how to search the fences
	res, err = s.Search(context.Background(), search.Query{Pattern: "fmt.Println($A)", Paths: []string{filepath.Join(dir, "notes.md")}})
	if err != nil {
		t.Fatal(err)
	}
	if sum := res.Summary(); res.Total != 0 || !strings.Contains(sum, "searched as Markdown; to search the code in its fences pass their language") {
		t.Errorf("%d matches; summary %q does not say how to search the fences", res.Total, sum)
	}
}

func TestInjectedRewrite(t *testing.T) {
	p := parser(t)
	dir := writeFiles(t, map[string]string{"page.html": injectHTML, "notes.md": injectMarkdown})
	cases := []struct {
		name, lang, pattern, rewrite, file string
		from, to                           []string // replaced texts, in order
	}{
		{name: "html script", lang: "javascript", pattern: "console.log($A)", rewrite: "console.info($A)", file: "page.html",
			from: []string{`<script>console.log("head");`, "  console.log(x);"},
			to:   []string{`<script>console.info("head");`, "  console.info(x);"}},
		{name: "markdown fence", lang: "go", pattern: "fmt.Println($A)", rewrite: "log.Print($A)", file: "notes.md",
			from: []string{"\tfmt.Println(\"go\")"},
			to:   []string{"\tlog.Print(\"go\")"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := search.NewSearcher(p, search.Config{Cache: store.NewCache(0)})
			path := filepath.Join(dir, c.file)
			old, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := s.Rewrite(context.Background(), search.Query{Pattern: c.pattern, Language: c.lang, Paths: []string{path}}, c.rewrite)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Changes) != 1 || plan.Changes[0].Path != path || plan.Replacements != len(c.from) {
				t.Fatalf("plan changes %d files with %d replacements, want %s with %d", len(plan.Changes), plan.Replacements, c.file, len(c.from))
			}
			// every other byte of the host stays as it was
			want := string(old)
			for i := range c.from {
				if strings.Count(want, c.from[i]) != 1 {
					t.Fatalf("fixture: %q is not once in %s", c.from[i], c.file)
				}
				want = strings.Replace(want, c.from[i], c.to[i], 1)
			}
			if got := acceptPlan(t, dir, path, plan); string(got) != want {
				t.Errorf("after the staged edit %s is\n%s\nwant\n%s", c.file, got, want)
			}
		})
	}
}

// TestInjectedRegionCap: a host file with more regions of the language than
// MaxRegionsPerFile is searched in its first ones and named in the result.
func TestInjectedRegionCap(t *testing.T) {
	p := parser(t)
	var b bytes.Buffer
	n := inject.MaxRegionsPerFile + 20
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "Step %d:\n\n```go\nfmt.Println(%d)\n```\n\n", i, i)
	}
	dir := writeFiles(t, map[string]string{"many.md": b.String()})
	s := search.NewSearcher(p, search.Config{Cache: store.NewCache(0)})
	res, err := s.Search(context.Background(), search.Query{Pattern: "fmt.Println($A)", Language: "go", Paths: []string{dir}, MaxResults: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != inject.MaxRegionsPerFile || len(res.Matches) != 5 {
		t.Errorf("total %d (%d shown), want %d (5 shown)", res.Total, len(res.Matches), inject.MaxRegionsPerFile)
	}
	if res.RegionsCutCount != 1 || len(res.RegionsCut) != 1 || res.RegionsCut[0].Regions != n || res.RegionsCut[0].Searched != inject.MaxRegionsPerFile {
		t.Errorf("regions cut: %d %+v, want many.md with %d regions, %d searched", res.RegionsCutCount, res.RegionsCut, n, inject.MaxRegionsPerFile)
	}
	if sum := res.Summary(); !strings.Contains(sum, fmt.Sprintf("1 file embeds more than %d regions", inject.MaxRegionsPerFile)) || !strings.Contains(sum, fmt.Sprintf("%d of %d", inject.MaxRegionsPerFile, n)) {
		t.Errorf("summary does not say regions were cut: %s", sum)
	}
}
