package main

import "os"
import "os/exec"
import "path/filepath"
import "sort"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// peerSrc has what JSON encoders disagree on: HTML characters (&, <, >),
// a non-ASCII character before a match (character columns), a control
// character and a match longer than the 2000 bytes the tools cut at.
var peerSrc = "fn m(&self) -> bool { a < b && c > d }\n" +
	"fn ü(x: &str) -> &str { \"\\t\u2028\" }\n" +
	"fn long() -> u8 { " + strings.Repeat("f(1); ", 500) + "}\n"

// TestAstGrepCLIMatchesPeerBytes: `tether ast-grep --json` prints what the
// pinned ast-grep prints, byte for byte, in each of its three styles, and
// exits as it does. Patterns bind at most one metavariable: ast-grep prints
// several in hash order, which varies from run to run.
func TestAstGrepCLIMatchesPeerBytes(t *testing.T) {
	sg := testenv.RequireBinary(t, "ast-grep")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.rs"), []byte(peerSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, pattern string }{
		{"html characters and unicode", "fn $F($$$) -> $_ { $$$ }"},
		{"long match", "fn long() -> u8 { $$$ }"},
		{"binary expression", "$A && c > d"},
		{"no match", "fn nothing() {}"},
	}
	for _, tt := range tests {
		for _, style := range []string{"--json", "--json=pretty", "--json=compact", "--json=stream"} {
			t.Run(tt.name+" "+style, func(t *testing.T) {
				file := filepath.Join(dir, "a.rs")
				want, err := exec.Command(sg, "run", "-p", tt.pattern, "-l", "rust", style, file).Output()
				wantCode := 0
				if ee, ok := err.(*exec.ExitError); ok {
					wantCode = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				code, got, errOut := runCLI(t, "-p", tt.pattern, "-l", "rust", style, file)
				if code != wantCode {
					t.Errorf("exit %d, ast-grep %d (%s)", code, wantCode, errOut)
				}
				if got != string(want) {
					i := firstDiff([]byte(got), want)
					t.Errorf("output differs from the pinned ast-grep's at byte %d:\nast-grep: %q\ntether:   %q",
						i, around(string(want), i), around(got, i))
				}
			})
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// around shows s near byte i.
func around(s string, i int) string {
	return s[max(i-80, 0):min(i+80, len(s))]
}

// TestAstGrepCLIUpdateAllAsPeer: -U writes the same files as ast-grep, says
// "Applied N changes" on stderr as it does (N counts every replacement made,
// one that leaves the text as it was too; nothing when nothing matched),
// prints nothing on stdout, and exits as it does.
func TestAstGrepCLIUpdateAllAsPeer(t *testing.T) {
	sg := testenv.RequireBinary(t, "ast-grep")
	files := map[string]string{
		"a.go": "package p\n\nfunc _() {\n\tf(a)\n\tf(f(b))\n}\n",
		"b.go": "package p\n\nfunc _() { f(c) }\n",
		"c.go": "package p\n",
	}
	tests := []struct{ name, pattern, rewrite string }{
		{"rewrites", "f($A)", "g($A)"},
		{"one change", "f(c)", "h(c)"},
		{"rewrite leaves the text as it was", "f($A)", "f($A)"},
		{"no match", "nothing($A)", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			theirs, ours := t.TempDir(), t.TempDir()
			for _, dir := range []string{theirs, ours} {
				testenv.WriteFiles(t, dir, files)
			}
			cmd := exec.Command(sg, "run", "-p", tt.pattern, "-r", tt.rewrite, "-l", "go", "-U", theirs)
			var agOut, agErr strings.Builder
			cmd.Stdout, cmd.Stderr = &agOut, &agErr
			wantCode := 0
			if err := cmd.Run(); err != nil {
				ee, ok := err.(*exec.ExitError)
				if !ok {
					t.Fatal(err)
				}
				wantCode = ee.ExitCode()
			}
			code, out, errOut := runCLI(t, "-p", tt.pattern, "-r", tt.rewrite, "-l", "go", "-U", ours)
			if code != wantCode {
				t.Errorf("exit %d, ast-grep %d", code, wantCode)
			}
			if out != agOut.String() {
				t.Errorf("stdout %q, ast-grep %q", out, agOut.String())
			}
			// ast-grep prints only "Applied N changes"; ours may add a note
			// after it (as "no matches in 3 files")
			if want := agErr.String(); !strings.HasPrefix(errOut, want) || want == "" && strings.Contains(errOut, "Applied") {
				t.Errorf("stderr %q, ast-grep %q", errOut, want)
			}
			for name := range files {
				a, _ := os.ReadFile(filepath.Join(theirs, name))
				b, _ := os.ReadFile(filepath.Join(ours, name))
				if string(a) != string(b) {
					t.Errorf("%s: ast-grep wrote %q, tether %q", name, a, b)
				}
			}
		})
	}
}

// TestAstGrepCLIGlobsAsPeer: --globs includes and excludes files as
// ast-grep's does (repeatable, the later winning).
func TestAstGrepCLIGlobsAsPeer(t *testing.T) {
	sg := testenv.RequireBinary(t, "ast-grep")
	dir := t.TempDir()
	for _, name := range []string{"a.go", "a_test.go", "sub/b.go", "sub/b_test.go", "gen/c.go"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package p\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, globs := range [][]string{{"*_test.go"}, {"!*_test.go"}, {"!*_test.go", "!gen"}, {"*.go", "!sub"}} {
		t.Run(strings.Join(globs, " "), func(t *testing.T) {
			args := []string{"-p", "package $P", "-l", "go", "--json=stream"}
			for _, g := range globs {
				args = append(args, "--globs", g)
			}
			args = append(args, dir)
			want := peerRun(t, sg, args...)
			_, got, _ := runCLI(t, args...)
			files := func(out string) []string {
				var fs []string
				for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
					if i := strings.Index(l, `"file":"`); i >= 0 {
						f := l[i+len(`"file":"`):]
						fs = append(fs, f[:strings.IndexByte(f, '"')])
					}
				}
				sort.Strings(fs)
				return fs
			}
			if a, b := files(want), files(got); strings.Join(a, " ") != strings.Join(b, " ") {
				t.Errorf("--globs %v: ast-grep searched %v, tether %v", globs, a, b)
			}
		})
	}
}

// TestAstGrepCLIHumanFlagsAsPeer: the human output's flags print what
// ast-grep prints when its output is not a terminal: -A, -B, -C (groups
// that do not touch separated by "--"), --color=always (the match bold red,
// file and line plain), --color=never, --heading=always and
// --files-with-matches.
func TestAstGrepCLIHumanFlagsAsPeer(t *testing.T) {
	sg := testenv.RequireBinary(t, "ast-grep")
	dir := t.TempDir()
	file := filepath.Join(dir, "b.go")
	src := "package p\nfunc _() {\n\tf(a)\n\tx()\n\tx()\n\tx()\n\tx()\n\tf(b); f(g(c),\n\t\td)\n\tx()\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{
		{"-A", "1"}, {"-B", "1"}, {"-C", "2"}, {"--context", "1"}, {"--color=always"}, {"--color", "never"},
		{"-C", "1", "--color=always"}, {"--heading=always"}, {"--files-with-matches"},
	} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			args := append([]string{"-p", "f($$$A)", "-l", "go"}, append(flags, file)...)
			want := peerRun(t, sg, args...)
			code, got, errOut := runCLI(t, args...)
			if code != 0 || got != want {
				t.Errorf("exit %d (%s)\nast-grep: %q\ntether:   %q", code, errOut, want, got)
			}
		})
	}
}

