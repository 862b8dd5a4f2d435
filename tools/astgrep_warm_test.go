package tools_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/tools"
)

// TestAstGrepWarmUp: a run with WarmUp answers ast_grep while its warm-up
// parses the working directory, and its Close stops the warm-up and returns.
func TestAstGrepWarmUp(t *testing.T) {
	dir := t.TempDir()
	for i := range 200 {
		body := fmt.Sprintf("package p\n\nfunc f%d(err error) error {\n\tif err != nil {\n\t\treturn fmt.Errorf(\"f%d: %%w\", err)\n\t}\n\treturn nil\n}\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := tools.NewRun(context.Background(), tools.Config{
		WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), Parser: parseEngine(t), WarmUp: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := call(t, r, "ast_grep", `{"pattern":"fmt.Errorf($$$A)","language":"go","max_results":1}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.AllText(), "1 of 200 matches shown") {
		t.Errorf("ast_grep during the warm-up: %s", res.AllText())
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}
