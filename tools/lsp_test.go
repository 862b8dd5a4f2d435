package tools_test

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "regexp"
import "strconv"
import "strings"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// lspRun copies testdata/lsp/goproj into a temp dir and starts a run with a
// language-server supervisor on it.
func lspRun(t *testing.T) (*tools.Run, string) {
	t.Helper()
	testenv.RequireBinary(t, "gopls")
	dir := testenv.LSPProject(t, "goproj")
	// A Dart marker with no dart binary here: status must say so.
	if err := os.WriteFile(filepath.Join(dir, "pubspec.yaml"), []byte("name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, dir, 20*time.Second)}), dir
}

// lspSupervisor is a language-server supervisor on dir with the peers on
// its PATH, diagnostics as its diagnostics bound and opts after those; the
// run it is given to closes it.
func lspSupervisor(t *testing.T, dir string, diagnostics time.Duration, opts ...lsp.Option) *lsp.Supervisor {
	t.Helper()
	sup, err := lsp.New(dir, append([]lsp.Option{lsp.WithEnv(testenv.WithPeersOnPath()), lsp.WithDiagnosticsTimeout(diagnostics)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return sup
}

// lspDirRun is a run over dir, every call allowed, with an lspSupervisor
// made of diagnostics and opts and the shared parser.
func lspDirRun(t *testing.T, dir string, diagnostics time.Duration, opts ...lsp.Option) *tools.Run {
	t.Helper()
	return startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, dir, diagnostics, opts...), Search: tools.SearchConfig{Parser: parseEngine(t)}})
}

func lspCall(t *testing.T, r *tools.Run, name string, args any) (string, error) {
	t.Helper()
	res, err := lspResult(t, r, name, args)
	return res.AllText(), err
}

// lspText is lspCall that fails the test on an error (not on an error
// result, whose text it returns).
func lspText(t *testing.T, r *tools.Run, name string, args any) string {
	t.Helper()
	out, err := lspCall(t, r, name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

// lspResult is lspCall returning the whole result, for its typed output.
func lspResult(t *testing.T, r *tools.Run, name string, args any) (*tools.Result, error) {
	t.Helper()
	b, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return r.Call(ctx, name, b, tools.FromModel)
}

func TestLSPToolsRegisteredOnlyWhenWired(t *testing.T) {
	for _, name := range toolNames(startRun(t, tools.Config{WorkDir: t.TempDir()})) {
		if strings.HasPrefix(name, "lsp") {
			t.Fatalf("%s registered without a supervisor", name)
		}
	}
}

func TestLSPTools(t *testing.T) {
	r, dir := lspRun(t)
	if !hasTool(r, "lsp") || !hasTool(r, "lsp_rename") {
		t.Fatalf("lsp tools not listed: %v", toolNames(r))
	}

	t.Run("definition", func(t *testing.T) {
		res, err := lspResult(t, r, "lsp", map[string]any{"action": "definition", "file": "use.go", "line": 11, "symbol": "Total"})
		if err != nil {
			t.Fatal(err)
		}
		want := lsp.Location{Path: "shapes.go", Line: 17, Col: 6, Text: "func Total(shapes []Shape) float64 {"}
		if locs := structured[*tools.LSPResult](t, res).Locations; locs == nil || locs.Total != 1 || len(locs.Items) != 1 || locs.Items[0] != want {
			t.Fatalf("definition: %+v, want %+v", locs, want)
		}
	})
	t.Run("references", func(t *testing.T) {
		out, err := lspCall(t, r, "lsp", map[string]any{"action": "references", "file": "shapes.go", "line": 9, "symbol": "Square"})
		if err != nil || !strings.Contains(out, "5 location(s)") || !strings.Contains(out, "use.go:11:30:") {
			t.Fatalf("references: %v\n%s", err, out)
		}
	})
	t.Run("errors", func(t *testing.T) {
		_, err := lspCall(t, r, "lsp", map[string]any{"action": "hover", "file": "use.go", "line": 11})
		if err == nil || !strings.Contains(err.Error(), "lsp: ") {
			t.Fatalf("missing symbol: %v", err)
		}
		_, err = lspCall(t, r, "lsp", map[string]any{"action": "hover", "file": "use.go", "line": 11, "symbol": "Nope"})
		if err == nil || !strings.Contains(err.Error(), "return Total(") {
			t.Fatalf("symbol not on line: %v", err)
		}
	})
	t.Run("symbols_and_hover", func(t *testing.T) {
		out, err := lspCall(t, r, "lsp", map[string]any{"action": "symbols", "file": "shapes.go"})
		if err != nil || !strings.Contains(out, "function Total  shapes.go:17:6") {
			t.Fatalf("symbols: %v\n%s", err, out)
		}
		res, err := lspResult(t, r, "lsp", map[string]any{"action": "hover", "file": "use.go", "line": 11, "symbol": "Total"})
		if err != nil {
			t.Fatal(err)
		}
		if h := structured[*tools.LSPResult](t, res).Hover; h == nil || !strings.Contains(h.Text, "func Total(shapes []Shape) float64") || !strings.Contains(h.Text, "sums the areas") {
			t.Fatalf("hover: %+v", h)
		}
	})
	t.Run("status", func(t *testing.T) {
		out := lspText(t, r, "lsp", map[string]any{"action": "status"})
		testenv.WantAll(t, "status", out,
			"gopls (go): running, pid ",
			"dart (dart): not running: pubspec.yaml found, dart not on PATH",
			"rust-analyzer (rust): not running: no root marker for rust",
		)
	})

	t.Run("rename", func(t *testing.T) {
		out := lspText(t, r, "lsp_rename", map[string]any{"file": "use.go", "line": 4, "symbol": "Big", "new_name": "Large"})
		if !strings.Contains(out, "in 1 file(s): use.go") {
			t.Fatalf("rename:\n%s", out)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "use.go"))
		if strings.Contains(string(b), "Big()") || strings.Count(string(b), "Large()") != 2 {
			t.Fatalf("use.go after rename:\n%s", b)
		}
	})
	t.Run("check", func(t *testing.T) {
		out, err := lspCall(t, r, "lsp", map[string]any{"action": "diagnostics", "file": "*"})
		if err != nil || !regexp.MustCompile(`ran: /\S+/go vet \./\.\.\. \(exit 0\)`).MatchString(out) {
			t.Fatalf("check: %v\n%s", err, out)
		}
	})
}

// TestLSPToolsDiagnosticsOnWrite: write, edit and apply_patch report the
// diagnostics they made new, not an old one that moved, and nothing for a
// file no server reads.
func TestLSPToolsDiagnosticsOnWrite(t *testing.T) {
	r, dir := lspRun(t)
	t.Run("diagnostics_on_write", func(t *testing.T) {
		t.Cleanup(func() { os.Remove(filepath.Join(dir, "broken.go")) })
		bad := "package shapes\n\nfunc Broken() int {\n\treturn \"not an int\"\n}\n"
		out := lspText(t, r, "write", map[string]any{"path": "broken.go", "content": bad})
		if !strings.Contains(out, "new diagnostics in broken.go") || !strings.Contains(out, "broken.go:4:") || !strings.Contains(out, "not an int") {
			t.Fatalf("write with a type error did not report it:\n%s", out)
		}
		// The same error four lines further down is not new.
		shifted := "package shapes\n\n\n\n\n\nfunc Broken() int {\n\treturn \"not an int\"\n}\n"
		out = lspText(t, r, "write", map[string]any{"path": "broken.go", "content": shifted})
		if strings.Contains(out, "new diagnostics in") || !strings.Contains(out, "no new diagnostics (1 already reported)") {
			t.Fatalf("the moved error was reported again:\n%s", out)
		}
		// Fix it and break something else: only the new one.
		other := "package shapes\n\nfunc Broken() int {\n\treturn undefinedThing\n}\n"
		out, err := lspCall(t, r, "edit", map[string]any{"path": "broken.go", "old_string": string(shifted), "new_string": other})
		if err != nil {
			// edit may require a unique substring; fall back to write.
			out = lspText(t, r, "write", map[string]any{"path": "broken.go", "content": other})
		}
		if !strings.Contains(out, "undefinedThing") || strings.Contains(out, "not an int") {
			t.Fatalf("want only the new diagnostic:\n%s", out)
		}
		// A file no server reads gets no lsp note at all.
		out, err = lspCall(t, r, "write", map[string]any{"path": "notes.txt", "content": "hi\n"})
		if err != nil || strings.Contains(out, "lsp:") {
			t.Fatalf("notes.txt: %v\n%s", err, out)
		}
		if err := os.Remove(filepath.Join(dir, "broken.go")); err != nil {
			t.Fatal(err)
		}
		// Deleted on disk by other means: the next query re-syncs and gopls forgets it.
	})

	t.Run("apply_patch_two_files", func(t *testing.T) {
		patch := "*** Begin Patch\n*** Add File: p1.go\n+package shapes\n+\n+var P1 int = \"one\"\n*** Add File: p2.go\n+package shapes\n+\n+var P2 = missingName\n*** End Patch"
		out := lspText(t, r, "apply_patch", map[string]any{"patch": patch})
		if !strings.Contains(out, "new diagnostics in p1.go") || !strings.Contains(out, "new diagnostics in p2.go") || !strings.Contains(out, "missingName") {
			t.Fatalf("apply_patch diagnostics:\n%s", out)
		}
		os.Remove(filepath.Join(dir, "p1.go"))
		os.Remove(filepath.Join(dir, "p2.go"))
	})
}

// TestLSPToolsRestart: a killed gopls is started again by the next call,
// which says it crashed; reload restarts it on request.
func TestLSPToolsRestart(t *testing.T) {
	r, _ := lspRun(t)
	if _, err := lspCall(t, r, "lsp", map[string]any{"action": "definition", "file": "use.go", "line": 11, "symbol": "Total"}); err != nil {
		t.Fatal(err) // gopls starts on the first call for a Go file
	}
	t.Run("killed_server_recovers", func(t *testing.T) {
		out, _ := lspCall(t, r, "lsp", map[string]any{"action": "status"})
		m := regexp.MustCompile(`gopls \(go\): running, pid (\d+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no gopls pid in status:\n%s", out)
		}
		pid, _ := strconv.Atoi(m[1])
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 1200; i++ { // bounded, generous for a loaded machine
			if out, _ := lspCall(t, r, "lsp", map[string]any{"action": "status"}); strings.Contains(out, "crashed") {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		out = lspText(t, r, "lsp", map[string]any{"action": "definition", "file": "use.go", "line": 11, "symbol": "Total"})
		if !strings.Contains(out, "lsp: gopls crashed (signal: killed); restarted it") || !strings.Contains(out, "shapes.go:17:6:") {
			t.Fatalf("after kill:\n%s", out)
		}
	})
	t.Run("reload", func(t *testing.T) {
		out, err := lspCall(t, r, "lsp", map[string]any{"action": "reload"})
		if err != nil || !strings.Contains(out, "gopls restarted for root . (pid ") {
			t.Fatalf("reload: %v\n%s", err, out)
		}
		out, err = lspCall(t, r, "lsp", map[string]any{"action": "definition", "file": "use.go", "line": 11, "symbol": "Total"})
		if err != nil || !strings.Contains(out, "shapes.go:17:6:") || strings.Contains(out, "crashed") {
			t.Fatalf("after reload: %v\n%s", err, out)
		}
	})
}

// TestLSPWriteDiagnosticsBounded: a write that breaks many things shows at
// most 50 new diagnostics, says how many there are, and does not count the
// ones left out as reported: the next write shows them.
func TestLSPWriteDiagnosticsBounded(t *testing.T) {
	r, _ := lspRun(t)
	var b strings.Builder
	b.WriteString("package shapes\n\n")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&b, "func Broken%d() int { return missing%d }\n", i, i)
	}
	out := lspText(t, r, "write", map[string]any{"path": "broken.go", "content": b.String()})
	if !strings.Contains(out, "new diagnostics in broken.go (50 of 60 shown; ask lsp diagnostics for broken.go for the rest):") || strings.Count(out, ": error: undefined: missing") != 50 {
		t.Fatalf("first write:\n%s", out)
	}
	out = lspText(t, r, "write", map[string]any{"path": "broken.go", "content": b.String() + "// again\n"})
	if !strings.Contains(out, "new diagnostics in broken.go:") || strings.Count(out, ": error: undefined: missing") != 10 {
		t.Fatalf("second write: want the 10 not shown before:\n%s", out)
	}
}

// TestLSPDiagnosticsErrorsAndWarnings: the diagnostics action and the write
// hook show errors and warnings (SPEC.md, lsp), counting the info and hint
// diagnostics they leave out (gopls's "function is unused").
func TestLSPDiagnosticsErrorsAndWarnings(t *testing.T) {
	r, _ := lspRun(t)
	unused := "package shapes\n\nfunc helper() {}\n"
	out := lspText(t, r, "write", map[string]any{"path": "unused.go", "content": unused})
	if !strings.Contains(out, "lsp: unused.go: no errors or warnings") || strings.Contains(out, "is unused") {
		t.Fatalf("write of an unused function:\n%s", out)
	}
	out, err := lspCall(t, r, "lsp", map[string]any{"action": "diagnostics", "file": "unused.go"})
	if err != nil || out != "unused.go: no errors or warnings (1 info or hint diagnostic(s) not shown: severity hint shows them)" {
		t.Fatalf("diagnostics: %v\n%s", err, out)
	}
	out = lspText(t, r, "write", map[string]any{"path": "unused.go", "content": unused + "\nvar X int = \"s\"\n"})
	if !strings.Contains(out, "new diagnostics in unused.go:\nlsp:   unused.go:5:13: error: cannot use") || strings.Contains(out, "is unused") {
		t.Fatalf("write of an error:\n%s", out)
	}
}

// TestReadTierRunsNoWorkspaceCode: a repository that ships its own
// node_modules/.bin/tsc (here a script that writes a marker) gets no code
// run by lsp diagnostics "*" on the readonly surface with approvals denied:
// the tsc on PATH runs, named, and the answer says how to run the project's
// own (lsp_check, exec tier). Before, the project's tsc ran. lsp_check is
// not on the readonly surface, is refused by a deny policy, and runs the
// project's tsc when allowed.
func TestReadTierRunsNoWorkspaceCode(t *testing.T) {
	testenv.RequireBinary(t, "tsc")
	dir := t.TempDir()
	// The marker lives inside the workspace: the sandbox lets the
	// project's tsc write there (and nowhere else) when it is allowed to
	// run, so the marker's absence still proves it did not run.
	marker := filepath.Join(dir, "ran.marker")
	files := map[string]string{
		"package.json":          `{"name":"p","version":"1.0.0"}`,
		"tsconfig.json":         `{"compilerOptions":{"strict":true,"noEmit":true},"include":["src"]}`,
		"src/a.ts":              "export const a: number = 1;\n",
		"node_modules/.bin/tsc": "#!/bin/sh\necho \"src/a.ts(1,14): error TS2322: planted\"\necho ran >> " + marker + "\nexit 2\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Each run closes its supervisor with it.
	run := func(surface tools.Surface, policy tools.Policy) *tools.Run {
		sup, err := lsp.New(dir, lsp.WithEnv(testenv.WithPeersOnPath()))
		if err != nil {
			t.Fatal(err)
		}
		r, err := tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Surface: surface, Policy: policy, LSP: sup})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	ro := run(tools.SurfaceReadonly, tools.PolicyOf(tools.Deny))
	out := lspText(t, ro, "lsp", map[string]any{"action": "diagnostics", "file": "*"})
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("diagnostics \"*\" on the readonly surface ran the workspace's tsc:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^ran: /\S+/tsc --noEmit \(exit 0\)$`).MatchString(out) ||
		!strings.Contains(out, "not run: the project's own node_modules/.bin/tsc was not run: it is code from the workspace") ||
		!strings.Contains(out, "call lsp_check (exec tier") {
		t.Fatalf("diagnostics \"*\":\n%s", out)
	}
	if _, err := lspCall(t, ro, "lsp_check", map[string]any{}); !errors.Is(err, tools.ErrNotOnSurface) {
		t.Fatalf("lsp_check on the readonly surface: %v", err)
	}
	ro.Close()

	denied := run(tools.SurfaceDefault, tools.PolicyOf(tools.Deny))
	if _, err := lspCall(t, denied, "lsp_check", map[string]any{}); !errors.Is(err, tools.ErrDenied) {
		t.Fatalf("lsp_check under deny: %v", err)
	}
	denied.Close()
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("lsp_check ran the workspace's tsc under a deny policy")
	}

	allowed := run(tools.SurfaceDefault, tools.Policy{Tiers: map[tools.Tier]tools.Decision{tools.TierExec: tools.Allow}})
	defer allowed.Close()
	out = lspText(t, allowed, "lsp_check", map[string]any{})
	if _, err := os.Stat(marker); err != nil || !strings.Contains(out, "ran: node_modules/.bin/tsc --noEmit (exit 2)") || !strings.Contains(out, "src/a.ts:1:14: error: planted [TS2322]") {
		t.Fatalf("lsp_check allowed (marker: %v):\n%s", err, out)
	}
}
