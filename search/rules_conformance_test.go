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

import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/format"

// The rule conformance corpus: testdata/rules/LANG/rules.yml holds rules
// (ast-grep's documented examples and catalog rules, and some for each
// operator) and src/ the code they run over; astgrep.json is what the
// pinned ast-grep 0.51.1 printed for `ast-grep scan --inline-rules
// "$(cat rules.yml)" --json=compact src` there, recorded by
// scripts/record-rule-conformance.sh, so this test needs no ast-grep. A
// rule whose metadata has "differs: WHY" is a documented difference
// (matcher/README.md, "Rules"): its findings must differ, so the list
// stays true.

// agFinding is what the comparison reads of ast-grep's scan JSON.
type agFinding struct {
	RuleID  string `json:"ruleId"`
	File    string `json:"file"`
	Message string `json:"message"`
	Range   struct {
		ByteOffset struct{ Start, End int } `json:"byteOffset"`
	} `json:"range"`
	Replacement        *string `json:"replacement"`
	ReplacementOffsets *struct {
		Start, End int
	} `json:"replacementOffsets"`
	MetaVariables *struct {
		Single map[string]struct {
			Text string `json:"text"`
		} `json:"single"`
		Multi map[string][]struct {
			Text string `json:"text"`
		} `json:"multi"`
		Transformed map[string]string `json:"transformed"`
	} `json:"metaVariables"`
	Labels []struct {
		Text    string  `json:"text"`
		Style   string  `json:"style"`
		Message *string `json:"message"`
		Range   struct {
			ByteOffset struct{ Start, End int } `json:"byteOffset"`
		} `json:"range"`
	} `json:"labels"`
}

// canonFinding renders one finding as a comparable line: place, captures,
// transformed values, message and fix.
func canonFinding(f agFinding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d-%d", filepath.ToSlash(f.File), f.Range.ByteOffset.Start, f.Range.ByteOffset.End)
	if mv := f.MetaVariables; mv != nil {
		var caps []string
		for k, v := range mv.Single {
			caps = append(caps, fmt.Sprintf("$%s=%q", k, v.Text))
		}
		for k, v := range mv.Multi {
			var parts []string
			for _, p := range v {
				parts = append(parts, p.Text)
			}
			caps = append(caps, fmt.Sprintf("$$$%s=%q", k, strings.Join(parts, "·")))
		}
		for k, v := range mv.Transformed {
			caps = append(caps, fmt.Sprintf("T.%s=%q", k, v))
		}
		sort.Strings(caps)
		if len(caps) > 0 {
			b.WriteString(" " + strings.Join(caps, " "))
		}
	}
	if f.Message != "" {
		fmt.Fprintf(&b, " message=%q", f.Message)
	}
	// labels in ast-grep's order is its hash order: sorted
	var labels []string
	for _, l := range f.Labels {
		s := fmt.Sprintf("%s@%d-%d", l.Style, l.Range.ByteOffset.Start, l.Range.ByteOffset.End)
		if l.Message != nil {
			s += fmt.Sprintf("%q", *l.Message)
		}
		labels = append(labels, s)
	}
	sort.Strings(labels)
	fmt.Fprintf(&b, " labels=%s", strings.Join(labels, ","))
	if f.Replacement != nil {
		fmt.Fprintf(&b, " fix=%q", *f.Replacement)
		if o := f.ReplacementOffsets; o != nil {
			fmt.Fprintf(&b, "@%d-%d", o.Start, o.End)
		}
	}
	return b.String()
}

// canonByRule groups canonical findings by rule id, each list sorted.
func canonByRule(fs []agFinding) map[string][]string {
	out := map[string][]string{}
	for _, f := range fs {
		out[f.RuleID] = append(out[f.RuleID], canonFinding(f))
	}
	for _, l := range out {
		sort.Strings(l)
	}
	return out
}

// ourFindings runs a scan and reads its findings back through the same
// JSON shape ast-grep's are read in.
func ourFindings(t *testing.T, res *search.ScanResult, dir string) []agFinding {
	t.Helper()
	data, err := json.Marshal(format.FindingsJSON(res.Findings))
	if err != nil {
		t.Fatal(err)
	}
	var out []agFinding
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	for i := range out {
		rel, err := filepath.Rel(dir, out[i].File)
		if err != nil {
			t.Fatal(err)
		}
		out[i].File = rel
	}
	return out
}

// ruleCorpus is one corpus under testdata/rules: its directory, its
// rules.yml and that file's text.
type ruleCorpus struct {
	dir, rulesFile string
	text           []byte
}

