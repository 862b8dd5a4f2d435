package stage

import "errors"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/search"

func stagedPlan(t *testing.T, dir string, names ...string) *search.Plan {
	t.Helper()
	p := &search.Plan{}
	for _, n := range names {
		path := filepath.Join(dir, n)
		old := []byte("old " + n + "\n")
		if err := os.WriteFile(path, old, 0o640); err != nil {
			t.Fatal(err)
		}
		p.Changes = append(p.Changes, search.FileChange{Path: path, Old: old, New: []byte("new " + n + "\n"), Replacements: 1})
		p.Replacements++
	}
	return p
}

func readAll(t *testing.T, dir string, names ...string) string {
	t.Helper()
	var b strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

func TestStagerAcceptDiscard(t *testing.T) {
	dir := t.TempDir()
	s := New("")
	id1 := s.Stage(stagedPlan(t, dir, "a.go", "b.go"))
	id2 := s.Stage(&search.Plan{})
	if id1 != "edit_1" || id2 != "edit_2" {
		t.Fatalf("ids = %s, %s", id1, id2)
	}
	if got := readAll(t, dir, "a.go", "b.go"); got != "old a.go\nold b.go\n" {
		t.Fatalf("staging wrote files: %q", got)
	}
	if _, err := s.Accept(id1); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, dir, "a.go", "b.go"); got != "new a.go\nnew b.go\n" {
		t.Errorf("after accept: %q", got)
	}
	fi, _ := os.Stat(filepath.Join(dir, "a.go"))
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640 kept", fi.Mode().Perm())
	}
	if _, err := s.Accept(id1); !errors.Is(err, ErrUnknownEdit) || !strings.Contains(err.Error(), "already accepted") {
		t.Errorf("second accept: %v", err)
	}
	if err := s.Discard(id2); err != nil {
		t.Fatal(err)
	}
	if err := s.Discard(id2); err == nil || !strings.Contains(err.Error(), "already discarded") {
		t.Errorf("second discard: %v", err)
	}
	if _, err := s.Accept("edit_9"); !errors.Is(err, ErrUnknownEdit) || !strings.Contains(err.Error(), "nothing is staged") {
		t.Errorf("unknown id: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("temporary files left: %v", ents)
	}
}

func TestStagerRejectsStale(t *testing.T) {
	dir := t.TempDir()
	s := New("")
	id := s.Stage(stagedPlan(t, dir, "a.go", "b.go", "c.go"))
	os.WriteFile(filepath.Join(dir, "b.go"), []byte("edited by hand\n"), 0o644)
	os.Remove(filepath.Join(dir, "c.go"))
	_, err := s.Accept(id)
	if !errors.Is(err, search.ErrStale) {
		t.Fatalf("accept = %v, want search.ErrStale", err)
	}
	for _, want := range []string{"b.go", "c.go", "edit_1", "nothing written"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "a.go") {
		t.Errorf("error names the unchanged a.go: %v", err)
	}
	if got := readAll(t, dir, "a.go"); got != "old a.go\n" {
		t.Errorf("a.go written despite rejection: %q", got)
	}
	if _, ok := s.Pending(id); !ok {
		t.Error("rejected edit is no longer pending")
	}
}

// TestStagerWithoutRootSpansDirectories: the CLI's Stager (no root)
// applies an edit over files in sibling directories, all through one root
// at the directory that holds them.
func TestStagerWithoutRootSpansDirectories(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"x", "y/z"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	p := stagedPlan(t, dir, "x/a.go", "y/z/b.go")
	s := New("")
	if _, err := s.Accept(s.Stage(p)); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, dir, "x/a.go", "y/z/b.go"); got != "new x/a.go\nnew y/z/b.go\n" {
		t.Errorf("after accept: %q", got)
	}
	for _, d := range []string{"x", "y/z"} {
		if ents, _ := os.ReadDir(filepath.Join(dir, d)); len(ents) != 1 {
			t.Errorf("%s holds %v", d, ents)
		}
	}
}

func TestStagerWithRoot(t *testing.T) {
	dir := t.TempDir()
	s := New(dir)
	id := s.Stage(stagedPlan(t, dir, "a.go", "b.go"))
	if _, err := s.Accept(id); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, dir, "a.go", "b.go"); got != "new a.go\nnew b.go\n" {
		t.Errorf("after accept: %q", got)
	}
	out := &search.Plan{Changes: []search.FileChange{{Path: filepath.Join(dir, "..", "escape.go"), Old: nil, New: []byte("x")}}}
	if _, err := s.Accept(s.Stage(out)); err == nil {
		t.Error("a change outside the root was applied")
	}
	missing := New(filepath.Join(dir, "missing"))
	if _, err := missing.Accept(missing.Stage(stagedPlan(t, dir, "c.go"))); err == nil || !strings.Contains(err.Error(), "cannot confine edits to the workspace") {
		t.Errorf("a workspace that does not exist: %v; want an error that says edits cannot be confined", err)
	}
	if got := readAll(t, dir, "c.go"); got != "old c.go\n" {
		t.Errorf("c.go after a refused accept: %q", got)
	}
}

