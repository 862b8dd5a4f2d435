package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/bridges/lsp"
	"github.com/tetherhq/tether/internal/testenv"
)

func diagText(d *lsp.Diagnostics) string {
	var s []string
	for _, x := range d.Items {
		s = append(s, x.String())
	}
	return strings.Join(s, "\n")
}

// TestGoplsDiagnosticsFollowOtherFiles: gopls publishes a file's diagnostics
// again only when they change, and does so for other packages a second or
// more after a change; the last publication for a file that did not change
// must not be served as current after another file changed (it said "no
// errors" for a caller of a function just deleted), and a written file's
// analysis findings (published after its type errors) belong to the write.
func TestGoplsDiagnosticsFollowOtherFiles(t *testing.T) {
	testenv.RequireBinary(t, "gopls")
	dir := copyProject(t, "goproj")
	s := newSupervisor(t, dir)
	ctx := ctxT(t)
	shapes := filepath.Join(dir, "shapes.go")
	orig, err := os.ReadFile(shapes)
	if err != nil {
		t.Fatal(err)
	}
	noTotal := strings.Replace(string(orig), "func Total(", "func Total2(", 1)

	steps := []struct {
		name   string
		change func(t *testing.T)
		ask    func() (*lsp.Diagnostics, error)
		want   string // "" means no diagnostics
	}{
		{"clean at first", nil,
			func() (*lsp.Diagnostics, error) { return s.Diagnostics(ctx, "use.go") }, ""},
		{"callee renamed on disk by other means", func(t *testing.T) { writeFile(t, shapes, noTotal) },
			func() (*lsp.Diagnostics, error) { return s.Diagnostics(ctx, "use.go") }, "undefined: Total"},
		{"callee restored through a write", func(t *testing.T) { writeFile(t, shapes, string(orig)) },
			func() (*lsp.Diagnostics, error) {
				if _, err := s.AfterWrite(ctx, "shapes.go"); err != nil {
					return nil, err
				}
				return s.Diagnostics(ctx, "use.go")
			}, ""},
		{"callee deleted", func(t *testing.T) { os.Remove(shapes) },
			func() (*lsp.Diagnostics, error) { return s.Diagnostics(ctx, "use.go") }, "undefined: Total"},
		{"callee recreated", func(t *testing.T) { writeFile(t, shapes, string(orig)) },
			func() (*lsp.Diagnostics, error) { return s.Diagnostics(ctx, "use.go") }, ""},
		{"analysis finding on write", func(t *testing.T) {
			writeFile(t, filepath.Join(dir, "loop.go"), "package shapes\n\nfunc Loop() int {\n\tfor {\n\t}\n\treturn 1\n}\n")
		}, func() (*lsp.Diagnostics, error) { return s.AfterWrite(ctx, "loop.go") }, "unreachable code"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.change != nil {
				st.change(t)
			}
			d, err := st.ask()
			if err != nil {
				t.Fatal(err)
			}
			got := diagText(d)
			if !d.Ready {
				t.Fatalf("not ready: %v\n%s", d.Notes, got)
			}
			if st.want == "" && len(d.Items) != 0 || st.want != "" && !strings.Contains(got, st.want) {
				t.Fatalf("want %q, got:\n%s", st.want, got)
			}
		})
	}
}
