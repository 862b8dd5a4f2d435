// Package outsize measures what the answers an agent pays for most cost in
// its context: the bytes of a tool result's text and of its structured part
// (the JSON of Result.Structured), for calls against real language servers
// (pyright, gopls) and the structural tools on generated fixtures. Sizes do
// not depend on load; nothing is asserted (the tools' own tests hold the
// bounds). Run with TETHER_BENCH_OUTSIZE=1 and -v; bench/README.md records
// the table it prints.
package outsize_test

import "context"
import "encoding/json"
import "fmt"
import "os"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// row is one measured call.
type row struct {
	name             string
	text, structured int
	err              string
}

func TestOutputSizes(t *testing.T) {
	if os.Getenv("TETHER_BENCH_OUTSIZE") == "" {
		t.Skip("set TETHER_BENCH_OUTSIZE=1 to measure output sizes (starts pyright and gopls)")
	}
	testenv.RequireBinary(t, "pyright-langserver")
	testenv.RequireBinary(t, "gopls")
	ctx := context.Background()
	eng := enginetest.Engine(t)

	var rows []row
	measure := func(r *tools.Run, name, tool, args string) {
		t.Helper()
		cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
		res, err := r.Call(cctx, tool, json.RawMessage(args), tools.FromModel)
		if err != nil {
			rows = append(rows, row{name: name, err: firstLine(err.Error())})
			return
		}
		b, _ := json.Marshal(res.Structured)
		if res.Structured == nil {
			b = nil
		}
		rows = append(rows, row{name: name, text: len(res.AllText()), structured: len(b)})
		if os.Getenv("TETHER_BENCH_OUTSIZE_SHOW") != "" {
			t.Logf("%s:\n%s\n--- structured:\n%s", name, res.AllText(), b)
		}
	}
	run := func(files map[string]string) *tools.Run {
		dir := testenv.Workspace(t, files)
		sup, err := lsp.New(dir, lsp.WithEnv(testenv.WithPeersOnPath()), lsp.WithDiagnosticsTimeout(2*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		r, err := tools.NewRun(ctx, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: sup, Search: tools.SearchConfig{Parser: eng}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}

	py := run(map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n", "core.py": pyErrors(178), "outline.py": pyOutline(100)})
	measure(py, "diagnostics core.py (178 errors, pyright)", "lsp", `{"action":"diagnostics","file":"core.py"}`)
	measure(py, "  after: severity error, start 50", "lsp", `{"action":"diagnostics","file":"core.py","severity":"error","start":50}`)
	measure(py, "outline of outline.py (100 functions, 4 parameters and 6 locals each, pyright)", "lsp", `{"action":"symbols","file":"outline.py"}`)

	proj := map[string]string{"pyproject.toml": "[project]\nname = \"q\"\n"}
	for i := range 10 {
		proj[fmt.Sprintf("m%02d.py", i)] = pyErrors(30)
	}
	measure(run(proj), `diagnostics "*" (300 errors in 10 files, pyright)`, "lsp", `{"action":"diagnostics","file":"*"}`)

	gofiles := map[string]string{"go.mod": "module example.com/g\n\ngo 1.22\n", "syms.go": goSymbols(200)}
	for i := range 22 {
		gofiles[fmt.Sprintf("p%02d.go", i)] = goPrints(i, printsIn(i))
	}
	gofiles["funcs.go"] = goFuncs(60)
	g := run(gofiles)
	measure(g, "workspace symbols \"Sym\" (200 in the package, gopls)", "lsp", `{"action":"symbols","query":"Sym"}`)
	measure(g, "ast_grep 50 whole functions (output lines)", "ast_grep", `{"pattern":"func $F($$$A) $$$R { $$$B }","path":"funcs.go","max_results":50}`)
	measure(g, "ast_edit preview, 142 replacements in 22 files", "ast_edit", `{"pattern":"fmt.Println($$$A)","rewrite":"fmt.Print($$$A)","language":"go"}`)
	measure(g, "  after: resolve show, second page", "resolve", `{"edit_id":"edit_1","action":"show","start":200}`)
	measure(g, "resolve accept of those 22 files (gopls: all clean)", "resolve", `{"edit_id":"edit_1","action":"accept"}`)

	var b strings.Builder
	b.WriteString("\n| call | text bytes | structured bytes | structured / text |\n|---|---:|---:|---:|\n")
	for _, r := range rows {
		if r.err != "" {
			fmt.Fprintf(&b, "| %s | error: %s | | |\n", r.name, r.err)
			continue
		}
		ratio := "-"
		if r.text > 0 && r.structured > 0 {
			ratio = fmt.Sprintf("%.2fx", float64(r.structured)/float64(r.text))
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s |\n", r.name, r.text, r.structured, ratio)
	}
	t.Log(b.String())
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return s
}

// pyErrors returns a Python module with n errors pyright reports in its
// default mode: a third the same assignment error, a third the same
// missing-arguments error, a third an attribute error naming a different
// attribute each.
func pyErrors(n int) string {
	var b strings.Builder
	b.WriteString("def need(x: int, y: str) -> int:\n    return x\n\n\nclass Box:\n    def size(self) -> int:\n        return 1\n\n\n")
	for i := range n {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, "a%d: int = \"s\"\n", i)
		case 1:
			fmt.Fprintf(&b, "b%d = need()\n", i)
		default:
			fmt.Fprintf(&b, "c%d = Box().nope%d\n", i, i)
		}
	}
	return b.String()
}

// pyOutline returns a clean Python module of n functions, each with four
// parameters and six locals.
func pyOutline(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "def func%d(alpha: int, beta: int, gamma: int, delta: int) -> int:\n", i)
		for j := range 6 {
			fmt.Fprintf(&b, "    local%d = alpha + %d\n", j, j)
		}
		b.WriteString("    return local0 + local1 + local2 + local3 + local4 + local5 + beta + gamma + delta\n\n\n")
	}
	return b.String()
}

// goSymbols returns a Go file declaring n functions named SymNNN.
func goSymbols(n int) string {
	var b strings.Builder
	b.WriteString("package g\n")
	for i := range n {
		fmt.Fprintf(&b, "\n// Sym%03d is generated.\nfunc Sym%03d() int { return %d }\n", i, i, i)
	}
	return b.String()
}

// printsIn spreads 142 calls over 22 files: 10 files of 7, 12 of 6.
func printsIn(i int) int {
	if i < 10 {
		return 7
	}
	return 6
}

// goPrints returns a Go file with n fmt.Println calls, each in its own
// function far enough from the others to get its own diff hunk.
func goPrints(file, n int) string {
	var b strings.Builder
	b.WriteString("package g\n\nimport \"fmt\"\n")
	for i := range n {
		fmt.Fprintf(&b, "\n// Print%02d_%d prints.\nfunc Print%02d_%d(v int) {\n\tw := v * 2\n\tw++\n\tfmt.Println(\"value\", v, w)\n\tw--\n\t_ = w\n}\n", file, i, file, i)
	}
	return b.String()
}

// goFuncs returns a Go file of n functions with ten-line bodies.
func goFuncs(n int) string {
	var b strings.Builder
	b.WriteString("package g\n")
	for i := range n {
		fmt.Fprintf(&b, "\n// Fn%d computes.\nfunc Fn%d(a, b int, s string) (int, error) {\n", i, i)
		for j := range 9 {
			fmt.Fprintf(&b, "\ta += b * %d // step %d of the computation\n", j, j)
		}
		b.WriteString("\treturn a + len(s), nil\n}\n")
	}
	return b.String()
}
