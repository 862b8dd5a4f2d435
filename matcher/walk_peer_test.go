package matcher

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/testenv"
)

// TestWalkIgnoreFilesAsAstGrep: which ignore file counts where, as in
// ast-grep (ripgrep's ignore crate): .gitignore only inside a git repository
// (a directory with .git at or above it) and only up to that repository's
// root; .ignore everywhere, in every parent directory, and over any
// .gitignore. Each case is also run through the pinned ast-grep, so the
// expectations are its behaviour, not our reading of it.
func TestWalkIgnoreFilesAsAstGrep(t *testing.T) {
	sg := testenv.RequireBinary(t, "ast-grep")
	const pkg = "package a\n"
	cases := []struct {
		name  string
		files map[string]string
		dir   string // walked, relative to the case's directory
		want  []string
	}{
		{"no repository: .gitignore does not count, .ignore does", map[string]string{
			".gitignore": "git.go\n", ".ignore": "dot.go\n", "a.go": pkg, "git.go": pkg, "dot.go": pkg,
		}, ".", []string{"a.go", "git.go"}},
		{"repository: both count", map[string]string{
			".git/HEAD": "ref: refs/heads/main\n", ".gitignore": "git.go\n", ".ignore": "dot.go\n", "a.go": pkg, "git.go": pkg, "dot.go": pkg,
		}, ".", []string{"a.go"}},
		{"no repository: a parent's .ignore counts", map[string]string{
			".ignore": "dot.go\n", ".gitignore": "git.go\n", "sub/a.go": pkg, "sub/git.go": pkg, "sub/dot.go": pkg,
		}, "sub", []string{"a.go", "git.go"}},
		{"a repository below the walked directory", map[string]string{
			".gitignore": "a.go\n", "a.go": pkg, "proj/.git/HEAD": "ref: refs/heads/main\n", "proj/.gitignore": "git.go\n",
			"proj/a.go": pkg, "proj/git.go": pkg, "proj/b.go": pkg,
		}, ".", []string{"a.go", "proj/a.go", "proj/b.go"}},
		{"a .gitignore above the repository's root does not count", map[string]string{
			".gitignore": "a.go\n", "repo/.git/HEAD": "ref: refs/heads/main\n", "repo/a.go": pkg, "repo/b.go": pkg,
		}, "repo", []string{"a.go", "b.go"}},
		{".ignore's negation beats a nearer .gitignore", map[string]string{
			".git/HEAD": "ref: refs/heads/main\n", ".ignore": "!keep.go\n", "sub/.gitignore": "*.go\n", "sub/keep.go": pkg, "sub/b.go": pkg,
		}, ".", []string{"sub/keep.go"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			t.Setenv("HOME", base) // no global excludes file
			t.Setenv("XDG_CONFIG_HOME", "")
			writeTree(t, base, c.files)
			dir := filepath.Join(base, c.dir)
			var sk Skips
			files, err := walk(dir, "go", &sk)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, f := range files {
				r, _ := filepath.Rel(dir, f)
				got = append(got, filepath.ToSlash(r))
			}
			cmd := exec.Command(sg, "run", "-p", "package $P", "-l", "go", "--json=compact", ".")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+base, "XDG_CONFIG_HOME=")
			out, _ := cmd.Output()
			var ms []struct{ File string }
			if err := json.Unmarshal(out, &ms); err != nil {
				t.Fatalf("ast-grep: %v: %s", err, out)
			}
			peer := []string{}
			for _, m := range ms {
				peer = append(peer, strings.TrimPrefix(filepath.ToSlash(m.File), "./"))
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
