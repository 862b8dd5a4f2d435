package lsp_test

import "os/exec"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

// TestPyrightInterpreter: pyright resolves imports against the project's
// interpreter, and status says which and why: the interpreter eval runs
// (Debian's python3 with pandas, which may not be the python3 first on
// PATH), else the project's .venv, whose site-packages it reads without
// running its python.
func TestPyrightInterpreter(t *testing.T) {
	testenv.RequireBinary(t, "pyright-langserver")
	if exec.Command("/usr/bin/python3", "-c", "import pandas").Run() != nil {
		testenv.Missing(t, "Debian's python3 with pandas (python3-pandas)")
	}
	cases := []struct {
		name  string
		files map[string]string
		opts  []lsp.Option
		why   string
	}{
		{
			name:  "eval's interpreter",
			files: map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n", "app.py": "import pandas\n\nframe = pandas.DataFrame()\n"},
			opts:  []lsp.Option{lsp.WithPython("/usr/bin/python3")},
			why:   "/usr/bin/python3 (the interpreter eval runs)",
		},
		{
			name: "venv",
			files: map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n", "app.py": "import venvonly\n\nvenvonly.hello()\n",
				".venv/pyvenv.cfg": "home = /usr/bin\ninclude-system-site-packages = false\n",
				".venv/lib/python3.11/site-packages/venvonly.py": "def hello() -> None:\n    pass\n"},
			why: "the project's .venv",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := testenv.Workspace(t, c.files)
			s := newSupervisor(t, dir, c.opts...)
			d, err := s.Diagnostics(ctxT(t), "app.py")
			if err != nil {
				t.Fatal(err)
			}
			if whole, why := d.Whole(); !whole {
				t.Fatalf("not whole: %s", why)
			}
			for _, it := range d.Items {
				if it.Severity == "error" || strings.Contains(it.Message, "could not be resolved") {
					t.Errorf("unexpected: %s", it)
				}
			}
			found := false
			for _, r := range s.Status() {
				if r.Server == "pyright" && r.Running {
					found = true
					if !strings.Contains(r.Interpreter, c.why) || !strings.Contains(r.String(), "python ") {
						t.Errorf("status says %q (%s), want %q", r.Interpreter, r, c.why)
					}
				}
			}
			if !found {
				t.Fatalf("no running pyright in status: %+v", s.Status())
			}
		})
	}
}
