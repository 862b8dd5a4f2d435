package search

import "context"
import "encoding/json"
import "os"
import "os/exec"
import "path/filepath"
import "reflect"
import "sort"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// TestWalkIgnoreFilesAsAstGrep: which file is searched, as in ast-grep
// (hidden files are, hidden directories not; --globs), and which ignore file
// counts where, as in
// ast-grep (ripgrep's ignore crate): .gitignore only inside a git repository
// (a directory with .git at or above it) and only up to that repository's
// root; .ignore everywhere, in every parent directory, and over any
// .gitignore. Each case is also run through the pinned ast-grep, so the
// expectations are its behaviour, not our reading of it.
// globTree is a repository for the --globs cases.
var globTree = map[string]string{
	".git/HEAD": "ref: refs/heads/main\n", ".gitignore": "sub/c.go\n", ".hid.go": "package a\n", "a.go": "package a\n",
	"b_test.go": "package a\n", "sub/c.go": "package a\n", "sub/c_test.go": "package a\n", "sub/deep/d.go": "package a\n",
	"other/e.go": "package a\n", ".hd/x.go": "package a\n",
}

func TestWalkIgnoreFilesAsAstGrep(t *testing.T) {
	sg := testenv.RequireBinary(t, "ast-grep")
	const pkg = "package a\n"
	cases := []struct {
		name  string
		files map[string]string
		dir   string // walked, relative to the case's directory (the working directory)
		want  []string
		globs []string
	}{
		{"no repository: .gitignore does not count, .ignore does", map[string]string{
			".gitignore": "git.go\n", ".ignore": "dot.go\n", "a.go": pkg, "git.go": pkg, "dot.go": pkg,
		}, ".", []string{"a.go", "git.go"}, nil},
		{"repository: both count", map[string]string{
			".git/HEAD": "ref: refs/heads/main\n", ".gitignore": "git.go\n", ".ignore": "dot.go\n", "a.go": pkg, "git.go": pkg, "dot.go": pkg,
		}, ".", []string{"a.go"}, nil},
		{"no repository: a parent's .ignore counts", map[string]string{
			".ignore": "dot.go\n", ".gitignore": "git.go\n", "sub/a.go": pkg, "sub/git.go": pkg, "sub/dot.go": pkg,
		}, "sub", []string{"a.go", "git.go"}, nil},
		{"a repository below the walked directory", map[string]string{
			".gitignore": "a.go\n", "a.go": pkg, "proj/.git/HEAD": "ref: refs/heads/main\n", "proj/.gitignore": "git.go\n",
			"proj/a.go": pkg, "proj/git.go": pkg, "proj/b.go": pkg,
		}, ".", []string{"a.go", "proj/a.go", "proj/b.go"}, nil},
		{"a .gitignore above the repository's root does not count", map[string]string{
			".gitignore": "a.go\n", "repo/.git/HEAD": "ref: refs/heads/main\n", "repo/a.go": pkg, "repo/b.go": pkg,
		}, "repo", []string{"a.go", "b.go"}, nil},
		{".ignore's negation beats a nearer .gitignore", map[string]string{
			".git/HEAD": "ref: refs/heads/main\n", ".ignore": "!keep.go\n", "sub/.gitignore": "*.go\n", "sub/keep.go": pkg, "sub/b.go": pkg,
		}, ".", []string{"sub/keep.go"}, nil},
		{"hidden files are searched, hidden directories are not", map[string]string{
			".h.go": pkg, ".d/x.go": pkg, "s/.y.go": pkg, "a.go": pkg,
		}, ".", []string{".h.go", "a.go", "s/.y.go"}, nil},
		{"--globs: an include keeps only what it matches", globTree, ".", []string{"b_test.go", "sub/c_test.go"}, []string{"*_test.go"}},
		{"--globs: an exclude", globTree, ".", []string{".hid.go", "a.go", "other/e.go", "sub/deep/d.go"}, []string{"!*_test.go"}},
		{"--globs: an include beats .gitignore", globTree, ".", []string{"sub/c.go", "sub/c_test.go"}, []string{"sub/*.go"}},
		{"--globs: relative to the working directory, not the walked one", globTree, "sub", []string{"c_test.go"}, []string{"*_test.go"}},
		{"--globs: an excluded directory is not entered", globTree, ".", []string{}, []string{"!sub", "sub/c_test.go"}},
		{"--globs: the later glob wins", globTree, ".", []string{".hid.go", "a.go", "b_test.go", "other/e.go"}, []string{"*.go", "!sub"}},
		{"--globs: a glob with a slash is anchored", globTree, ".", []string{}, []string{"deep/*.go"}},
		{"--globs: ** below a directory", globTree, ".", []string{"sub/c.go", "sub/c_test.go", "sub/deep/d.go"}, []string{"sub/**"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			for d := filepath.Dir(base); ; d = filepath.Dir(d) {
				if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
					t.Skipf("the temporary directory is inside the git repository %s: the cases need one outside any", d)
				}
				if filepath.Dir(d) == d {
					break
				}
			}
			t.Setenv("HOME", base) // no global excludes file
			t.Setenv("XDG_CONFIG_HOME", "")
			testenv.WriteFiles(t, base, c.files)
			dir := filepath.Join(base, c.dir)
			gl, err := compileGlobsAt(c.globs, base)
			if err != nil {
				t.Fatal(err)
			}
			var sk Skips
			files, err := walk(context.Background(), nil, dir, "go", &sk, gl)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, f := range files {
				r, _ := filepath.Rel(dir, f)
				got = append(got, filepath.ToSlash(r))
			}
			args := []string{"run", "-p", "package $P", "-l", "go", "--json=compact"}
			for _, g := range c.globs {
				args = append(args, "--globs", g)
			}
			cmd := exec.Command(sg, append(args, c.dir)...)
			cmd.Dir = base
			cmd.Env = append(os.Environ(), "HOME="+base, "XDG_CONFIG_HOME=")
			out, _ := cmd.Output()
			var ms []struct{ File string }
			if err := json.Unmarshal(out, &ms); err != nil {
				t.Fatalf("ast-grep: %v: %s", err, out)
			}
			peer := []string{}
			for _, m := range ms {
				r, _ := filepath.Rel(c.dir, m.File)
				peer = append(peer, filepath.ToSlash(r))
			}
			sort.Strings(peer)
			if !reflect.DeepEqual(peer, c.want) {
				t.Fatalf("the case is wrong: ast-grep 0.51.1 searches %v, the case wants %v", peer, c.want)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("walk = %v, want %v (as ast-grep)", got, c.want)
			}
		})
	}
}
