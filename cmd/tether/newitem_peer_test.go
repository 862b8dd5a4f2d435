package main

import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// TestNewAsPeer runs `tether new` and the pinned ast-grep's new, each in a
// directory of its own, through a project's life: the project, a rule (and
// its test), a util, a test, each again (refused), and the errors of no
// project, no name or language and no directory for the item. Both must
// exit alike and leave the same files; ast-grep's sgconfig.yml names its
// directories by absolute path, tether's relative to it (docs/search.md),
// so it is compared with the paths made relative.
func TestNewAsPeer(t *testing.T) {
	sg := testenv.RequireBinary(t, "ast-grep")
	peer, mine := t.TempDir(), t.TempDir()
	steps := []struct {
		args []string
		exit int
	}{
		{[]string{"new", "rule", "r1", "-l", "js", "-y"}, 3},
		{[]string{"new", "project", "-y"}, 0},
		{[]string{"new", "project", "-y"}, 17},
		{[]string{"new", "rule", "no-eval", "-l", "ts", "-y"}, 0},
		{[]string{"new", "rule", "no-eval", "-l", "ts", "-y"}, 17},
		{[]string{"new", "util", "is-call", "--lang", "rust", "-y"}, 0},
		{[]string{"new", "util", "is-call", "--lang", "rust", "-y"}, 17},
		{[]string{"new", "test", "other", "-y"}, 0},
		{[]string{"new", "test", "other", "-y"}, 17},
		{[]string{"new", "rule", "-l", "js", "-y"}, 22},
		{[]string{"new", "rule", "nolang", "-y"}, 22},
	}
	for _, st := range steps {
		want, _, wantErr := peerRunIn(t, sg, peer, st.args...)
		code, _, errOut := tetherIn(t, mine, st.args...)
		if want != st.exit {
			t.Errorf("ast-grep %v exits %d, not %d as it did when this test was written: %s", st.args, want, st.exit, wantErr)
		}
		if code != want {
			t.Errorf("tether %v exits %d, ast-grep %d\ntether: %s\nast-grep: %s", st.args, code, want, errOut, wantErr)
		}
	}
	compareNewTrees(t, peer, mine)

	// a project with no testDir or utilDirs: 5 for a test or util, and a
	// rule written before its test is refused
	for _, d := range []string{peer, mine} {
		if err := os.WriteFile(filepath.Join(d, "sgconfig.yml"), []byte("ruleDirs: [rules]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"new", "test", "t2", "-y"}, {"new", "util", "u2", "-l", "go", "-y"}, {"new", "rule", "r2", "-l", "go", "-y"}} {
		want, _, _ := peerRunIn(t, sg, peer, args...)
		code, _, errOut := tetherIn(t, mine, args...)
		if want != 5 || code != want {
			t.Errorf("%v: tether exits %d, ast-grep %d (want 5): %s", args, code, want, errOut)
		}
	}
	compareNewTrees(t, peer, mine)
}

// compareNewTrees checks that the trees hold the same files with the same
// content, sgconfig.yml with peer's absolute paths made relative to it.
func compareNewTrees(t *testing.T, peer, mine string) {
	t.Helper()
	a, b := treeFiles(t, peer), treeFiles(t, mine)
	if len(a) == 0 {
		t.Fatal("ast-grep wrote nothing")
	}
	for p, want := range a {
		got, ok := b[p]
		switch {
		case !ok:
			t.Errorf("tether did not write %s", p)
		case p == "sgconfig.yml":
			if rel := strings.ReplaceAll(want, peer+string(filepath.Separator), ""); got != rel {
				t.Errorf("sgconfig.yml differs\ntether:\n%s\nast-grep (paths made relative):\n%s", got, rel)
			}
		case got != want:
			t.Errorf("%s differs\ntether:\n%q\nast-grep:\n%q", p, got, want)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			t.Errorf("tether wrote %s, ast-grep did not", p)
		}
	}
}
