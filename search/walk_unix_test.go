//go:build unix

package search

import "context"
import "os"
import "path/filepath"
import "strings"
import "syscall"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// TestWalkRepositoryFilesNeverBlockOrFlood: the repository files the walk
// reads for its excludes are the workspace's to make, and a pipe, a device or
// a link to one among them is skipped: a .git that is a named pipe, an
// info/exclude linked to /dev/zero (read to its end: all memory) or to a
// pipe, or a core.excludesFile naming one (the search hung on the pipe).
func TestWalkRepositoryFilesNeverBlockOrFlood(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for _, c := range []struct {
		name  string
		setup func(repo string) error
	}{
		{".git is a named pipe", func(repo string) error { return syscall.Mkfifo(filepath.Join(repo, ".git"), 0o644) }},
		{"info/exclude links to a pipe", func(repo string) error {
			testenv.WriteFiles(t, repo, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
			os.MkdirAll(filepath.Join(repo, ".git", "info"), 0o755)
			return os.Symlink(fifo, filepath.Join(repo, ".git", "info", "exclude"))
		}},
		{"info/exclude links to /dev/zero", func(repo string) error {
			testenv.WriteFiles(t, repo, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
			os.MkdirAll(filepath.Join(repo, ".git", "info"), 0o755)
			return os.Symlink("/dev/zero", filepath.Join(repo, ".git", "info", "exclude"))
		}},
		{"core.excludesFile names a pipe", func(repo string) error {
			testenv.WriteFiles(t, repo, map[string]string{".git/config": "[core]\n\texcludesFile = " + fifo + "\n"})
			return nil
		}},
		{"worktree commondir is a pipe", func(repo string) error {
			gd := filepath.Join(filepath.Dir(repo), "gd")
			os.MkdirAll(gd, 0o755)
			testenv.WriteFiles(t, repo, map[string]string{".git": "gitdir: " + gd + "\n"})
			return syscall.Mkfifo(filepath.Join(gd, "commondir"), 0o644)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			repo := filepath.Join(t.TempDir(), "repo")
			testenv.WriteFiles(t, repo, map[string]string{"a.go": "package a\n", "sub/b.go": "package sub\n"})
			if _, err := os.Stat("/dev/zero"); err != nil && strings.Contains(c.name, "/dev/zero") {
				t.Skip("no /dev/zero")
			}
			if err := c.setup(repo); err != nil {
				t.Fatal(err)
			}
			var files []string
			testenv.Bounded(t, "walk", func() {
				var sk Skips
				var err error
				if files, err = walk(context.Background(), nil, repo, "go", &sk, nil); err != nil {
					t.Fatal(err)
				}
			})
			if len(files) != 2 {
				t.Errorf("walk = %v, want a.go and sub/b.go", files)
			}
		})
	}
}
