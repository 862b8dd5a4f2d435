package search_test

import "bytes"
import "context"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/ipynb"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/stage"
import "github.com/tetherhq/tether/search/store"

// notebookR is a notebook whose kernel is R: searched in R, passed over
// by a search in Python.
const notebookR = `{"cells": [{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ["x <- c(1, 2)\n", "print(x)\n"]}],
 "metadata": {"kernelspec": {"display_name": "R", "language": "R", "name": "ir"}}, "nbformat": 4, "nbformat_minor": 4}
`

// notebookMaxima is a notebook whose kernel's language no shipped grammar
// reads: never searched, named.
const notebookMaxima = `{"cells": [{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ["print(1)$\n"]}],
 "metadata": {"kernelspec": {"display_name": "Maxima", "language": "maxima", "name": "maxima"}}, "nbformat": 4, "nbformat_minor": 4}
`

// notebookDeno is a TypeScript notebook (Deno's kernel).
const notebookDeno = `{"cells": [{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ["const n: number = 1;\n", "console.log(n);\n"]}],
 "metadata": {"kernelspec": {"display_name": "Deno", "language": "typescript", "name": "deno"}, "language_info": {"name": "typescript"}}, "nbformat": 4, "nbformat_minor": 5}
`

// notebookEscaped is a compact notebook whose sources are one string each,
// with JSON escapes (\u00e9, \", \\, \n) as a writer with ASCII output
// leaves them, and no language named (Python).
const notebookEscaped = `{"cells":[{"cell_type":"code","execution_count":null,"metadata":{},"outputs":[],"source":"caf\u00e9 = \"caf\\u00e9\"\nprint(caf\u00e9, \"\\\\\")\n"}],"metadata":{},"nbformat":4,"nbformat_minor":4}`

// notebookDir holds the pinned notebook with magics, the R and Maxima
// notebooks, one that is no JSON, the escaped one and a Python file.
func notebookDir(t *testing.T) string {
	t.Helper()
	nb, err := os.ReadFile("../testdata/notebook/magics-and-unicode.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	return writeFiles(t, map[string]string{
		"magics.ipynb":  string(nb),
		"r.ipynb":       notebookR,
		"maxima.ipynb":  notebookMaxima,
		"broken.ipynb":  `{"cells": [`,
		"escaped.ipynb": notebookEscaped,
		"plain.py":      "print(\"file\")\n",
	})
}

// cellWheres is cellWhere of each of a result's matches.
func cellWheres(res *search.Result) []string {
	var got []string
	for _, m := range res.Matches {
		got = append(got, cellWhere(m))
	}
	return got
}

// cellWhere is a match as the tests compare it: place, range and text.
func cellWhere(m search.Match) string {
	return fmt.Sprintf("%s:%d:%d-%d:%d %s", search.Where(filepath.Base(m.Path), m.Cell),
		m.Span.Start.Line, m.Span.Start.Column, m.Span.End.Line, m.Span.End.Column, m.Text)
}

