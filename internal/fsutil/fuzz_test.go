package fsutil

import "os"
import "path/filepath"
import "testing"

// FuzzResolve: whatever the path, Resolve either refuses it or returns a real
// path inside the root (the fixture has links that lead in, out and around).
func FuzzResolve(f *testing.F) {
	parent := f.TempDir()
	dir := filepath.Join(parent, "root")
	os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(parent, "secret"), []byte("s"), 0o644)
	os.Symlink("..", filepath.Join(dir, "up"))
	os.Symlink("../secret", filepath.Join(dir, "sec"))
	os.Symlink("a/b", filepath.Join(dir, "ab"))
	os.Symlink("../../up", filepath.Join(dir, "a", "b", "upup"))
	os.Symlink(parent, filepath.Join(dir, "abs"))
	os.Symlink("self", filepath.Join(dir, "self"))
	r, err := NewRoot(dir)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"a/b", "up/secret", "ab/../..", "a/b/upup/root", "abs/root/a", "sec", "self/x", "/", dir + "/ab/c", "a/./../a//b/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		real, rel, err := r.Resolve(p)
		if err != nil {
			return
		}
		if !within(r.RealDir(), real) {
			t.Fatalf("Resolve(%q) = %q (%q), outside %q", p, real, rel, r.RealDir())
		}
		if back, err := filepath.Rel(r.RealDir(), real); err != nil || filepath.ToSlash(back) != rel {
			t.Fatalf("Resolve(%q): rel %q does not match %q", p, rel, real)
		}
	})
}
