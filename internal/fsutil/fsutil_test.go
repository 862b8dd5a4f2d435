package fsutil

import "errors"
import "os"
import "path/filepath"
import "strings"
import "testing"

func setup(t *testing.T) (*Root, string, string) {
	t.Helper()
	dir, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(dir, "a", "b", "f.txt"), []byte("f"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "out"))
	os.Symlink("a/b", filepath.Join(dir, "in"))
	os.Symlink("../..", filepath.Join(dir, "a", "b", "up2"))    // back to root: inside
	os.Symlink("../../..", filepath.Join(dir, "a", "b", "up3")) // one above root
	os.Symlink("loop", filepath.Join(dir, "loop"))
	os.Symlink(filepath.Join(outside, "nope"), filepath.Join(dir, "dangle"))
	r, err := NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r, dir, outside
}

func TestResolve(t *testing.T) {
	r, dir, outside := setup(t)
	real := r.RealDir()
	tests := []struct {
		path    string
		rel     string // "" = refused
		outside bool
	}{
		{"a/b/f.txt", "a/b/f.txt", false},
		{"./a//b/../b/f.txt", "a/b/f.txt", false},
		{"new/dir/file", "new/dir/file", false},
		{"in/f.txt", "a/b/f.txt", false},
		{"in/new.txt", "a/b/new.txt", false},
		{"a/b/up2/a/b/f.txt", "a/b/f.txt", false},
		{filepath.Join(dir, "a"), "a", false},
		{".", ".", false},
		{"..", "", true},
		{"a/../../x", "", true},
		{"out", "", true},
		{"out/new.txt", "", true},
		{"a/b/up3", "", true},
		{"a/b/up3/x", "", true},
		{"dangle", "", true},
		{filepath.Join(outside, "x"), "", true},
		{"/", "", true},
		{"loop", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, rel, err := r.Resolve(tt.path)
			if tt.rel == "" {
				if err == nil {
					t.Fatalf("resolved to %s, want refusal", got)
				}
				if errors.Is(err, ErrOutside) != tt.outside {
					t.Fatalf("err %v: outside=%v, want %v", err, errors.Is(err, ErrOutside), tt.outside)
				}
				if !strings.HasPrefix(err.Error(), "fsutil: ") {
					t.Errorf("error %q lacks the package prefix", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rel != tt.rel || got != filepath.Join(real, filepath.FromSlash(tt.rel)) {
				t.Fatalf("got %s (%s), want %s", got, rel, tt.rel)
			}
		})
	}
}

func TestApplyRollsBackLateFailure(t *testing.T) {
	r, dir, _ := setup(t)
	f := filepath.Join(dir, "a", "b", "f.txt")
	os.Chmod(f, 0o600)
	testHookBeforeChange = func(rel string) error {
		if rel == "z/last.txt" {
			return errors.New("disk full")
		}
		return nil
	}
	defer func() { testHookBeforeChange = nil }()
	_, err := r.Apply([]Change{
		{Path: "a/b/f.txt", Content: []byte("changed")},
		{Path: "new/deep/created.txt", Content: []byte("new")},
		{Path: "in/f2.txt", Content: []byte("x")},
		{Path: "z/last.txt", Content: []byte("boom")},
	})
	if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "rolled back") {
		t.Fatalf("err = %v", err)
	}
	requireContent(t, f, "f")
	if fi, _ := os.Stat(f); fi.Mode().Perm() != 0o600 {
		t.Errorf("f.txt mode %v after rollback", fi.Mode().Perm())
	}
	for _, p := range []string{"new", "a/b/f2.txt", "z"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind after rollback", p)
		}
	}
}

func TestApplyPreconditions(t *testing.T) {
	r, dir, _ := setup(t)
	tests := []struct {
		name string
		cs   []Change
		want string
	}{
		{"expected differs", []Change{{Path: "new.txt", Content: []byte("x")}, {Path: "a/b/f.txt", Content: []byte("y"), Expected: []byte("g")}}, "changed since"},
		{"must not exist", []Change{{Path: "a/b/f.txt", MustNotExist: true}}, "already exists"},
		{"delete missing", []Change{{Path: "none", Delete: true}}, "does not exist"},
		{"twice", []Change{{Path: "a/b/f.txt"}, {Path: "in/f.txt"}}, "changed twice"},
		{"directory", []Change{{Path: "a/b", Content: []byte("x")}}, "is a directory"},
		{"outside", []Change{{Path: "new.txt"}, {Path: "out/x"}}, "outside"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := r.Apply(tt.cs); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "new.txt")); err == nil {
				t.Fatal("new.txt was written")
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "a", "b", "f.txt")); string(b) != "f" {
				t.Fatalf("f.txt = %q", b)
			}
		})
	}
	got, err := r.Apply([]Change{{Path: "a/b/f.txt", Content: []byte("g"), Expected: []byte("f")}, {Path: "n/x", Content: []byte("x")}, {Path: "in/f.txt", Delete: true, MustExist: true}})
	if err == nil {
		t.Fatal("two changes of f.txt accepted")
	}
	got, err = r.Apply([]Change{{Path: "a/b/f.txt", Content: []byte("g"), Expected: []byte("f")}, {Path: "n/x", Content: []byte("x")}})
	if err != nil || len(got) != 2 || got[0].Created || !got[1].Created || got[1].Path != "n/x" {
		t.Fatalf("%+v %v", got, err)
	}
}

func TestWriteFileAtomicKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.sh")
	if err := WriteFileAtomic(p, []byte("a"), 0o700); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o700 {
		t.Errorf("new file mode %v", fi.Mode().Perm())
	}
	os.Chmod(p, 0o750)
	if err := WriteFileAtomic(p, []byte("b"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o750 {
		t.Errorf("replaced file mode %v, want 0750 kept", fi.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

// TestResolveThroughAFile: a path that goes on below a file says so, in terms
// of the working directory (no absolute path of this machine).
func TestResolveThroughAFile(t *testing.T) {
	r, _, _ := setup(t)
	_, _, err := r.Resolve("a/b/f.txt/x")
	if err == nil || !strings.Contains(err.Error(), "a/b/f.txt is a file, not a directory") || strings.Contains(err.Error(), r.RealDir()) {
		t.Fatalf("err = %v", err)
	}
}

// TestApplyLongName: a file whose name is near the file system's limit can
// be written (the temporary file's name must not exceed the limit).
func TestApplyLongName(t *testing.T) {
	r, dir, _ := setup(t)
	name := strings.Repeat("n", 250)
	if _, err := r.Apply([]Change{{Path: name, Content: []byte("x")}}); err != nil {
		t.Fatal(err)
	}
	requireContent(t, filepath.Join(dir, name), "x")
}
