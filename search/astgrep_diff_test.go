package search_test

import "context"
import "encoding/json"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "sort"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/format"

// The differential test runs the pinned ast-grep (scripts/npm/package.json,
// @ast-grep/cli 0.51.1) on every golden search case and compares match ranges
// and captures with ours. Cases may differ only where the difference is
// documented: in the case's "astgrep: differs: WHY" line and in
// matcher/README.md ("Differences from ast-grep"). A documented difference
// that no longer shows fails the test, so the list stays true.

type agMatch struct {
	Text  string `json:"text"`
	Range struct {
		ByteOffset struct{ Start, End int } `json:"byteOffset"`
	} `json:"range"`
	MetaVariables struct {
		Single map[string]struct {
			Text string `json:"text"`
		} `json:"single"`
		Multi map[string][]struct {
			Range struct {
				ByteOffset struct{ Start, End int } `json:"byteOffset"`
			} `json:"range"`
		} `json:"multi"`
	} `json:"metaVariables"`
}

// canon renders a match set as comparable lines: range and captures.
func canonAstGrep(src []byte, ms []agMatch) []string {
	var out []string
	for _, m := range ms {
		s := fmt.Sprintf("%d-%d", m.Range.ByteOffset.Start, m.Range.ByteOffset.End)
		var caps []string
		for name, c := range m.MetaVariables.Single {
			caps = append(caps, fmt.Sprintf("$%s=%q", name, c.Text))
		}
		for name, parts := range m.MetaVariables.Multi {
			text := ""
			if len(parts) > 0 {
				text = string(src[parts[0].Range.ByteOffset.Start:parts[len(parts)-1].Range.ByteOffset.End])
			}
			caps = append(caps, fmt.Sprintf("$$$%s=%q", name, text))
		}
		sort.Strings(caps)
		out = append(out, s+" "+strings.Join(caps, " "))
	}
	sort.Strings(out)
	return out
}

func canonOurs(ms []search.Match) []string {
	var out []string
	for _, m := range ms {
		s := fmt.Sprintf("%d-%d", m.Span.StartByte, m.Span.EndByte)
		var caps []string
		for _, b := range m.Bindings {
			sig := "$"
			if b.Multi {
				sig = "$$$"
			}
			caps = append(caps, fmt.Sprintf("%s%s=%q", sig, b.Name, b.Text))
		}
		sort.Strings(caps)
		out = append(out, s+" "+strings.Join(caps, " "))
	}
	sort.Strings(out)
	return out
}

// pinnedAstGrep returns the ast-grep binary, failing unless it is the
// pinned 0.51.1 the differential tests compare with.
func pinnedAstGrep(t *testing.T) string {
	t.Helper()
	bin := testenv.RequireBinary(t, "ast-grep")
	if out, err := exec.Command(bin, "--version").Output(); err != nil || !strings.Contains(string(out), "0.51.1") {
		t.Fatalf("ast-grep --version = %q, %v; want the pinned 0.51.1 (scripts/install-deps.sh)", out, err)
	}
	return bin
}

// agCases returns the golden cases compared with ast-grep: those with a
// rewrite, or those without, that are neither skipped for ast-grep nor
// expected to fail.
func agCases(t *testing.T, rewrites bool) []*goldenCase {
	t.Helper()
	var cs []*goldenCase
	for _, c := range loadCases(t) {
		if c.hasRewrite != rewrites || strings.HasPrefix(c.astgrep, "skip:") {
			continue
		}
		if _, isErr := c.section("error"); isErr {
			continue
		}
		cs = append(cs, c)
	}
	return cs
}

// runAgCase writes c's input to a new directory, runs ast-grep's run
// command with c's pattern, args and --json=compact on it, and returns the
// input's path and ast-grep's output. ok is false when ast-grep failed on
// a case that documents a difference from it; any other failure fails t.
func runAgCase(t *testing.T, bin string, c *goldenCase, args ...string) (file string, out []byte, ok bool) {
	t.Helper()
	file = filepath.Join(t.TempDir(), c.inputName)
	if err := os.WriteFile(file, c.input, 0o644); err != nil {
		t.Fatal(err)
	}
	args = append(append(append([]string{"run"}, c.astgrepArgs()...), args...), "-l", agLang(c.lang), "--json=compact", file)
	out, err := exec.Command(bin, args...).Output()
	if ee, isExit := err.(*exec.ExitError); err != nil && (!isExit || ee.ExitCode() != 1) {
		if !strings.HasPrefix(c.astgrep, "differs:") {
			t.Fatalf("ast-grep: %v\n%s", err, out)
		}
		return file, out, false
	}
	return file, out, true
}