// TestAstGrepCLIIncludeErrors: -U leaves a file with a syntax error as it
// is and names it with its line on stderr, after ast-grep's words;
// --include-errors rewrites it too.
func TestAstGrepCLIIncludeErrors(t *testing.T) {
	const broken = "package p\n\nfunc _() { f(a) }\n\nfunc g() { x := }\n"
	const clean = "package p\n\nfunc _() { f(b) }\n"
	for _, include := range []bool{false, true} {
		dir := t.TempDir()
		for name, body := range map[string]string{"broken.go": broken, "clean.go": clean} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		args := []string{"-p", "f($A)", "-r", "g($A)", "-l", "go", "-U", dir}
		if include {
			args = append(args, "--include-errors")
		}
		code, _, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("include=%v: exit %d: %s", include, code, errOut)
		}
		got, _ := os.ReadFile(filepath.Join(dir, "broken.go"))
		cl, _ := os.ReadFile(filepath.Join(dir, "clean.go"))
		if !strings.Contains(string(cl), "g(b)") {
			t.Errorf("include=%v: clean.go not rewritten:\n%s", include, cl)
		}
		if include {
			if !strings.Contains(string(got), "g(a)") || strings.Contains(errOut, "left out") {
				t.Errorf("--include-errors: broken.go:\n%s\nstderr: %s", got, errOut)
			}
			continue
		}
		if string(got) != broken {
			t.Errorf("broken.go rewritten without --include-errors:\n%s", got)
		}
		if !strings.HasPrefix(errOut, "Applied 1 changes\n") || !strings.Contains(errOut, "left out 1 file with syntax errors") || !strings.Contains(errOut, "broken.go:5") || !strings.Contains(errOut, "--include-errors") {
			t.Errorf("stderr does not name the file left out after ast-grep's words: %q", errOut)
		}
	}
}
