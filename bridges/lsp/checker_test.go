package lsp_test

import "errors"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

// TestCheckerProjectBinaryOnlyAtExec: the project's own checker, the one its
// package manager installed (node_modules/.bin/tsc, .venv/bin/pyright), is
// code from the workspace: Check (read tier) never runs it and says so, and
// CheckProject (exec tier) prefers it to one on PATH; with none on PATH it
// was "checker tsc not on PATH" for a project that has it.
func TestCheckerProjectBinaryOnlyAtExec(t *testing.T) {
	cases := []struct {
		peer, project, local, bad, wantRan, wantFinding string
	}{
		{"tsc", "tsproj", "node_modules/.bin/tsc", "src/bad.ts", "node_modules/.bin/tsc --noEmit (exit 2)", "src/bad.ts:1:7"},
		// pyright's second line stays with its finding; its file headings
		// (machine paths) are not other output (see TestCheckerOutputShape).
		{"pyright", "pyproj", ".venv/bin/pyright", "bad.py", ".venv/bin/pyright (exit 1)",
			"bad.py:1:10: error: Type \"Literal['a']\" is not assignable to declared type \"int\"\n  \"Literal['a']\" is not assignable to \"int\""},
	}
	for _, tc := range cases {
		t.Run(tc.peer, func(t *testing.T) {
			t.Parallel()
			real := testenv.RequireBinary(t, tc.peer)
			dir := testenv.LSPProject(t, tc.project)
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
			want := "the project's own " + tc.local + " was not run: it is code from the workspace"
			if !errors.Is(err, lsp.ErrNotTrusted) || !strings.Contains(err.Error(), want) {
				t.Fatalf("Check: want ErrNotTrusted saying %q, got %v %+v", want, err, rep)
			}
			rep, err = s.CheckProject(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			var found []string
			for _, d := range rep.Items {
				found = append(found, d.String())
			}
			pyrightOK := tc.peer != "pyright" || len(rep.Unparsed) == 1 && strings.HasPrefix(rep.Unparsed[0], "1 error")
			if strings.Join(rep.Ran, "; ") != tc.wantRan || !strings.Contains(strings.Join(found, "\n"), tc.wantFinding) || !pyrightOK {
				t.Fatalf("ran %q (want %q), findings:\n%s\nunparsed: %q", rep.Ran, tc.wantRan, strings.Join(found, "\n"), rep.Unparsed)
			}
		})
	}
}

// TestCheckNeverRunsWorkspaceCode: Check is read tier, so no program from
// the workspace runs, however the workspace offers one: the project's own
// node_modules/.bin/tsc, a PATH entry inside the workspace (absolute or
// relative) holding a tsc, or a checker that runs the project's code
// (cargo check runs build.rs). Each planted program writes a marker; Check
// runs the tsc on the rest of PATH, names it, and says what it did not run.
// Before, it ran node_modules/.bin/tsc.
func TestCheckNeverRunsWorkspaceCode(t *testing.T) {
	tsc := testenv.RequireBinary(t, "tsc")
	node := testenv.RequireBinary(t, "node")
	dir := testenv.LSPProject(t, "tsproj")
	marker := filepath.Join(t.TempDir(), "ran")
	evil := "#!/bin/sh\necho \"$0\" >> " + marker + "\n"
	for _, p := range []string{"node_modules/.bin/tsc", "bin/tsc", "tsc", "bin/node"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, p), evil)
		if err := os.Chmod(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := strings.Join([]string{filepath.Join(dir, "bin"), ".", "", filepath.Dir(tsc), filepath.Dir(node)}, string(os.PathListSeparator))
	s := newSupervisor(t, dir, lsp.WithEnv([]string{"PATH=" + path, "HOME=" + os.Getenv("HOME")}))
	rep, err := s.Check(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("Check ran programs from the workspace:\n%s", b)
	}
	if len(rep.Ran) != 1 || rep.Ran[0] != filepath.Join(filepath.Dir(tsc), "tsc")+" --noEmit (exit 0)" {
		t.Fatalf("ran %q: want the tsc on the trusted PATH, named", rep.Ran)
	}
	if want := "the project's own node_modules/.bin/tsc was not run: it is code from the workspace"; len(rep.NotTrusted) != 1 || rep.NotTrusted[0] != want {
		t.Fatalf("not trusted %q, want %q", rep.NotTrusted, want)
	}

	t.Run("relative", func(t *testing.T) {
		// A checker (or server) named by a path relative to the project
		// resolves inside the workspace.
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "x.toml"), "")
		writeFile(t, filepath.Join(dir, "check.sh"), evil)
		if err := os.Chmod(filepath.Join(dir, "check.sh"), 0o755); err != nil {
			t.Fatal(err)
		}
		x := lsp.Server{Name: "x", Language: "x", Binaries: []string{"./check.sh"}, Extensions: []string{".x"},
			RootMarkers: []string{"x.toml"}, Checker: []string{"./check.sh"}}
		s := newSupervisor(t, dir, lsp.WithOnlyServers(x))
		rep, err := s.Check(ctxT(t))
		want := "./check.sh was not run: a path relative to the project is code from the workspace"
		if !errors.Is(err, lsp.ErrNotTrusted) || !strings.Contains(err.Error(), want) {
			t.Fatalf("want ErrNotTrusted saying %q, got %v %+v", want, err, rep)
		}
		writeFile(t, filepath.Join(dir, "a.x"), "x\n")
		if _, err := s.Diagnostics(ctxT(t), "a.x"); !errors.Is(err, lsp.ErrNoServer) {
			t.Fatalf("a server named ./check.sh: %v", err)
		}
		if b, err := os.ReadFile(marker); err == nil {
			t.Fatalf("ran: %s", b)
		}
	})
	t.Run("cargo", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "Cargo.toml"), "[package]\nname = \"x\"\nversion = \"0.1.0\"\nbuild = \"build.rs\"\n")
		writeFile(t, filepath.Join(dir, "build.rs"), "fn main() { std::fs::write(\""+marker+"\", \"build.rs\").unwrap(); }\n")
		if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "src", "lib.rs"), "pub fn f() {}\n")
		var rust lsp.Server
		for _, sv := range lsp.DefaultServers() {
			if sv.Name == "rust-analyzer" {
				rust = sv
			}
		}
		s := newSupervisor(t, dir, lsp.WithOnlyServers(rust))
		rep, err := s.Check(ctxT(t))
		want := "Cargo.toml found: cargo check --message-format=short was not run, it runs code from the project (build.rs scripts and proc macros)"
		if !errors.Is(err, lsp.ErrNotTrusted) || !strings.Contains(err.Error(), want) {
			t.Fatalf("want ErrNotTrusted saying %q, got %v %+v", want, err, rep)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("build.rs ran")
		}
	})
}

