package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/bridges/lsp"
	"github.com/tetherhq/tether/internal/testenv"
)

// TestCheckerPrefersProjectBinary: diagnostics "*" runs the project's own
// checker, the one its package manager installed (node_modules/.bin/tsc,
// .venv/bin/pyright), before one on PATH; with none on PATH it was "checker
// tsc not on PATH" for a project that has it.
func TestCheckerPrefersProjectBinary(t *testing.T) {
	cases := []struct {
		peer, project, local, bad, wantRan, wantFinding string
	}{
		{"tsc", "tsproj", "node_modules/.bin/tsc", "src/bad.ts", "node_modules/.bin/tsc --noEmit (exit 2)", "src/bad.ts:1:7"},
		{"pyright", "pyproj", ".venv/bin/pyright", "bad.py", ".venv/bin/pyright (exit 1)", "bad.py:1:10"},
	}
	for _, tc := range cases {
		t.Run(tc.peer, func(t *testing.T) {
			real := testenv.RequireBinary(t, tc.peer)
			dir := copyProject(t, tc.project)
			local := filepath.Join(dir, tc.local)
			if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, local); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, tc.bad), map[string]string{
				"src/bad.ts": "const x: number = \"a\";\nexport {};\n",
				"bad.py":     "x: int = \"a\"\n",
			}[tc.bad])
			// A PATH with node (the checkers are node scripts) and no checker.
			node := testenv.RequireBinary(t, "node")
			env := []string{"PATH=" + filepath.Dir(node), "HOME=" + os.Getenv("HOME")}
			if filepath.Dir(node) == filepath.Dir(real) {
				t.Skipf("%s is next to node: cannot hide it from PATH", real)
			}
			s := newSupervisor(t, dir, lsp.WithEnv(env))
			rep, err := s.Check(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			var found []string
			for _, d := range rep.Items {
				found = append(found, d.String())
			}
			if strings.Join(rep.Ran, "; ") != tc.wantRan || !strings.Contains(strings.Join(found, "\n"), tc.wantFinding) {
				t.Fatalf("ran %q (want %q), findings:\n%s\nunparsed: %q", rep.Ran, tc.wantRan, strings.Join(found, "\n"), rep.Unparsed)
			}
		})
	}
}
