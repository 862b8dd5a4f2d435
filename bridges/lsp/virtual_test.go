package lsp_test

import "errors"
import "os"
import "slices"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"

// TestDiagnoseTextPyright: text that no file holds is diagnosed by pyright
// as a document beside its host: its imports resolve from there, its
// diagnostics carry the host's path and the text's lines, and nothing is
// written to the workspace.
func TestDiagnoseTextPyright(t *testing.T) {
	dir, s := peerProject(t, "pyright-langserver", "pyproj")
	before, _ := os.ReadDir(dir)
	text := "from pkg.shapes import Square\n\nsq = Square(2)\nprint(undefined_x)\n"
	d, err := s.DiagnoseText(ctxT(t), "app.py", ".py", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := d.Whole(); !ok || len(d.Items) != 1 {
		t.Fatalf("diagnostics (whole %v %s) = %v, want undefined_x alone", ok, why, d.Items)
	}
	if got := d.Items[0]; got.Path != "app.py" || got.Line != 4 || got.Col != 7 || !strings.Contains(got.Message, `"undefined_x" is not defined`) {
		t.Errorf("diagnostic = %v, want app.py:4:7 undefined_x", got)
	}
	after, _ := os.ReadDir(dir)
	if !slices.EqualFunc(before, after, func(a, b os.DirEntry) bool { return a.Name() == b.Name() }) {
		t.Errorf("the workspace changed: %v, then %v", before, after)
	}
}

// TestDiagnoseTextRefusals: text of a kind no server reads is ErrNoLanguage;
// of one whose server only publishes (gopls), ErrNoPull: without a pull
// answer nothing would tell when it is done.
func TestDiagnoseTextRefusals(t *testing.T) {
	dir := t.TempDir()
	s := newSupervisor(t, dir)
	if _, err := s.DiagnoseText(ctxT(t), "a.ipynb", ".zz", []byte("x")); !errors.Is(err, lsp.ErrNoLanguage) {
		t.Errorf(".zz text: %v, want ErrNoLanguage", err)
	}
	if _, err := s.DiagnoseText(ctxT(t), "a.ipynb", ".go", []byte("package p\n")); !errors.Is(err, lsp.ErrNoPull) || !strings.Contains(err.Error(), "gopls") {
		t.Errorf(".go text: %v, want ErrNoPull naming gopls", err)
	}
}