// TestCheckerOutputShape: a line indented under a finding continues its
// message (go's have/want; pyright's second line and file headings are
// checked in TestCheckerPrefersProjectBinary), and other output is bounded
// and says how much was left out.
func TestCheckerOutputShape(t *testing.T) {
	long := strings.Repeat("x", 5000)
	noise := lsp.Server{Name: "noise", Language: "noise", Binaries: []string{"noise-ls"}, Extensions: []string{".noise"},
		RootMarkers: []string{"noise.toml"},
		Checker:     []string{"sh", "-c", "echo " + long + "; for i in $(seq 1 100); do echo \"line $i\"; done"}}
	huge := noise
	huge.Checker = []string{"sh", "-c", "yes line | head -c 1200000"}
	cases := []struct {
		name, peer string
		files      map[string]string
		opts       []lsp.Option
		check      func(t *testing.T, rep *lsp.CheckReport)
	}{
		{"go vet", "go", map[string]string{
			"go.mod": "module example.com/g\n\ngo 1.22\n",
			"a.go":   "package g\n\nfunc f(a int) {}\n\nfunc g() { f(1, 2) }\n",
		}, nil, func(t *testing.T, rep *lsp.CheckReport) {
			if len(rep.Items) != 1 || !strings.Contains(rep.Items[0].Message, "too many arguments in call to f\n  have (number, number)\n  want (int)") {
				t.Fatalf("findings %+v", rep.Items)
			}
			for _, u := range rep.Unparsed {
				if strings.Contains(u, "have (") {
					t.Fatalf("continuation left in other output: %q", rep.Unparsed)
				}
			}
		}},
		{"bounded", "sh", map[string]string{"noise.toml": ""}, []lsp.Option{lsp.WithOnlyServers(noise)}, func(t *testing.T, rep *lsp.CheckReport) {
			if len(rep.Unparsed) != 40 || rep.UnparsedCut != 61 {
				t.Fatalf("%d lines kept, %d cut", len(rep.Unparsed), rep.UnparsedCut)
			}
			if u := rep.Unparsed[0]; len(u) > 500 || !strings.HasSuffix(u, "... (4600 more bytes)") {
				t.Fatalf("a line of 5000 bytes kept as %d: ...%s", len(u), u[len(u)-30:])
			}
		}},
		{"huge", "sh", map[string]string{"noise.toml": ""}, []lsp.Option{lsp.WithOnlyServers(huge)}, func(t *testing.T, rep *lsp.CheckReport) {
			want := testenv.LookPath("sh") + " -c yes line | head -c 1200000 (only its first 1048576 bytes of output read, 151424 more dropped) (exit 0)"
			if len(rep.Ran) != 1 || rep.Ran[0] != want || len(rep.Unparsed) != 40 {
				t.Fatalf("ran %q, %d lines kept", rep.Ran, len(rep.Unparsed))
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testenv.RequireBinary(t, tc.peer)
			dir := t.TempDir()
			for name, body := range tc.files {
				writeFile(t, filepath.Join(dir, name), body)
			}
			s := newSupervisor(t, dir, tc.opts...)
			rep, err := s.Check(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, rep)
		})
	}
}

// TestCheckerNeedsProject: tsc in a package.json project without
// tsconfig.json prints its help and exits 1, which read as "no findings";
// diagnostics "*" says why it did not run it instead.
func TestCheckerNeedsProject(t *testing.T) {
	testenv.RequireBinary(t, "tsc")
	dir := testenv.LSPProject(t, "tsproj")
	if err := os.Remove(filepath.Join(dir, "tsconfig.json")); err != nil {
		t.Fatal(err)
	}
	s := newSupervisor(t, dir)
	rep, err := s.Check(ctxT(t))
	want := "no project checker ran: package.json found, but no tsconfig.json or jsconfig.json: tsc has no project to check; create one; ask diagnostics for a file instead"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("want %q, got %v %+v", want, err, rep)
	}
}
