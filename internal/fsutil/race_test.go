//go:build unix

package fsutil

import "errors"
import "io/fs"
import "os"
import "path/filepath"
import "strings"
import "syscall"
import "testing"

// swapForLink replaces the directory dir/sub with a symbolic link to target,
// as a process racing the tool would between the confinement check and the
// write.
func swapForLink(t *testing.T, dir, sub, target string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(sub))
	if err := os.Rename(p, p+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// TestApplyLinkSwappedInAfterCheck: a directory swapped for a link that
// leads out, after Resolve checked the path and before Apply writes, does not
// carry the write (or the delete) outside the root: Apply refuses with
// ErrOutside and leaves the outside untouched.
func TestApplyLinkSwappedInAfterCheck(t *testing.T) {
	tests := []struct {
		name   string
		change Change
	}{
		{"update", Change{Path: "a/b/f.txt", Content: []byte("pwned")}},
		{"create", Change{Path: "a/b/new.txt", Content: []byte("pwned")}},
		{"create below", Change{Path: "a/b/c/d/new.txt", Content: []byte("pwned")}},
		{"delete", Change{Path: "a/b/f.txt", Delete: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, dir, outside := setup(t)
			os.WriteFile(filepath.Join(outside, "f.txt"), []byte("outside"), 0o644)
			testHookBeforeChange = func(string) error {
				swapForLink(t, dir, "a/b", outside)
				return nil
			}
			defer func() { testHookBeforeChange = nil }()
			_, err := r.Apply([]Change{tt.change})
			if !errors.Is(err, ErrOutside) {
				t.Errorf("Apply through a swapped-in link: %v, want ErrOutside", err)
			}
			ents, _ := os.ReadDir(outside)
			if len(ents) != 1 {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("outside the root now holds %v, want only f.txt", names)
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "f.txt")); string(b) != "outside" {
				t.Errorf("outside f.txt = %q", b)
			}
		})
	}
}

// TestOpenLinkSwappedInAfterCheck: reading goes through the opened root too,
// so a file or directory swapped for a link that leads out between the check
// and the open is refused, not read.
func TestOpenLinkSwappedInAfterCheck(t *testing.T) {
	for _, path := range []string{"a/b/f.txt", "a/b"} {
		t.Run(path, func(t *testing.T) {
			r, dir, outside := setup(t)
			os.WriteFile(filepath.Join(outside, "f.txt"), []byte("outside"), 0o644)
			testHookAfterResolve = func(string) { swapForLink(t, dir, "a/b", outside) }
			defer func() { testHookAfterResolve = nil }()
			f, _, err := r.Open(path)
			if err == nil {
				f.Close()
			}
			if !errors.Is(err, ErrOutside) {
				t.Errorf("Open through a swapped-in link: %v, want ErrOutside", err)
			}
		})
	}
	t.Run("ReadFile", func(t *testing.T) {
		r, dir, outside := setup(t)
		os.WriteFile(filepath.Join(outside, "f.txt"), []byte("outside"), 0o644)
		testHookAfterResolve = func(string) { swapForLink(t, dir, "a/b", outside) }
		defer func() { testHookAfterResolve = nil }()
		if b, err := r.ReadFile("a/b/f.txt"); !errors.Is(err, ErrOutside) {
			t.Errorf("ReadFile through a swapped-in link: %q %v, want ErrOutside", b, err)
		}
	})
}

// TestOpen: Open opens files and directories inside the root, refuses what
// Resolve refuses, and refuses (without opening) what is neither a file nor a
// directory: a named pipe would block the reader.
func TestOpen(t *testing.T) {
	r, dir, _ := setup(t)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	tests := []struct {
		path, rel string
		isDir     bool
		err       error
	}{
		{"in/f.txt", "a/b/f.txt", false, nil},
		{"a", "a", true, nil},
		{".", ".", true, nil},
		{"out/x", "", false, ErrOutside},
		{"missing", "", false, fs.ErrNotExist},
		{"fifo", "", false, ErrNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			f, rel, err := r.Open(tt.path)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Open(%q) = %v, want %v", tt.path, err, tt.err)
				}
				if !strings.HasPrefix(err.Error(), "fsutil: ") {
					t.Errorf("error %q lacks the package prefix", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil || fi.IsDir() != tt.isDir || rel != tt.rel {
				t.Fatalf("Open(%q): rel %q, dir %v, %v", tt.path, rel, fi.IsDir(), err)
			}
		})
	}
	if b, err := r.ReadFile("in/f.txt"); err != nil || string(b) != "f" {
		t.Errorf("ReadFile: %q %v", b, err)
	}
	if _, err := r.ReadFile("a"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile of a directory: %v", err)
	}
}

// TestApplyDetachesHardLink: a workspace name hard-linked to a file outside
// is replaced, not written through, so the outside file keeps its content
// (reads of such a file are allowed: see tools/RATIONALE.md, "Paths").
func TestApplyDetachesHardLink(t *testing.T) {
	r, dir, outside := setup(t)
	secret := filepath.Join(outside, "secret")
	os.WriteFile(secret, []byte("outside"), 0o644)
	if err := os.Link(secret, filepath.Join(dir, "hard")); err != nil {
		t.Skip("no hard links here:", err)
	}
	if b, err := r.ReadFile("hard"); err != nil || string(b) != "outside" {
		t.Fatalf("ReadFile of a hard link: %q %v", b, err)
	}
	if _, err := r.Apply([]Change{{Path: "hard", Content: []byte("inside"), Expected: []byte("outside")}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "outside" {
		t.Errorf("the outside file was written through the hard link: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "hard")); string(b) != "inside" {
		t.Errorf("hard = %q", b)
	}
}