// TestNotebookSearch: a Python search finds matches in the code cells of
// notebooks at their cell, line and column (bytes of the decoded source),
// not in markdown cells, magic lines or a %%bash cell; the R notebook is
// passed over as an R file is, the Maxima one (no grammar) and the one
// that does not parse are skipped, saying why.
func TestNotebookSearch(t *testing.T) {
	dir := notebookDir(t)
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	res, err := s.Search(context.Background(), search.Query{Pattern: "print($$$A)", Language: "python", Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	got := cellWheres(res)
	want := []string{
		`escaped.ipynb[cell 0]:2:1-2:19 print(café, "\\")`,
		`magics.ipynb[cell 2 id=shell]:3:1-3:18 print(len(files))`,
		`magics.ipynb[cell 3 id=timed]:3:1-3:30 print("say \"hi\" to", names)`,
		`magics.ipynb[cell 3 id=timed]:6:5-6:21 print(n.upper())`,
		`magics.ipynb[cell 5 id=frame]:3:1-3:27 print(df["Größe"].sum())`,
		`plain.py:1:1-1:14 print("file")`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("matches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if m := res.Matches[2]; m.Lines != `print("say \"hi\" to", names)` || m.Cell.ID != "timed" {
		t.Errorf("lines %q of %+v: want the cell's source line", m.Lines, m.Cell)
	}
	if res.Searched != 3 || res.Skipped.Notebooks != 2 {
		t.Errorf("searched %d, notebooks skipped %d: want 3 searched, 2 skipped", res.Searched, res.Skipped.Notebooks)
	}
	sum := res.Summary()
	for _, w := range []string{"2 notebooks: ", "broken.ipynb (ipynb: not an nbformat 4 notebook: its JSON does not parse", "maxima.ipynb (kernel language maxima, which no shipped grammar reads)"} {
		if !strings.Contains(sum, w) {
			t.Errorf("summary %q lacks %q", sum, w)
		}
	}
	if strings.Contains(sum, "r.ipynb") {
		t.Errorf("the R notebook should be passed over as an R file is: %q", sum)
	}

	// In R, the R notebook's cells are searched.
	res, err = s.Search(context.Background(), search.Query{Pattern: "print($A)", Language: "r", Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 1 || cellWhere(res.Matches[0]) != "r.ipynb[cell 0]:2:1-2:9 print(x)" {
		t.Errorf("an R search should find print(x) in the R notebook's cell: %v (%s)", res.Matches, res.Summary())
	}
	// the magic lines are no Python, but are blanked, not broken
	if res.BrokenCount != 0 {
		t.Errorf("syntax errors reported: %+v", res.Broken)
	}
}

// TestNotebookSearchOneFile: a notebook named alone is searched without a
// language in its kernel's; in another language it is skipped, saying so.
func TestNotebookSearchOneFile(t *testing.T) {
	dir := notebookDir(t)
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	nb := filepath.Join(dir, "magics.ipynb")
	res, err := s.Search(context.Background(), search.Query{Pattern: "import $M", Paths: []string{nb}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 2 || cellWhere(res.Matches[0]) != "magics.ipynb[cell 1 id=setup]:2:1-2:19 import numpy as np" {
		t.Errorf("matches %v: want the two imports after the %%matplotlib line", res.Matches)
	}
	res, err = s.Search(context.Background(), search.Query{Pattern: "fmt.Println($A)", Language: "go", Paths: []string{nb}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Searched != 0 || res.Skipped.Notebooks != 1 || !strings.Contains(res.Summary(), "magics.ipynb (kernel language python, not go: search it with language python)") {
		t.Errorf("a go search of a notebook: %s", res.Summary())
	}

	deno := filepath.Join(dir, "deno.ipynb")
	if err := os.WriteFile(deno, []byte(notebookDeno), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = s.Search(context.Background(), search.Query{Pattern: "const $N: number = $V", Paths: []string{deno}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 1 || cellWhere(res.Matches[0]) != "deno.ipynb[cell 0]:1:1-1:21 const n: number = 1;" {
		t.Errorf("a TypeScript notebook named alone should be searched in TypeScript: %v (%s)", res.Matches, res.Summary())
	}
}

// TestNotebookRewrite: a rewrite of print calls changes the code cells'
// sources alone: untouched cells keep their bytes, the diff shows source
// lines by cell, nbformat validates the result, and a notebook changed
// after staging is refused.
func TestNotebookRewrite(t *testing.T) {
	dir := notebookDir(t)
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	path := filepath.Join(dir, "magics.ipynb")
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Rewrite(context.Background(), search.Query{Pattern: "print($$$A)", Language: "python", Paths: []string{path}}, "log.info($$$A)")
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Changes) != 1 || plan.Replacements != 4 {
		t.Fatalf("plan: %d changes, %d replacements; want 1 and 4", len(plan.Changes), plan.Replacements)
	}
	diff := plan.Diff(0)
	testenv.WantAll(t, "diff", diff,
		"@@ -1,3 +1,3 @@ cell 2 id=shell\n",
		"-print(len(files))\n+log.info(len(files))\n",
		"@@ -1,6 +1,6 @@ cell 3 id=timed\n",
		"-print(\"say \\\"hi\\\" to\", names)\n+log.info(\"say \\\"hi\\\" to\", names)\n",
		"-    print(n.upper())\n+    log.info(n.upper())\n",
		"@@ -1,3 +1,3 @@ cell 5 id=frame\n",
	)
	if strings.Contains(diff, `"source"`) {
		t.Errorf("diff shows the notebook's JSON:\n%s", diff)
	}
	got := acceptPlan(t, dir, path, plan)
	testenv.ValidateNotebook(t, path)
	before := testenv.ParseNotebook(t, old)
	after := testenv.ParseNotebook(t, got)
	changed := map[int]string{
		2: "!pip install tabulate\nfiles = !ls data\nlog.info(len(files))",
		3: "%%time\nnames = [\"café\", \"naïve\", \"Zürich\"]\nlog.info(\"say \\\"hi\\\" to\", names)\npath = \"C:\\\\data\\\\prices.csv\"\nfor n in names:\n    log.info(n.upper())",
		5: "df = pd.DataFrame({\"Größe\": [1.5, 2.0], \"prix €\": [3, 4]})\ndf?\nlog.info(df[\"Größe\"].sum())",
	}
	for i := range before.Cells {
		if src, ok := changed[i]; ok {
			if after.Cells[i].Source != src {
				t.Errorf("cell %d source %q, want %q", i, after.Cells[i].Source, src)
			}
			// the outputs and the rest of the cell are kept
			if a, b := withoutSource(t, after, i), withoutSource(t, before, i); a != b {
				t.Errorf("cell %d changed beside its source:\n%s\nwas\n%s", i, a, b)
			}
			continue
		}
		if !bytes.Equal(after.Raw(i), before.Raw(i)) {
			t.Errorf("untouched cell %d changed:\n%s", i, after.Raw(i))
		}
	}
	// the bytes around the cells are the file's
	if i := bytes.Index(old, []byte(`"metadata": {`+"\n  \"kernelspec\"")); i < 0 || !bytes.HasSuffix(got, old[i:]) {
		t.Error("the notebook's metadata changed")
	}

	// a notebook changed between stage and accept is refused
	plan, err = s.Rewrite(context.Background(), search.Query{Pattern: "log.info($$$A)", Language: "python", Paths: []string{path}}, "print($$$A)")
	if err != nil {
		t.Fatal(err)
	}
	stager := stage.New(dir)
	id := stager.Stage(plan)
	if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := stager.Accept(id); !errors.Is(err, search.ErrStale) {
		t.Errorf("accept after the notebook changed: %v, want ErrStale", err)
	}
}

// TestNotebookRewriteEscaped: a compact notebook whose source is one
// escaped string keeps that form when a cell is rewritten.
func TestNotebookRewriteEscaped(t *testing.T) {
	dir := notebookDir(t)
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	path := filepath.Join(dir, "escaped.ipynb")
	plan, err := s.Rewrite(context.Background(), search.Query{Pattern: "print($$$A)", Language: "python", Paths: []string{path}}, "show($$$A)")
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Changes) != 1 {
		t.Fatalf("plan changes %d files", len(plan.Changes))
	}
	want := `{"cells":[{"cell_type":"code","execution_count":null,"metadata":{},"outputs":[],"source":"café = \"caf\\u00e9\"\nshow(café, \"\\\\\")\n"}],"metadata":{},"nbformat":4,"nbformat_minor":4}`
	if got := string(plan.Changes[0].New); got != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", got, want)
	}
}

// withoutSource is notebook cell i's JSON text without its source.
func withoutSource(t *testing.T, nb *ipynb.Notebook, i int) string {
	t.Helper()
	raw, err := nb.SetSource(i, "")
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestNotebookRule: a rule finds its matches in a notebook's cells as a
// pattern does.
func TestNotebookRule(t *testing.T) {
	dir := notebookDir(t)
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	rule := map[string]any{"pattern": "print($$$A)", "inside": map[string]any{"kind": "for_statement", "stopBy": "end"}}
	res, err := s.Search(context.Background(), search.Query{Rule: rule, Language: "python", Paths: []string{filepath.Join(dir, "magics.ipynb")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 1 || cellWhere(res.Matches[0]) != "magics.ipynb[cell 3 id=timed]:6:5-6:21 print(n.upper())" {
		t.Errorf("rule matches: %v", res.Matches)
	}
}

// TestNotebookOps: ops rewrite a notebook's cells as one change; two ops
// that overlap in a cell are refused, naming the cell and its line.
func TestNotebookOps(t *testing.T) {
	dir := notebookDir(t)
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	path := filepath.Join(dir, "magics.ipynb")
	q := func(pattern string) search.Query {
		return search.Query{Pattern: pattern, Language: "python", Paths: []string{path}}
	}
	plan, err := s.RewriteOps(context.Background(), []search.Op{
		{Query: q("print($$$A)"), Rewrite: "log($$$A)", Name: "ops[0]"},
		{Query: q("$N.upper()"), Rewrite: "$N.title()", Name: "ops[1]"},
	})
	if err == nil {
		t.Fatalf("overlapping ops staged: %s", plan.Diff(0))
	}
	var oe *search.OverlapError
	if !errors.As(err, &oe) || oe.Path != path+"[cell 3 id=timed]" || oe.Line != 6 {
		t.Errorf("overlapping ops: %v", err)
	}
	plan, err = s.RewriteOps(context.Background(), []search.Op{
		{Query: q("print($$$A)"), Rewrite: "log($$$A)", Name: "ops[0]"},
		{Query: q("import $M"), Rewrite: "import $M  # noqa", Name: "ops[1]"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Changes) != 1 || plan.Replacements != 6 || len(plan.Changes[0].Cells) != 4 {
		t.Fatalf("ops plan: %d changes, %d replacements:\n%s", len(plan.Changes), plan.Replacements, plan.Diff(0))
	}
	nb := testenv.ParseNotebook(t, plan.Changes[0].New)
	if src := nb.Cells[1].Source; src != "%matplotlib inline\nimport numpy as np  # noqa\nimport pandas as pd  # noqa" {
		t.Errorf("cell 1 after the ops: %q", src)
	}
	if src := nb.Cells[2].Source; !strings.HasSuffix(src, "\nlog(len(files))") {
		t.Errorf("cell 2 after the ops: %q", src)
	}
}

// TestNotebookScan: a scan runs Python rules on a notebook's code cells,
// its findings placed by cell and sorted by cell; with Fix the plan
// rewrites the cells' sources; the R notebook, with no rule of its
// language, is not read for them; the Maxima one is skipped, named.
func TestNotebookScan(t *testing.T) {
	dir := notebookDir(t)
	p := parser(t)
	res := scanFix(t, p, `id: no-print
language: python
rule: {pattern: "print($$$A)"}
fix: log($$$A)
`, dir)
	var got []string
	for _, f := range res.Findings {
		got = append(got, cellWhere(f.Match))
	}
	if len(got) != 6 || got[1] != "magics.ipynb[cell 2 id=shell]:3:1-3:18 print(len(files))" || got[4] != "magics.ipynb[cell 5 id=frame]:3:1-3:27 print(df[\"Größe\"].sum())" {
		t.Errorf("findings:\n%s", strings.Join(got, "\n"))
	}
	if res.Skipped.Notebooks != 2 {
		t.Errorf("notebooks skipped %d (%v), want 2", res.Skipped.Notebooks, res.Skipped.NotebooksNamed)
	}
	var nb *search.FileChange
	for i, c := range res.Plan.Changes {
		if filepath.Base(c.Path) == "magics.ipynb" {
			nb = &res.Plan.Changes[i]
		}
	}
	if len(res.Plan.Changes) != 3 || nb == nil || len(nb.Cells) != 3 || nb.Replacements != 4 {
		t.Fatalf("fix plan:\n%s", res.Plan.Diff(0))
	}
	after := testenv.ParseNotebook(t, nb.New)
	if src := after.Cells[3].Source; !strings.Contains(src, "\n    log(n.upper())") || !strings.HasPrefix(src, "%%time\n") {
		t.Errorf("cell 3 after the fixes: %q", src)
	}
}

// TestNotebookInferred: a directory of notebooks alone is searched in
// Python when no language is given.
func TestNotebookInferred(t *testing.T) {
	nb, err := os.ReadFile("../testdata/notebook/magics-and-unicode.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	dir := writeFiles(t, map[string]string{"a/m.ipynb": string(nb), "README.md": "# notes\n"})
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	res, err := s.Search(context.Background(), search.Query{Pattern: "$X.upper()", Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 1 || cellWhere(res.Matches[0]) != "m.ipynb[cell 3 id=timed]:6:11-6:20 n.upper()" {
		t.Errorf("inferred search: %v (%s)", res.Matches, res.Summary())
	}
}

// TestNotebookFixKeepsMagics: a rewrite or a rule's fix whose capture
// spans a magic line keeps the line as written (it is parsed as a
// comment): the cell is rewritten as a Python file whose line is that
// comment is, the comment's "#" back to "%".
func TestNotebookFixKeepsMagics(t *testing.T) {
	nb := `{"cells":[{"cell_type":"code","execution_count":null,"metadata":{},"outputs":[],"source":"def f():\n    %time g()\n    return 1\n"}],"metadata":{},"nbformat":4,"nbformat_minor":4}`
	dir := writeFiles(t, map[string]string{"f.ipynb": nb, "f.py": "def f():\n    #time g()\n    return 1\n"})
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	for _, q := range []search.Query{
		{Pattern: "def f(): $$$B", Language: "python"},
		{Rule: map[string]any{"pattern": "def f(): $$$B"}, Language: "python"},
	} {
		q.Paths = []string{dir}
		plan, err := s.Rewrite(context.Background(), q, "def h():\n    $$$B")
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Changes) != 2 || len(plan.Changes[0].Cells) != 1 {
			t.Fatalf("plan: %+v", plan.Changes)
		}
		py := strings.Replace(string(plan.Changes[1].New), "#time", "%time", 1)
		if got := plan.Changes[0].Cells[0].New; got != py || !strings.Contains(got, "%time g()") {
			t.Errorf("rule %v: cell rewritten to %q, want %q", q.Rule != nil, got, py)
		}
	}
}

// TestNotebookPandas: on the pinned public notebook (nbformat 4.4, no cell
// ids) a search places matches by cell index (np.random.default_rng in
// cell 4 is no np.$F call, as in a Python file), and a rewrite gives a
// notebook nbformat validates, its other cells and outputs untouched.
func TestNotebookPandas(t *testing.T) {
	data, err := os.ReadFile("../testdata/notebook/operations-in-pandas.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	dir := writeFiles(t, map[string]string{"p.ipynb": string(data)})
	path := filepath.Join(dir, "p.ipynb")
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	q := search.Query{Pattern: "np.$F($$$A)", Language: "python", Paths: []string{path}}
	res, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	got := cellWheres(res)
	want := []string{
		"p.ipynb[cell 7]:1:1-1:12 np.exp(ser)",
		"p.ipynb[cell 9]:1:1-1:23 np.sin(df * np.pi / 4)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("matches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	plan, err := s.Rewrite(context.Background(), q, "numpy.$F($$$A)")
	if err != nil {
		t.Fatal(err)
	}
	after := acceptPlan(t, dir, path, plan)
	testenv.ValidateNotebook(t, path)
	changed, nb := testenv.ChangedCells(t, data, after)
	if fmt.Sprint(changed) != "[7 9]" || nb.Cells[9].Source != "numpy.sin(df * np.pi / 4)" || len(nb.Cells[9].Outputs) != 1 {
		t.Errorf("cells %v changed; cell 9: %q with %d outputs", changed, nb.Cells[9].Source, len(nb.Cells[9].Outputs))
	}
}
