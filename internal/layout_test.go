package internal_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportDirection keeps STYLE.md's rule by itself: imports flow
// cmd -> tools -> {matcher -> engine -> grammars; bridges; kernels}. Nothing
// imports tools (but its own sub-packages and cmd); bridges and kernels never
// import matcher or engine; engine never imports matcher; grammars never imports
// wazero or anything of ours above it.
func TestImportDirection(t *testing.T) {
	const mod = "github.com/tetherhq/tether/"
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "../...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	forbidden := []struct{ from, to, why string }{
		{"engine", "matcher", "engine sits below matcher"},
		{"engine", "tools", "nothing imports tools"},
		{"grammars", "engine", "grammars sits below engine"},
		{"grammars", "matcher", "grammars sits below matcher"},
		{"grammars", "github.com/tetratelabs/wazero", "grammars never imports wazero"},
		{"matcher", "tools", "nothing imports tools"},
		{"bridges", "matcher", "bridges never import matcher"},
		{"bridges", "engine", "bridges never import engine"},
		{"bridges", "tools", "nothing imports tools"},
		{"kernels", "matcher", "kernels never import matcher"},
		{"kernels", "engine", "kernels never import engine"},
		{"kernels", "tools", "nothing imports tools"},
		{"bridges", "kernels", "bridges and kernels are siblings"},
		{"kernels", "bridges", "bridges and kernels are siblings"},
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	checked := 0
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], mod) {
			continue
		}
		checked++
		pkg := strings.TrimPrefix(f[0], mod)
		for _, imp := range f[1:] {
			for _, r := range forbidden {
				if !under(pkg, r.from) {
					continue
				}
				target := imp
				if strings.HasPrefix(imp, mod) {
					target = strings.TrimPrefix(imp, mod)
				}
				if under(target, r.to) {
					t.Errorf("%s imports %s: %s (STYLE.md, Shape)", f[0], imp, r.why)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("go list found none of tether's packages")
	}
}

func under(pkg, root string) bool { return pkg == root || strings.HasPrefix(pkg, root+"/") }
