package format_test

import "bytes"
import "context"
import "encoding/json"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/format"

// TestWriteFindingsJSONStyles: findings are framed in each of ast-grep's
// three JSON styles as matches are (an array over lines, an array on one
// line, one object a line), an empty list prints as ast-grep prints it, and
// an unknown style is refused with the styles there are.
func TestWriteFindingsJSONStyles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.go")
	if err := os.WriteFile(file, []byte("package a\n\nfunc f() {\n\tmu.Lock()\n\tother.Lock()\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rules, err := search.CompileRules(context.Background(), parser(t), []byte("id: lock\nlanguage: go\nmessage: a lock\nrule: {pattern: $M.Lock()}\n"), "rules.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := search.NewSearcher(parser(t), search.Config{})
	res, err := s.Scan(context.Background(), search.ScanQuery{Rules: rules, Paths: []string{file}, Base: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 2 {
		t.Fatalf("got %d findings, want 2", len(res.Findings))
	}
	write := func(fs []search.Finding, style string) string {
		t.Helper()
		var b bytes.Buffer
		if err := format.WriteFindingsJSON(&b, fs, style); err != nil {
			t.Fatalf("WriteFindingsJSON %s: %v", style, err)
		}
		return b.String()
	}
	type finding struct {
		RuleID, Text, Message string
	}
	check := func(style string, got []finding) {
		t.Helper()
		if len(got) != 2 || got[0].Text != "mu.Lock()" || got[1].Text != "other.Lock()" || got[0].RuleID != "lock" || got[0].Message != "a lock" {
			t.Errorf("%s: findings %+v", style, got)
		}
	}
	for _, style := range []string{"pretty", "compact"} {
		out := write(res.Findings, style)
		var got []finding
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v\n%s", style, err, out)
		}
		check(style, got)
		lines := strings.Count(out, "\n")
		if style == "compact" && lines != 1 || style == "pretty" && (lines < 4 || !strings.HasPrefix(out, "[\n{\n")) {
			t.Errorf("%s framing:\n%s", style, out)
		}
	}
	out := write(res.Findings, "stream")
	var got []finding
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var f finding
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("stream line %q: %v", line, err)
		}
		got = append(got, f)
	}
	check("stream", got)

	for style, want := range map[string]string{"pretty": "[]\n", "compact": "[]\n", "stream": ""} {
		if got := write(nil, style); got != want {
			t.Errorf("no findings, %s: %q, want %q", style, got, want)
		}
	}
	var b bytes.Buffer
	if err := format.WriteFindingsJSON(&b, res.Findings, "yaml"); err == nil || !strings.Contains(err.Error(), "use pretty, compact or stream") || b.Len() != 0 {
		t.Errorf("style yaml: err %v, wrote %q", err, b.String())
	}
}