func TestDifferentialAstGrep(t *testing.T) {
	bin := pinnedAstGrep(t)
	p := parser(t)
	compared, differs := 0, 0
	for _, c := range agCases(t, false) {
		t.Run(c.name, func(t *testing.T) {
			file, out, ok := runAgCase(t, bin, c)
			documented := strings.HasPrefix(c.astgrep, "differs:")
			agFailed := !ok // a pattern ast-grep cannot parse: a documented difference
			var ag []agMatch
			if !agFailed && len(strings.TrimSpace(string(out))) > 0 {
				if err := json.Unmarshal(out, &ag); err != nil {
					t.Fatalf("ast-grep JSON: %v\n%s", err, out)
				}
			}
			s := search.NewSearcher(p, search.Config{})
			res, err := s.Search(context.Background(), search.Query{Pattern: c.pattern, Selector: c.selector, Language: c.lang, Paths: []string{file}})
			if err != nil {
				t.Fatal(err)
			}
			theirs, ours := canonAstGrep(c.input, ag), canonOurs(res.Matches)
			if agFailed {
				theirs = []string{"(ast-grep: pattern error)"}
			}
			same := strings.Join(theirs, "\n") == strings.Join(ours, "\n")
			compared++
			switch {
			case documented && same:
				t.Errorf("documented difference (%s) no longer shows: remove the astgrep line from %s and matcher/README.md", c.astgrep, c.path)
			case documented:
				differs++
				t.Logf("documented difference: %s\nast-grep: %q\ntether:   %q", c.astgrep, theirs, ours)
			case !same:
				t.Errorf("differs from ast-grep 0.51.1 (fix it, or document it with an \"astgrep: differs: WHY\" line and in matcher/README.md)\nast-grep: %q\ntether:   %q", theirs, ours)
			default:
				compareJSON(t, out, res.Matches)
			}
		})
	}
	t.Logf("compared %d cases with ast-grep, %d documented differences", compared, differs)
}

// compareJSON checks that `tether ast-grep --json` prints, field for field, what
// ast-grep printed for the same matches (text, ranges, lines, charCount,
// language, metaVariables).
func compareJSON(t *testing.T, agOut []byte, ms []search.Match) {
	t.Helper()
	var theirs []map[string]any
	if len(strings.TrimSpace(string(agOut))) > 0 {
		if err := json.Unmarshal(agOut, &theirs); err != nil {
			t.Fatalf("ast-grep JSON: %v", err)
		}
	}
	data, err := json.Marshal(format.JSON(ms))
	if err != nil {
		t.Fatal(err)
	}
	var ours []map[string]any
	if err := json.Unmarshal(data, &ours); err != nil {
		t.Fatal(err)
	}
	key := func(m map[string]any) string {
		b, _ := json.Marshal(m["range"])
		return string(b)
	}
	for _, list := range [][]map[string]any{theirs, ours} {
		sort.SliceStable(list, func(i, j int) bool { return key(list[i]) < key(list[j]) })
	}
	a, _ := json.MarshalIndent(theirs, "", " ")
	b, _ := json.MarshalIndent(ours, "", " ")
	if string(a) != string(b) {
		t.Errorf("--json differs from ast-grep 0.51.1's:\nast-grep: %s\ntether:   %s", a, b)
	}
}

// TestDifferentialAstGrepRewrite compares, for every golden rewrite case, the
// replacement of each match with the "replacement" field ast-grep prints for
// the same pattern and template.
func TestDifferentialAstGrepRewrite(t *testing.T) {
	bin := testenv.RequireBinary(t, "ast-grep")
	p := parser(t)
	for _, c := range agCases(t, true) {
		t.Run(c.name, func(t *testing.T) {
			file, out, ok := runAgCase(t, bin, c, "-r", c.rewrite)
			if !ok {
				return
			}
			documented := strings.HasPrefix(c.astgrep, "differs:")
			var ag []struct {
				Range struct {
					ByteOffset struct{ Start, End int } `json:"byteOffset"`
				} `json:"range"`
				Replacement string `json:"replacement"`
			}
			if len(strings.TrimSpace(string(out))) > 0 {
				if err := json.Unmarshal(out, &ag); err != nil {
					t.Fatalf("ast-grep JSON: %v\n%s", err, out)
				}
			}
			theirs := map[string]string{}
			for _, m := range ag {
				theirs[fmt.Sprintf("%d-%d", m.Range.ByteOffset.Start, m.Range.ByteOffset.End)] = m.Replacement
			}
			plan, err := search.NewSearcher(p, search.Config{}).Rewrite(context.Background(),
				search.Query{Pattern: c.pattern, Selector: c.selector, Language: c.lang, Paths: []string{file}}, c.rewrite)
			if err != nil {
				t.Fatal(err)
			}
			var diffs []string
			for _, m := range plan.Result.Matches {
				if m.Replacement == nil {
					continue // an inner match the outermost one replaces
				}
				key := fmt.Sprintf("%d-%d", m.Span.StartByte, m.Span.EndByte)
				if r, ok := theirs[key]; !ok || r != *m.Replacement {
					diffs = append(diffs, fmt.Sprintf("%s: ast-grep %q, tether %q", key, r, *m.Replacement))
				}
			}
			switch {
			case documented && len(diffs) == 0:
				t.Errorf("documented difference (%s) no longer shows: remove the astgrep line from %s and matcher/README.md", c.astgrep, c.path)
			case !documented && len(diffs) > 0:
				t.Errorf("replacement differs from ast-grep 0.51.1's (fix it, or document it with an \"astgrep: differs: WHY\" line and in matcher/README.md):\n%s", strings.Join(diffs, "\n"))
			}
		})
	}
}

// agLang is ast-grep's name for a language id where it differs from ours.
func agLang(id string) string {
	if id == "c_sharp" {
		return "csharp"
	}
	return id
}
