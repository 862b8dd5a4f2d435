package internal_test

import "encoding/json"
import "errors"
import "fmt"
import "io"
import "os"
import "os/exec"
import "path/filepath"
import "slices"
import "strings"
import "testing"

const mod = "github.com/tetherhq/tether/"

// A layer is a set of tether's packages, named by a pattern: "x" is package x
// alone, "x/..." is x and everything below it.
//
// layers is docs/layout.md's import order as an allow-list: each package may import,
// from production code and from its tests alike, only the packages of its own
// layer and those listed for it. Imports flow
// cmd -> server -> tools -> {search -> matcher -> engine -> grammars;
// bridges; kernels; operator; workers}, with
// internal/ usable by all and importing none of the layers above it.
//
// cmd and bench are consumers of the whole module, as ast-grep's CLI crate is
// of its core: `tether ast-grep` and `tether parse` drive matcher and engine
// directly (they are the CLI's own jobs, not tools of a run), and benchmarks
// drive whatever they measure. Nothing imports cmd or bench.
//
// Third-party modules are on the same allow-list: each protocol or runtime
// library belongs to the one layer that wraps it, so its types cannot leak
// into the rest.
var layers = []struct {
	pkgs  string
	allow []string
}{
	{"cmd/...", []string{"server/...", "tools/...", "operator/...", "workers/...", "search/...", "matcher/...", "engine/...", "grammars/...", "bridges/...", "kernels/...", "internal/...",
		"github.com/modelcontextprotocol/go-sdk/...", "github.com/creack/pty", "golang.org/x/sys/...", "golang.org/x/term", "github.com/tetratelabs/wazero/..."}},
	{"bench/...", []string{"server/...", "tools/...", "operator/...", "workers/...", "search/...", "matcher/...", "engine/...", "grammars/...", "bridges/...", "kernels/...", "internal/...",
		"github.com/dop251/goja/...", "go.lsp.dev/jsonrpc2", "golang.org/x/sys/...",
		"github.com/modelcontextprotocol/go-sdk/..."}},
	{"server/...", []string{"tools/...", "operator/...", "workers/...", "search/...", "matcher/...", "engine/...", "grammars/...", "bridges/...", "kernels/...", "internal/...",
		"github.com/modelcontextprotocol/go-sdk/...", "github.com/google/jsonschema-go/...", "golang.org/x/sys/...",
		"github.com/golang-jwt/jwt/v5"}},
	{"tools/...", []string{"operator/...", "workers/...", "search/...", "matcher/...", "engine/...", "grammars/...", "bridges/...", "kernels/...", "internal/...",
		"github.com/modelcontextprotocol/go-sdk/...", "github.com/google/jsonschema-go/...", "github.com/chromedp/...",
		"github.com/creack/pty", "golang.org/x/term", "golang.org/x/sys/...", "github.com/aymanbagabas/go-udiff/..."}},
	{"search/...", []string{"matcher/...", "engine/...", "grammars/...", "internal/...", "golang.org/x/tools/txtar", "github.com/aymanbagabas/go-udiff/...", "go.yaml.in/yaml/v3"}},
	{"matcher/...", []string{"engine/...", "grammars/...", "internal/..."}},
	{"engine/...", []string{"grammars/...", "internal/...", "github.com/tetratelabs/wazero/...", "github.com/klauspost/compress/...", "golang.org/x/sys/..."}},
	{"grammars/...", []string{"internal/...", "github.com/klauspost/compress/..."}},
	{"bridges/lsp/...", []string{"grammars", "internal/...", "go.lsp.dev/jsonrpc2", "golang.org/x/sys/..."}},
	{"bridges/dap/...", []string{"internal/...", "github.com/google/go-dap", "golang.org/x/sys/..."}},
	{"kernels/...", []string{"internal/...", "github.com/dop251/goja/...", "github.com/dlclark/regexp2/...", "golang.org/x/sys/..."}},
	{"operator/...", []string{"internal/...", "github.com/chromedp/...", "github.com/modelcontextprotocol/go-sdk/...", "github.com/creack/pty", "golang.org/x/term", "golang.org/x/sys/..."}},
	{"workers/...", []string{"internal/...", "golang.org/x/sys/...", "github.com/google/jsonschema-go/..."}},
	{"internal/...", []string{"github.com/chromedp/...", "golang.org/x/sys/...", "golang.org/x/tools/txtar"}},
	{"testdata/...", nil},
}

