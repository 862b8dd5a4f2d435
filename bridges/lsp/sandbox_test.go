package lsp_test

import "encoding/json"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/testenv"

// TestSandboxedServerReadsNothingOutside: clangd, told by the workspace to
// include a file outside it (one next to the workspace, and /etc/shadow),
// finds no such file (it is not in the server's view; without a view,
// Landlock refuses it), and the diagnostics say so plainly; nothing of the
// outside file comes back.
func TestSandboxedServerReadsNothingOutside(t *testing.T) {
	requireClangd(t)
	if st := proc.SandboxStatus(); !st.Files() {
		t.Skipf("no sandbox here: %s", st)
	}
	dirs := testenv.Siblings(t, "ws", "outside")
	dir, outside := dirs[0], dirs[1]
	secret := filepath.Join(outside, "secret.h")
	writeFile(t, secret, "int secret_value_1234 = 42;\n")
	files := map[string]string{"a.c": secret, "b.c": "/etc/shadow"}
	var cmds []map[string]string
	for f, inc := range files {
		writeFile(t, filepath.Join(dir, f), "#include \""+inc+"\"\nint f_"+f[:1]+"(void) { return 0; }\n")
		cmds = append(cmds, map[string]string{"directory": dir, "file": filepath.Join(dir, f), "command": "cc -c " + f})
	}
	b, _ := json.Marshal(cmds)
	writeFile(t, filepath.Join(dir, "compile_commands.json"), string(b))
	s := newSupervisor(t, dir)
	for f, inc := range files {
		d, err := s.Diagnostics(ctxT(t), f)
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, it := range d.Items {
			all = append(all, it.String())
		}
		text := strings.Join(all, "\n")
		if strings.Contains(text, "secret_value_1234") || strings.Contains(text, "root:") {
			t.Fatalf("%s: the outside file's content came back:\n%s", f, text)
		}
		// Not in the server's view at all ("file not found"), or refused
		// by Landlock where there is no view.
		low := strings.ToLower(text)
		if !strings.Contains(text, inc) || !strings.Contains(low, "permission denied") && !strings.Contains(low, "not found") {
			t.Errorf("%s: no diagnostic says %s could not be read (not found, or permission denied):\n%s", f, inc, text)
		}
	}
}
