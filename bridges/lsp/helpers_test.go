package lsp_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/bridges/lsp"
	"github.com/tetherhq/tether/internal/testenv"
)

// copyProject copies testdata/lsp/NAME into a fresh temp dir (tests change files).
func copyProject(t testing.TB, name string) string {
	t.Helper()
	src := filepath.Join(testenv.RepoRoot(), "testdata", "lsp", name)
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(dst); err == nil {
		dst = real
	}
	return dst
}

func newSupervisor(t testing.TB, dir string, opts ...lsp.Option) *lsp.Supervisor {
	t.Helper()
	opts = append([]lsp.Option{lsp.WithEnv(testenv.WithPeersOnPath()), lsp.WithDiagnosticsTimeout(20 * time.Second)}, opts...)
	s, err := lsp.New(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// hasLoc reports whether locs has one at path:line.
func hasLoc(locs []lsp.Location, path string, line int) bool {
	for _, l := range locs {
		if l.Path == path && l.Line == line {
			return true
		}
	}
	return false
}

func locStrings(locs []lsp.Location) string {
	var s []string
	for _, l := range locs {
		s = append(s, l.String())
	}
	return strings.Join(s, "\n")
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sleep() { time.Sleep(100 * time.Millisecond) }