// ruleCorpora reads each corpus under testdata/rules.
func ruleCorpora(t *testing.T) []ruleCorpus {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "rules", "*", "rules.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no rule corpus under testdata/rules: %v", err)
	}
	var out []ruleCorpus
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ruleCorpus{dir: filepath.Dir(f), rulesFile: f, text: text})
	}
	return out
}

func TestRuleConformance(t *testing.T) {
	p := parser(t)
	total, differs, langs := 0, 0, 0
	for _, c := range ruleCorpora(t) {
		dir, rulesFile, text := c.dir, c.rulesFile, c.text
		t.Run(filepath.Base(dir), func(t *testing.T) {
			docs, err := search.ParseRuleDocs(text, rulesFile)
			if err != nil {
				t.Fatal(err)
			}
			rules, err := search.CompileRules(context.Background(), p, text, rulesFile, nil)
			if err != nil {
				t.Fatal(err)
			}
			recorded, err := os.ReadFile(filepath.Join(dir, "astgrep.json"))
			if err != nil {
				t.Fatalf("%v: run scripts/record-rule-conformance.sh", err)
			}
			var ag []agFinding
			if err := json.Unmarshal(recorded, &ag); err != nil {
				t.Fatalf("astgrep.json: %v", err)
			}
			s := search.NewSearcher(p, search.Config{MaxText: -1})
			res, err := s.Scan(context.Background(), search.ScanQuery{Rules: rules, Paths: []string{filepath.Join(dir, "src")}, Base: dir})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Errors) > 0 {
				t.Fatalf("scan errors: %v", res.Errors)
			}
			theirs, ours := canonByRule(ag), canonByRule(ourFindings(t, res, dir))
			langs++
			for _, d := range docs {
				id, _ := d["id"].(string)
				why := ""
				if md, ok := d["metadata"].(map[string]any); ok {
					why, _ = md["differs"].(string)
				}
				total++
				a, b := strings.Join(theirs[id], "\n"), strings.Join(ours[id], "\n")
				switch {
				case why != "" && a == b:
					t.Errorf("%s: documented difference (%s) no longer shows: drop its metadata.differs and its line in matcher/README.md", id, why)
				case why != "":
					differs++
				case a != b:
					t.Errorf("%s differs from ast-grep 0.51.1 (fix it, or document it with metadata: {differs: WHY} and in matcher/README.md)\nast-grep:\n  %s\ntether:\n  %s", id, strings.Join(theirs[id], "\n  "), strings.Join(ours[id], "\n  "))
				}
			}
		})
	}
	t.Logf("compared %d rules in %d languages with ast-grep 0.51.1; %d documented differences", total, langs, differs)
}

// TestRuleCorpusAsPeer runs the pinned ast-grep over each rule corpus
// (testdata/rules/LANG) as scripts/record-rule-conformance.sh does and
// checks that astgrep.json is what it prints now, rule by rule: with
// TestRuleConformance, tether is compared with the live ast-grep, and a
// corpus edited without recording again fails here.
func TestRuleCorpusAsPeer(t *testing.T) {
	bin := pinnedAstGrep(t)
	for _, c := range ruleCorpora(t) {
		dir, text := c.dir, c.text
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cmd := exec.Command(bin, "scan", "--inline-rules", string(text), "--json=compact", "src")
			cmd.Dir = dir
			out, err := cmd.Output()
			if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
				t.Fatalf("ast-grep scan: %v", err)
			}
			var live, recorded []agFinding
			if err := json.Unmarshal(out, &live); err != nil {
				t.Fatalf("ast-grep's JSON: %v", err)
			}
			data, err := os.ReadFile(filepath.Join(dir, "astgrep.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &recorded); err != nil {
				t.Fatal(err)
			}
			now, then := canonByRule(live), canonByRule(recorded)
			for id, fs := range now {
				if a, b := strings.Join(fs, "\n"), strings.Join(then[id], "\n"); a != b {
					t.Errorf("%s: ast-grep now finds\n  %s\nastgrep.json has\n  %s\nrun scripts/record-rule-conformance.sh %s", id, strings.ReplaceAll(a, "\n", "\n  "), strings.ReplaceAll(b, "\n", "\n  "), filepath.ToSlash(dir))
				}
			}
			for id := range then {
				if _, ok := now[id]; !ok {
					t.Errorf("%s: astgrep.json has findings ast-grep no longer prints: run scripts/record-rule-conformance.sh", id)
				}
			}
		})
	}
}