// TestStagerUnknownIDSaysWhatToDo: every unknown-id error names the next step.
func TestStagerUnknownIDSaysWhatToDo(t *testing.T) {
	s := New("")
	id := s.Stage(&search.Plan{})
	s.Stage(&search.Plan{})
	if err := s.Discard(id); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ id, want string }{
		{"edit_9", `the staged edits are edit_2: pass one of them to resolve, or run ast_edit to stage a new change`},
		{id, `already discarded; run ast_edit again to stage a new change`},
		{"", `the staged edits are edit_2: pass one of them`},
	} {
		_, err := s.Accept(tc.id)
		if !errors.Is(err, ErrUnknownEdit) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Accept(%q) = %v, want it to say %q", tc.id, err, tc.want)
		}
	}
}

// TestStagerBounded: unresolved edits are kept up to MaxEdits and a
// byte budget; staging past either drops the oldest (the newest is always
// kept, even alone over the budget), and resolving a dropped one says so.
func TestStagerBounded(t *testing.T) {
	plan := func(n int) *search.Plan {
		return &search.Plan{Changes: []search.FileChange{{Path: "x", Old: make([]byte, n), New: make([]byte, n)}}}
	}
	s := New("")
	s.maxBytes = 100
	a, _ := s.StageDropping(plan(20)) // 40 bytes
	b, _ := s.StageDropping(plan(20)) // 80
	c, dropped := s.StageDropping(plan(20))
	if len(dropped) != 1 || dropped[0] != a {
		t.Errorf("staging past the byte budget dropped %v, want [%s]", dropped, a)
	}
	if _, err := s.Accept(a); !errors.Is(err, ErrUnknownEdit) || !strings.Contains(err.Error(), "dropped unresolved when "+c+" was staged") {
		t.Errorf("accepting a dropped edit: %v", err)
	}
	big, dropped := s.StageDropping(plan(500))
	if strings.Join(dropped, ",") != b+","+c {
		t.Errorf("an edit over the whole budget dropped %v, want [%s %s]", dropped, b, c)
	}
	if _, ok := s.Pending(big); !ok {
		t.Error("the newest edit is not kept")
	}

	s = New("")
	var first string
	for i := range MaxEdits {
		id, dropped := s.StageDropping(&search.Plan{})
		if i == 0 {
			first = id
		}
		if len(dropped) > 0 {
			t.Fatalf("edit %d of %d dropped %v", i+1, MaxEdits, dropped)
		}
	}
	if _, dropped := s.StageDropping(&search.Plan{}); len(dropped) != 1 || dropped[0] != first {
		t.Errorf("edit %d dropped %v, want [%s]", MaxEdits+1, dropped, first)
	}
	if err := s.Discard(first); err == nil || !strings.Contains(err.Error(), "dropped") {
		t.Errorf("discarding a dropped edit: %v", err)
	}
}

