package main

import "bytes"
import "encoding/json"
import "os"
import "path/filepath"
import "strings"
import "testing"

func runScanCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(append([]string{"scan"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// TestScanCLI drives `tether scan` over the project of the rule corpus
// (its sgconfig.yml found from the working directory), with -r and with
// --inline-rules, and checks the exit codes and errors.
func TestScanCLI(t *testing.T) {
	proj, err := filepath.Abs(filepath.Join("..", "..", "testdata", "rules", "project"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(proj)
	code, out, errs := runScanCLI(t, "--json=compact")
	var fs []map[string]any
	if err := json.Unmarshal([]byte(out), &fs); err != nil {
		t.Fatalf("--json: %v\n%s%s", err, out, errs)
	}
	// no-println has severity error: exit 1, as ast-grep
	if code != 1 || len(fs) != 6 {
		t.Fatalf("scan = %d with %d findings, want 1 with 6\n%s", code, len(fs), errs)
	}
	code, out, _ = runScanCLI(t, "--filter", "^py-fix$", "src")
	if code != 0 || !strings.Contains(out, "hint[py-fix]") || !strings.Contains(out, "fix: x is None") {
		t.Errorf("--filter: %d\n%s", code, out)
	}

	// ast-grep's own spelling: tether ast-grep scan
	var out2, errb2 bytes.Buffer
	if code := dispatch([]string{"ast-grep", "scan", "--filter", "^py-fix$", "src"}, &out2, &errb2); code != 0 || !strings.Contains(out2.String(), "hint[py-fix]") {
		t.Errorf("ast-grep scan: %d\n%s%s", code, out2.String(), errb2.String())
	}

	dir := t.TempDir()
	rules := filepath.Join(dir, "r.yml")
	if err := os.WriteFile(rules, []byte("id: a\nlanguage: go\nrule: {kind: call_expression, has: {field: function, regex: '^println$'}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runScanCLI(t, "-r", rules, "src/main.go")
	if code != 0 || strings.Count(out, "hint[a]") != 1 {
		t.Errorf("-r: %d\n%s", code, out)
	}
	code, _, errs = runScanCLI(t, "--inline-rules", "id: a\nlanguage: go\nrule: {kind: call_expression, hass: {kind: identifier}}", "src")
	if code != exitInvalid || !strings.Contains(errs, "rule.hass: unknown key") {
		t.Errorf("a bad rule: %d %q", code, errs)
	}
	// -U applies the fixes: two overlapping findings, the outer one wins
	src := filepath.Join(dir, "a.py")
	if err := os.WriteFile(src, []byte("if x == None:\n    y = (a == None) == None\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runScanCLI(t, "--inline-rules", "id: none\nlanguage: python\nrule: {pattern: $X == None}\nfix: $X is None\n", "-U", src)
	got, _ := os.ReadFile(src)
	if code != 0 || string(got) != "if x is None:\n    y = (a == None) is None\n" || !strings.Contains(errs, "Applied 2 changes") {
		t.Errorf("-U: %d %q\n%s", code, errs, got)
	}
	t.Chdir(dir)
	code, _, errs = runScanCLI(t)
	if code != 2 || !strings.Contains(errs, "no sgconfig.yml") {
		t.Errorf("no project: %d %q", code, errs)
	}
}
