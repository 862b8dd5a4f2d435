package main

import "bytes"
import "encoding/json"
import "encoding/xml"
import "errors"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/enginebench"
import "github.com/tetherhq/tether/internal/testenv"

// benchCorpus is a small Go project whose matches per pattern of the
// built-in go suite are known: counted by hand below, and checked against
// ast-grep's own answer.
var benchCorpus = map[string]string{
	"a/locks.go": `package a

import "sync"

var mu sync.Mutex

func f() error {
	mu.Lock()
	defer mu.Unlock()
	for i := range []int{1, 2} {
		_ = i
	}
	return nil
}

func g() (*int, error) {
	mu.Lock()
	defer mu.Unlock()
	go func() { f() }()
	return nil, errors.New("x")
}
`,
	"b/loop.go": `package b

func h(xs []int) (*int, error) {
	for _, x := range xs {
		if x > 2 {
			goto done
		}
	}
done:
	go func() { println() }()
	return nil, nil
}
`,
}

// wantBench are benchCorpus's matches for the go suite's patterns.
var wantBench = map[string]int{
	`$X.Lock()`:                  2,
	`defer $X.Unlock()`:          2,
	`for $I := range $X { $$$ }`: 2, // $I stands for the whole list in `for _, x := range`
	`return nil, $E`:             2,
	`go func() { $$$ }()`:        2,
	`goto $L`:                    1,
}

func runTetherBench(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(tetherBin(t), append([]string{"bench"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// TestBenchAgainstAstGrep runs the go suite by every engine over a corpus
// whose answers are known: every engine answers every pattern with the
// known count, the JSON report holds every round and the chart is
// well-formed SVG with a bar per answer.
func TestBenchAgainstAstGrep(t *testing.T) {
	ag := testenv.RequireBinary(t, "ast-grep")
	corpus := workdir(t, benchCorpus)
	out := t.TempDir()
	jsonPath, svgPath := filepath.Join(out, "r.json"), filepath.Join(out, "r.svg")
	code, stdout, stderr := runTetherBench(t, "-suite", "go", "-rounds", "2", "-j", "1", "-ast-grep", ag, "-name", "corpus",
		"-json", jsonPath, "-svg", svgPath, corpus)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var rep enginebench.Report
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range rep.Engines {
		names = append(names, e.Name)
	}
	if want := "tether, empty tier|tether --no-cache|tether, warm tier|tether, one process|ast-grep"; strings.Join(names, "|") != want {
		t.Fatalf("engines %q, want %q", names, want)
	}
	if len(rep.Rows) != len(wantBench) {
		t.Fatalf("%d rows, want %d", len(rep.Rows), len(wantBench))
	}
	for _, row := range rep.Rows {
		want, ok := wantBench[row.Pattern]
		if !ok {
			t.Fatalf("row for %q, which the suite does not hold", row.Pattern)
		}
		for _, c := range row.Cells {
			if c.Median == nil || c.Error != "" {
				t.Errorf("%s on %q: no answer: %s", c.Engine, row.Pattern, c.Error)
				continue
			}
			if c.Median.Matches != want || len(c.Samples) != 2 {
				t.Errorf("%s on %q: %d matches in %d rounds, want %d in 2", c.Engine, row.Pattern, c.Median.Matches, len(c.Samples), want)
			}
			// a pattern's CPU inside the one process can round to nothing
			if c.Median.Wall <= 0 || c.Median.RSS <= 0 || (c.Median.CPU <= 0 && c.Engine != "tether, one process") {
				t.Errorf("%s on %q: a measure is missing: %+v", c.Engine, row.Pattern, *c.Median)
			}
		}
		if row.Differ {
			t.Errorf("%q marked as differing, every engine found %d", row.Pattern, want)
		}
	}
	if rep.Corpus != "corpus" || strings.Contains(stdout, corpus) {
		t.Errorf("the report names the corpus %q (and the table: %v), not -name's", rep.Corpus, strings.Contains(stdout, corpus))
	}
	for _, want := range []string{"Wall time", "CPU time", "Peak RSS", "Matches:", "| `defer $X.Unlock()` |", "Every engine that answered found the same number"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the table lacks %q:\n%s", want, stdout)
		}
	}
	svg, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name
		Rects   []struct {
			Fill string `xml:"fill,attr"`
		} `xml:"rect"`
	}
	if err := xml.Unmarshal(svg, &doc); err != nil || doc.XMLName.Local != "svg" {
		t.Fatalf("the chart is not SVG (%v):\n%s", err, svg)
	}
	// a background, a legend swatch an engine, a bar an answer
	if want := 1 + 5 + 5*len(wantBench); len(doc.Rects) != want {
		t.Errorf("the chart has %d rects, want %d", len(doc.Rects), want)
	}
}

// TestBenchSaysWhoCouldNotAnswer: a pattern an engine cannot read leaves its
// cell without an answer, said in the table, never a count of 0, and the
// exit code is 1.
func TestBenchSaysWhoCouldNotAnswer(t *testing.T) {
	corpus := workdir(t, benchCorpus)
	suite := filepath.Join(t.TempDir(), "suite.txt")
	if err := os.WriteFile(suite, []byte("# two patterns\nlanguage: go\n$X.Lock()\nfunc (((\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runTetherBench(t, "-suite", suite, "-engines", "tether", "-rounds", "1", "-j", "1", corpus)
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "| `$X.Lock()` | 2 | 2 | 2 | 2 |") {
		t.Errorf("the readable pattern's counts are missing:\n%s", stdout)
	}
	if !strings.Contains(stdout, "| `func (((` | no answer | no answer | no answer | no answer |") || !strings.Contains(stdout, "- no answer from tether, empty tier on `func (((`: ") {
		t.Errorf("the table does not say which engines could not answer, and why:\n%s", stdout)
	}
}

// TestBenchBadInput: each mistake is named with what to do instead.
func TestBenchBadInput(t *testing.T) {
	corpus := workdir(t, benchCorpus)
	noLang := filepath.Join(t.TempDir(), "s.txt")
	if err := os.WriteFile(noLang, []byte("$X.Lock()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "give one corpus directory"},
		{[]string{filepath.Join(corpus, "none")}, "is not a directory"},
		{[]string{"-suite", "cobol", corpus}, "neither a built-in suite (go, python, rust, typescript)"},
		{[]string{"-suite", noLang, corpus}, "add a line `language: go` to the file or pass -l"},
		{[]string{"-suite", "go", "-l", "python", corpus}, "the built-in suite go is go: drop -l"},
		{[]string{"-rounds", "0", corpus}, "rounds must be 1 to 50"},
		{[]string{"-engines", "tether,nosuch", corpus}, "-engines: nosuch is not among the engines found"},
	} {
		code, _, stderr := runTetherBench(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("tether bench %q: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
