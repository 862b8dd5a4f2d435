package search_test

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/matcher/rule"
import "github.com/tetherhq/tether/search"

// TestRuleErrors compiles each rule of testdata/rules/errors/cases.yml
// alone and checks that tether refuses exactly the rules the pinned
// ast-grep refused (astgrep.json, recorded by
// scripts/record-rule-conformance.sh), with an error that wraps
// rule.ErrInvalid and names the document; a rule with metadata.differs is
// a documented difference (matcher/README.md, Rules).
func TestRuleErrors(t *testing.T) {
	p := parser(t)
	dir := filepath.Join("..", "testdata", "rules", "errors")
	text, err := os.ReadFile(filepath.Join(dir, "cases.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var recorded map[string]struct {
		Refused bool   `json:"refused"`
		Cause   string `json:"cause"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "astgrep.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &recorded); err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(text), "\n---\n")
	if len(docs) != len(recorded) {
		t.Fatalf("%d rules in cases.yml, %d recorded: run scripts/record-rule-conformance.sh", len(docs), len(recorded))
	}
	for i, doc := range docs {
		parsed, err := search.ParseRuleDocs([]byte(doc), "cases.yml")
		if err != nil || len(parsed) != 1 {
			t.Fatalf("document %d: %v", i+1, err)
		}
		id, _ := parsed[0]["id"].(string)
		why := ""
		if md, ok := parsed[0]["metadata"].(map[string]any); ok {
			why, _ = md["differs"].(string)
		}
		t.Run(id, func(t *testing.T) {
			ag, ok := recorded[id]
			if !ok {
				t.Fatalf("no recorded answer for %s", id)
			}
			src := fmt.Sprintf("cases.yml (%s)", id)
			_, err := search.CompileRules(context.Background(), p, []byte(doc), src, nil)
			refused := err != nil
			switch {
			case why != "" && refused == ag.Refused:
				t.Errorf("documented difference (%s) no longer shows", why)
			case why == "" && refused != ag.Refused:
				t.Errorf("tether refused = %v (%v); ast-grep 0.51.1 refused = %v (%s)", refused, err, ag.Refused, ag.Cause)
			}
			if refused && (!errors.Is(err, rule.ErrInvalid) || !strings.Contains(err.Error(), src)) {
				t.Errorf("error %q should wrap rule.ErrInvalid and name %s", err, src)
			}
			if refused {
				t.Logf("tether: %v\nast-grep: %s", err, ag.Cause)
			}
		})
	}
}