// under reports whether pkg (tether-relative, or a full path for other
// modules) falls under pattern.
func under(pkg, pattern string) bool {
	if root, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == root || strings.HasPrefix(pkg, root+"/")
	}
	return pkg == pattern
}

// layerOf returns the index of the most specific layer holding pkg, or -1.
func layerOf(pkg string) int {
	best, bestLen := -1, -1
	for i, l := range layers {
		if under(pkg, l.pkgs) && len(l.pkgs) > bestLen {
			best, bestLen = i, len(l.pkgs)
		}
	}
	return best
}

// listed is what `go list -json` says of one package.
type listed struct {
	ImportPath   string
	Dir          string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
}

// goList lists every package of the module with its imports, those of its
// tests included. overlay, when not empty, is a `go list -overlay` file.
func goList(t *testing.T, overlay string) []listed {
	t.Helper()
	args := []string{"list", "-e", "-json=ImportPath,Dir,Imports,TestImports,XTestImports,Error"}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	cmd := exec.Command("go", append(args, "../...")...)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// violations checks every package's imports against layers.
func violations(pkgs []listed) (errs []string, checked int) {
	for _, p := range pkgs {
		if !strings.HasPrefix(p.ImportPath, mod) {
			continue
		}
		checked++
		pkg := strings.TrimPrefix(p.ImportPath, mod)
		li := layerOf(pkg)
		if li < 0 {
			errs = append(errs, fmt.Sprintf("%s is in no layer: add it to layers in internal/layout_test.go and to docs/layout.md", pkg))
			continue
		}
		l := layers[li]
		check := func(imps []string, from string) {
			for _, imp := range imps {
				target, ours := strings.CutPrefix(imp, mod)
				if !ours && !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
					continue // the standard library
				}
				if ours && (target == pkg || layerOf(target) == li) {
					continue // its own layer
				}
				if slices.ContainsFunc(l.allow, func(a string) bool { return under(target, a) }) {
					continue
				}
				errs = append(errs, fmt.Sprintf("%s%s imports %s: layer %s may import only its own packages and %v (docs/layout.md)",
					pkg, from, imp, l.pkgs, l.allow))
			}
		}
		check(p.Imports, "")
		check(p.TestImports, " (test)")
		check(p.XTestImports, " (external test)")
	}
	return errs, checked
}

// TestImportDirection keeps docs/layout.md's layering by itself, for production
// code and tests alike.
func TestImportDirection(t *testing.T) {
	errs, checked := violations(goList(t, ""))
	if checked < 20 {
		t.Fatalf("go list found only %d of tether's packages", checked)
	}
	for _, e := range errs {
		t.Error(e)
	}
}

// TestImportDirectionCatchesPlantedBackEdge plants, through a go list overlay
// (nothing is written into the tree), a test file in matcher that imports
// tools, a file in matcher that imports search, one in kernels that imports
// engine, a file in tools that imports server and one in operator that
// imports tools, and checks the layout test reports each.
func TestImportDirectionCatchesPlantedBackEdge(t *testing.T) {
	dir := t.TempDir()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	plant := map[string]string{
		filepath.Join(root, "matcher", "zz_planted_test.go"): "package matcher_test\n\nimport _ \"" + mod + "tools\"\n",
		filepath.Join(root, "matcher", "zz_planted.go"):      "package matcher\n\nimport _ \"" + mod + "search\"\n",
		filepath.Join(root, "kernels", "zz_planted_test.go"): "package kernels\n\nimport _ \"" + mod + "engine\"\n",
		filepath.Join(root, "tools", "zz_planted.go"):        "package tools\n\nimport _ \"" + mod + "server\"\n",
		filepath.Join(root, "operator", "zz_planted.go"):     "package operator\n\nimport _ \"" + mod + "tools\"\n",
	}
	replace := map[string]string{}
	i := 0
	for path, src := range plant {
		f := filepath.Join(dir, fmt.Sprintf("planted%d.go", i))
		i++
		if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		replace[path] = f
	}
	ov, _ := json.Marshal(map[string]any{"Replace": replace})
	overlay := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlay, ov, 0o644); err != nil {
		t.Fatal(err)
	}
	errs, _ := violations(goList(t, overlay))
	for _, want := range []string{"matcher (external test) imports " + mod + "tools", "matcher imports " + mod + "search", "kernels (test) imports " + mod + "engine",
		"tools imports " + mod + "server", "operator imports " + mod + "tools"} {
		if !slices.ContainsFunc(errs, func(e string) bool { return strings.HasPrefix(e, want) }) {
			t.Errorf("planted back-edge %q not reported; got %q", want, errs)
		}
	}
}