// TestStagerCLIRelativePaths: without a run's root (tether ast-grep -U), an
// edit of files the search found under a relative directory is applied; the
// root made for it is absolute, and the relative paths were resolved against
// it a second time ("ws/a.go does not exist" for ast-grep -U ws).
func TestStagerCLIRelativePaths(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll(filepath.Join("ws", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	old, repl := []byte("package p\n\nfunc f() { g(1) }\n"), []byte("package p\n\nfunc f() { h(1) }\n")
	for _, p := range []string{filepath.Join("ws", "a.go"), filepath.Join("ws", "sub", "b.go")} {
		if err := os.WriteFile(p, old, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, paths := range [][]string{
		{filepath.Join("ws", "a.go")},
		{filepath.Join("ws", "a.go"), filepath.Join("ws", "sub", "b.go")},
	} {
		st := New("")
		var p search.Plan
		for _, path := range paths {
			cur, _ := os.ReadFile(path)
			p.Changes = append(p.Changes, search.FileChange{Path: path, Old: cur, New: repl, Replacements: 1})
		}
		if _, err := st.Accept(st.Stage(&p)); err != nil {
			t.Fatalf("accept of %v: %v", paths, err)
		}
		for _, path := range paths {
			if got, _ := os.ReadFile(path); string(got) != string(repl) {
				t.Errorf("%s = %q after accept", path, got)
			}
		}
		old, repl = repl, old
	}
}

// writer returns a function that writes a file under dir with mode 0640
// (which a move must keep).
func writer(t *testing.T, dir string) func(name, content string) {
	return func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStagerMove: a plan that moves a file (and edits another) is applied
// whole: the source is gone, the destination has the new content and the
// source's mode, its directory is created. A destination that appeared
// since staging, or a source changed since, rejects the whole plan.
func TestStagerMove(t *testing.T) {
	dir := t.TempDir()
	write := writer(t, dir)
	write("a.ts", "export const a = 1;\n")
	write("user.ts", "import { a } from \"./a\";\n")
	plan := func() *search.Plan {
		return &search.Plan{Source: "rename_file", Replacements: 1, Changes: []search.FileChange{
			{Path: filepath.Join(dir, "lib/a.ts"), From: filepath.Join(dir, "a.ts"), Old: []byte("export const a = 1;\n"), New: []byte("export const a = 1;\n")},
			{Path: filepath.Join(dir, "user.ts"), Old: []byte("import { a } from \"./a\";\n"), New: []byte("import { a } from \"./lib/a\";\n"), Replacements: 1},
		}}
	}
	s := New(dir)

	// The destination appears after staging: rejected, nothing moved.
	id := s.Stage(plan())
	if err := os.MkdirAll(filepath.Join(dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("lib/a.ts", "taken\n")
	if _, err := s.Accept(id); !errors.Is(err, search.ErrStale) || !strings.Contains(err.Error(), "run rename_file again") {
		t.Fatalf("destination taken: want search.ErrStale, got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.ts")); err != nil {
		t.Fatal("a rejected move removed its source")
	}
	os.RemoveAll(filepath.Join(dir, "lib"))

	// The source changed after staging: rejected.
	write("a.ts", "export const a = 2;\n")
	if _, err := s.Accept(id); !errors.Is(err, search.ErrStale) {
		t.Fatalf("source changed: want search.ErrStale, got %v", err)
	}
	write("a.ts", "export const a = 1;\n")

	if _, err := s.Accept(id); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.ts")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the source is still there")
	}
	fi, err := os.Stat(filepath.Join(dir, "lib/a.ts"))
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("the destination: %v %v", fi, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "user.ts")); string(got) != "import { a } from \"./lib/a\";\n" {
		t.Fatalf("the importer: %q", got)
	}
	if d := plan().Diff(0); !strings.Contains(d, "--- a/"+filepath.Join(dir, "a.ts")) || !strings.Contains(d, "(moved, content unchanged)") {
		t.Fatalf("diff of a move: %s", d)
	}
}

// TestStagerDelete: a staged deletion is drift-checked against the content
// it was staged from (changed or already gone rejects the whole edit,
// naming the file, and writes nothing), previewed as a deletion diff, and
// applied with the rest of the edit.
func TestStagerDelete(t *testing.T) {
	dir := t.TempDir()
	write := writer(t, dir)
	write("gone.go", "package p\n\nvar gone = 1\n")
	write("kept.go", "package p\n\nvar x = gone\n")
	plan := func() *search.Plan {
		return &search.Plan{Source: "vibe_spawn with isolated", Replacements: 2, Changes: []search.FileChange{
			{Path: filepath.Join(dir, "gone.go"), Display: "gone.go", Old: []byte("package p\n\nvar gone = 1\n"), Delete: true, Replacements: 1},
			{Path: filepath.Join(dir, "kept.go"), Display: "kept.go", Old: []byte("package p\n\nvar x = gone\n"), New: []byte("package p\n\nvar x = 1\n"), Replacements: 1},
		}}
	}
	d := plan().Diff(0)
	for _, want := range []string{"--- a/gone.go\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-package p\n-\n-var gone = 1\n", "+++ b/kept.go", "+var x = 1"} {
		if !strings.Contains(d, want) {
			t.Errorf("the preview lacks %q:\n%s", want, d)
		}
	}
	empty := (&search.Plan{Changes: []search.FileChange{{Path: "e.txt", Delete: true}}}).Diff(0)
	if empty != "--- a/e.txt\n+++ /dev/null\n(deleted, empty)\n" {
		t.Errorf("an empty file's deletion: %q", empty)
	}

	s := New(dir)
	id := s.Stage(plan())

	// Changed since staging: rejected whole, naming it; nothing written.
	write("gone.go", "package p\n\nvar gone = 2\n")
	_, err := s.Accept(id)
	if !errors.Is(err, search.ErrStale) || !strings.Contains(err.Error(), filepath.Join(dir, "gone.go")) || !strings.Contains(err.Error(), "run vibe_spawn with isolated again") {
		t.Fatalf("changed: want search.ErrStale naming gone.go, got %v", err)
	}
	if got := readAll(t, dir, "gone.go", "kept.go"); got != "package p\n\nvar gone = 2\npackage p\n\nvar x = gone\n" {
		t.Fatalf("a rejected edit wrote: %q", got)
	}

	// Already gone since staging: rejected whole, saying so.
	os.Remove(filepath.Join(dir, "gone.go"))
	if _, err := s.Accept(id); !errors.Is(err, search.ErrStale) || !strings.Contains(err.Error(), "gone.go (a file it deletes is gone)") {
		t.Fatalf("gone: want search.ErrStale, got %v", err)
	}
	if got := readAll(t, dir, "kept.go"); got != "package p\n\nvar x = gone\n" {
		t.Fatalf("a rejected edit wrote kept.go: %q", got)
	}

	write("gone.go", "package p\n\nvar gone = 1\n")
	if _, err := s.Accept(id); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.go")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the deleted file is still there: %v", err)
	}
	if got := readAll(t, dir, "kept.go"); got != "package p\n\nvar x = 1\n" {
		t.Fatalf("kept.go = %q", got)
	}
	if _, err := s.Accept(id); !errors.Is(err, ErrUnknownEdit) {
		t.Fatalf("accepted twice: %v", err)
	}
}
