package search

import "context"
import "fmt"
import "os"
import "path/filepath"
import "reflect"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

func TestWalkRespectsIgnores(t *testing.T) {
	root := t.TempDir()
	testenv.WriteFiles(t, root, map[string]string{
		".git/HEAD":              "ref: refs/heads/main\n",
		".gitignore":             "# build output\n/gen/\n*_gen.go\n!keep_gen.go\nvendor/\ndocs/**/*.go\n",
		"a.go":                   "package a\n",
		"b.py":                   "x = 1\n",
		"x_gen.go":               "package a\n",
		"keep_gen.go":            "package a\n",
		"gen/g.go":               "package gen\n",
		"sub/gen/g.go":           "package gen\n", // /gen/ is anchored: this one stays
		"sub/vendor/v.go":        "package v\n",
		"sub/.ignore":            "local.go\n",
		"sub/local.go":           "package sub\n",
		"sub/ok.go":              "package sub\n",
		".hidden/h.go":           "package h\n",
		"docs/a/b/c.go":          "package c\n",
		"docs/top.txt":           "not go\n",
		"sub/deeper/.gitignore":  "*\n!*.go\n",
		"sub/deeper/d.go":        "package d\n",
		"sub/deeper/notes.go.md": "x\n",
	})
	var sk Skips
	files, err := walk(context.Background(), nil, root, "go", &sk, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, f := range files {
		r, _ := filepath.Rel(root, f)
		rel = append(rel, filepath.ToSlash(r))
	}
	want := []string{"a.go", "keep_gen.go", "sub/deeper/d.go", "sub/gen/g.go", "sub/ok.go"}
	if !reflect.DeepEqual(rel, want) {
		t.Errorf("walk = %v, want %v", rel, want)
	}
	if sk.Hidden != 2 { // .git and .hidden
		t.Errorf("hidden = %d, want 2", sk.Hidden)
	}
	if sk.Ignored < 5 {
		t.Errorf("ignored = %d, want at least 5 (%+v)", sk.Ignored, sk)
	}

	// a subdirectory walk still honours the repository's ignore files above it
	sk = Skips{}
	files, err = walk(context.Background(), nil, filepath.Join(root, "sub"), "go", &sk, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Errorf("walk(sub) = %v, want deeper/d.go, gen/g.go, ok.go", files)
	}

	// a file given explicitly is searched even when ignored
	files, _ = walk(context.Background(), nil, filepath.Join(root, "x_gen.go"), "go", &sk, nil)
	if len(files) != 1 {
		t.Errorf("explicit file: %v", files)
	}
}

func TestIgnoreGlobs(t *testing.T) {
	tests := []struct {
		rule, path string
		dir, want  bool
	}{
		{"*.log", "a/b/c.log", false, true},
		{"/top.txt", "top.txt", false, true},
		{"/top.txt", "a/top.txt", false, false},
		{"build/", "build", false, false},
		{"build/", "x/build", true, true},
		{"a/**/z", "a/z", false, true},
		{"a/**/z", "a/b/c/z", false, true},
		{"**/foo", "x/y/foo", false, true},
		{"f[0-9].go", "f7.go", false, true},
		{"f[!0-9].go", "f7.go", false, false},
		{"?.go", "ab.go", false, false},
		{"lib/**", "lib/x/y.go", false, true},
	}
	for _, tt := range tests {
		set := &ignoreSet{base: "/r", rules: parseIgnore([]byte(tt.rule))}
		if got := ignored([]*ignoreSet{set}, "/r/"+tt.path, tt.dir); got != tt.want {
			t.Errorf("rule %q on %q (dir %v) = %v, want %v", tt.rule, tt.path, tt.dir, got, tt.want)
		}
	}
}

// TestWalkRepositoryExcludes: like git (and ast-grep), a walk inside a
// repository honours $GIT_DIR/info/exclude and core.excludesFile (the
// default $XDG_CONFIG_HOME/git/ignore, or the file the global or the
// repository's git config names), below every .gitignore in precedence, and
// only inside a repository.
func TestWalkRepositoryExcludes(t *testing.T) {
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_DIR", "")
	rel := func(root string, files []string) []string {
		var out []string
		for _, f := range files {
			r, _ := filepath.Rel(root, f)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	all := map[string]string{
		"a.go": "package a\n", "b.go": "package a\n", "c.go": "package a\n", "d.go": "package a\n", "keep.go": "package a\n",
		"sub/a.go": "package sub\n", "sub/b.go": "package sub\n", "sub/keep.go": "package sub\n",
	}
	cases := []struct {
		name  string
		files map[string]string
		dir   string // walked, relative to the repository
		want  []string
	}{
		{"info/exclude", map[string]string{
			".git/HEAD": "ref: refs/heads/main\n", ".git/info/exclude": "# local\na.go\n/b.go\n",
		}, ".", []string{"c.go", "d.go", "keep.go", "sub/b.go", "sub/keep.go"}},
		{"info/exclude from a subdirectory", map[string]string{
			".git/HEAD": "ref: refs/heads/main\n", ".git/info/exclude": "a.go\n",
		}, "sub", []string{"b.go", "keep.go"}},
		{"gitignore negation wins over info/exclude", map[string]string{
			".git/HEAD": "ref: refs/heads/main\n", ".git/info/exclude": "*.go\n", ".gitignore": "!keep.go\n",
		}, ".", []string{"keep.go", "sub/keep.go"}},
		{"default global excludes file", map[string]string{
			".git/HEAD": "ref: refs/heads/main\n", "../home/.config/git/ignore": "c.go\n",
		}, ".", []string{"a.go", "b.go", "d.go", "keep.go", "sub/a.go", "sub/b.go", "sub/keep.go"}},
		{"core.excludesFile in ~/.gitconfig", map[string]string{
			".git/HEAD": "ref: refs/heads/main\n", "../home/.config/git/ignore": "c.go\n",
			"../home/.gitconfig": "[user]\n\tname = x\n[core]\n\texcludesFile = ~/my-ignores ; comment\n", "../home/my-ignores": "d.go\nsub/\n",
		}, ".", []string{"a.go", "b.go", "c.go", "keep.go"}},
		{"core.excludesFile in the repository's config", map[string]string{
			".git/HEAD": "ref: refs/heads/main\n", ".git/config": "[core]\n\tbare = false\n\texcludesfile = \"~/repo-ignores\"\n",
			"../home/repo-ignores": "b.go\n",
		}, ".", []string{"a.go", "c.go", "d.go", "keep.go", "sub/a.go", "sub/keep.go"}},
		{"worktree: .git file, exclude in the common directory", map[string]string{
			".git": "gitdir: ../main/.git/worktrees/wt\n", "../main/.git/worktrees/wt/commondir": "../..\n",
			"../main/.git/info/exclude": "a.go\n",
		}, ".", []string{"b.go", "c.go", "d.go", "keep.go", "sub/b.go", "sub/keep.go"}},
		{"no repository: no excludes", map[string]string{
			"../home/.config/git/ignore": "c.go\n",
		}, ".", []string{"a.go", "b.go", "c.go", "d.go", "keep.go", "sub/a.go", "sub/b.go", "sub/keep.go"}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			os.RemoveAll(home)
			base := filepath.Join(tmp, fmt.Sprint(i))
			repo := filepath.Join(base, "repo")
			if err := os.MkdirAll(repo, 0o755); err != nil {
				t.Fatal(err)
			}
			testenv.WriteFiles(t, repo, all)
			for name, body := range c.files {
				if strings.HasPrefix(name, "../home/") {
					testenv.WriteFiles(t, home, map[string]string{strings.TrimPrefix(name, "../home/"): body})
					continue
				}
				testenv.WriteFiles(t, repo, map[string]string{name: body})
			}
			var sk Skips
			dir := filepath.Join(repo, c.dir)
			files, err := walk(context.Background(), nil, dir, "go", &sk, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := rel(dir, files); !reflect.DeepEqual(got, c.want) {
				t.Errorf("walk = %v, want %v", got, c.want)
			}
		})
	}
}

// TestWalkCountsHiddenFiles: a hidden file is searched, as ast-grep
// searches it; a hidden directory is skipped whole and counted.
func TestWalkCountsHiddenFiles(t *testing.T) {
	root := t.TempDir()
	testenv.WriteFiles(t, root, map[string]string{"a.go": "package a\n", ".b.go": "package a\n", ".c.py": "x\n", ".env": "X=1\n", ".d/e.go": "package d\n"})
	var sk Skips
	files, err := walk(context.Background(), nil, root, "go", &sk, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || filepath.Base(files[0]) != ".b.go" || sk.Hidden != 1 || len(sk.Examples) != 1 || !strings.Contains(sk.Examples[0], ".d") {
		t.Errorf("walk = %v, skips %+v; want .b.go and a.go, and .d counted hidden", files, sk)
	}
}
