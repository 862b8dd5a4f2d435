package dap

import "os"
import "path/filepath"
import "strings"
import "testing"

// TestPlanTestsReadsNoOutsideFile: a _test.go file launched from outside
// the project, by its path or through a symbolic link in the project that
// leads out, is not read for its test names (they were shown in the
// session's title); one inside is.
func TestPlanTestsReadsNoOutsideFile(t *testing.T) {
	var delve Adapter
	for _, a := range DefaultAdapters() {
		if a.TestRunner == "go" {
			delve = a
		}
	}
	project, other := t.TempDir(), t.TempDir()
	const src = "package x\n\nimport \"testing\"\n\nfunc TestSecretName(t *testing.T) {}\n"
	for _, p := range []string{filepath.Join(project, "in_test.go"), filepath.Join(other, "out_test.go")} {
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(other, "out_test.go"), filepath.Join(project, "link_test.go")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(other, "out_test.go"), filepath.Join(project, "link_test.go")} {
		tr, err := planTests(delve, project, p, "", nil)
		if err == nil || !strings.Contains(err.Error(), "outside the project") || strings.Contains(err.Error(), "TestSecretName") {
			t.Fatalf("planTests(%s) = %+v, %v: want a refusal that names no test", p, tr, err)
		}
	}
	tr, err := planTests(delve, project, filepath.Join(project, "in_test.go"), "", nil)
	if err != nil || !strings.Contains(tr.title, "TestSecretName") {
		t.Fatalf("planTests inside the project = %+v, %v", tr, err)
	}
}
