package enginebench

import "strings"
import "testing"
import "time"

func TestReadSuite(t *testing.T) {
	s, err := ReadSuite(strings.NewReader("# comment\n\nlanguage: python\nprint($A)\nif $C:\\n    $$$\n"), "f", "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Language != "python" || len(s.Patterns) != 2 || s.Patterns[1] != "if $C:\n    $$$" {
		t.Fatalf("%+v", s)
	}
	if s, _ := ReadSuite(strings.NewReader("language: python\nx\n"), "f", "go"); s.Language != "go" {
		t.Errorf("-l did not override the file's language: %q", s.Language)
	}
	for in, want := range map[string]string{
		"# only a comment\n":                 "no patterns: write one pattern a line",
		"$X.Lock()\n":                        "no language: add a line `language: go`",
		strings.Repeat("x\n", maxPatterns+1): "more than 200 patterns",
	} {
		if _, err := ReadSuite(strings.NewReader(in), "f", ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadSuite(%.20q): %v, want %q", in, err, want)
		}
	}
}

func TestBuiltinSuitesAreCopies(t *testing.T) {
	for _, n := range BuiltinSuites() {
		s, ok := BuiltinSuite(n)
		if !ok || s.Language == "" || len(s.Patterns) < 5 {
			t.Fatalf("suite %s: %+v", n, s)
		}
		s.Patterns[0] = "changed"
		if again, _ := BuiltinSuite(n); again.Patterns[0] == "changed" {
			t.Fatalf("suite %s shares its patterns with its callers", n)
		}
	}
}

func TestTranslations(t *testing.T) {
	for in, want := range map[string]string{
		"fmt.Errorf($$$ARGS)":        "fmt.Errorf(...)",
		"if $C { $$$ }":              "if $C { ... }",
		"$_ = $X":                    "$_X = $X",
		"for $I := range $X { $$$ }": "for $I := range $X { ... }",
	} {
		if got, ok := SemgrepPattern(in); !ok || got != want {
			t.Errorf("SemgrepPattern(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"fmt.Errorf($$$ARGS)": "fmt.Errorf(:[ARGS])",
		"$X.Lock()":           ":[X].Lock()",
		"f($$$, $_)":          "f(:[_anon1], :[_anon2])",
	} {
		if got, ok := CombyPattern(in); !ok || got != want {
			t.Errorf("CombyPattern(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCounters(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // longer than the reader's buffer
	n, err := countLines(strings.NewReader("{}\n\n" + long + "\n{}"))
	if err != nil || n != 3 {
		t.Errorf("countLines = %d, %v; want 3", n, err)
	}
	n, err = countJSONField("matches")(strings.NewReader(`{"uri":"a","matches":[1,2]}` + "\n" + `{"uri":"b","matches":[3]}` + "\n"))
	if err != nil || n != 3 {
		t.Errorf("comby's lines = %d, %v; want 3", n, err)
	}
	n, err = countJSONField("results")(strings.NewReader(`{"results":[{},{}],"errors":[]}`))
	if err != nil || n != 2 {
		t.Errorf("semgrep's document = %d, %v; want 2", n, err)
	}
	if _, err := countJSONField("results")(strings.NewReader(`{"results":7}`)); err == nil {
		t.Error("a results field that is no array was counted")
	}
}

func TestMedianAndDiffer(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	r := &Report{Engines: []Engine{{Name: "a", Family: "tether"}, {Name: "b", Family: "ast-grep"}}, Rows: []Row{{
		Pattern: "p",
		Cells: []Cell{
			{Engine: "a", Samples: []Sample{{Wall: ms(30), CPU: ms(5), RSS: 9, Matches: 4}, {Wall: ms(10), CPU: ms(7), RSS: 3, Matches: 4}, {Wall: ms(20), CPU: ms(6), RSS: 5, Matches: 4}}},
			{Engine: "b", Samples: []Sample{{Wall: ms(40), CPU: ms(8), RSS: 2, Matches: 3}, {Wall: ms(60), CPU: ms(8), RSS: 2, Matches: 5}}},
		},
	}}}
	r.summarize()
	a, b := r.Rows[0].Cells[0], r.Rows[0].Cells[1]
	if *a.Median != (Sample{Wall: ms(20), CPU: ms(6), RSS: 5, Matches: 4}) || a.Unstable {
		t.Errorf("a's median %+v (unstable %v)", *a.Median, a.Unstable)
	}
	if b.Median.Wall != ms(50) || b.Median.Matches != 5 || !b.Unstable || !r.Rows[0].Differ {
		t.Errorf("b's median %+v, unstable %v, differ %v", *b.Median, b.Unstable, r.Rows[0].Differ)
	}
	table := r.Table()
	for _, want := range []string{"| `p` | 20 ms (0.40x) | 50 ms (1.00x) |", "| `p` | 4 | 5 (changed between rounds) |", "Match counts differ between engines on `p`"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}
