package tools_test

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "slices"
import "strings"
import "syscall"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// newRun starts a run on a fresh working directory holding files, with writes allowed.
func newRun(t *testing.T, files map[string]string) (*tools.Run, string) {
	t.Helper()
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, files)
	return startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow)}), dir
}

func mustCall(t *testing.T, r *tools.Run, name string, args any) string {
	t.Helper()
	res, err := call(t, r, name, args)
	if err != nil || res.IsError {
		t.Fatalf("%s %v: %v %s", name, args, err, res.AllText())
	}
	return res.AllText()
}

func TestRead(t *testing.T) {
	var long strings.Builder
	for i := 1; i <= 2500; i++ {
		long.WriteString("line\n")
	}
	r, _ := newRun(t, map[string]string{
		"a.txt":      "one\ntwo\nthree\n",
		"nonl.txt":   "x\ny",
		"long.txt":   long.String(),
		"wide.txt":   strings.Repeat("w", 3000) + "\n",
		"huge.txt":   strings.Repeat("h", 200000) + "\nnext",
		"empty.txt":  "",
		"bin.dat":    "ab\x00cd",
		"dir/in.txt": "in\n",
	})
	tests := []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"path": "a.txt"}, []string{"     1\tone\n     2\ttwo\n     3\tthree"}},
		{map[string]any{"path": "a.txt", "offset": 2, "limit": 1}, []string{"     2\ttwo\n... (lines 2-2 of 3 shown; call read with offset 3 to continue)"}},
		{map[string]any{"path": "nonl.txt"}, []string{"     2\ty", "(no newline at end of file)"}},
		{map[string]any{"path": "long.txt"}, []string{"  2000\tline\n... (lines 1-2000 of 2500 shown; call read with offset 2001 to continue)"}},
		{map[string]any{"path": "wide.txt"}, []string{"(line cut: 2000 of 3000 bytes shown)"}},
		{map[string]any{"path": "huge.txt"}, []string{"(line cut: 2000 of 200000 bytes shown)\n     2\tnext\n(no newline at end of file)"}},
		{map[string]any{"path": "huge.txt", "offset": 2}, []string{"     2\tnext\n(lines 2-2 of 2 shown: end of file)"}},
		{map[string]any{"path": "empty.txt"}, []string{"empty.txt is empty"}},
		{map[string]any{"path": "bin.dat"}, []string{"binary file of 5 bytes"}},
		{map[string]any{"path": "dir"}, []string{"dir/ is a directory with 1 entry:\nin.txt"}},
		{map[string]any{"path": "./dir/../a.txt"}, []string{"     1\tone"}},
	}
	for _, tt := range tests {
		got := mustCall(t, r, "read", tt.args)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("read %v = %q, want it to contain %q", tt.args, got, w)
			}
		}
	}
	if res, err := call(t, r, "read", map[string]any{"path": "a.txt", "offset": 9}); err == nil || !strings.Contains(res.AllText(), "past the end: a.txt has 3 lines") {
		t.Errorf("offset past end: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(r.WorkDir(), "fifo"), 0o644); err == nil {
		if _, err := call(t, r, "read", map[string]any{"path": "fifo"}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("fifo: %v", err)
		}
	}
	if _, err := call(t, r, "read", map[string]any{"path": "missing.txt"}); err == nil || !strings.Contains(err.Error(), "missing.txt does not exist") {
		t.Errorf("missing file: %v", err)
	}
}

func TestReadImage(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	r, _ := newRun(t, map[string]string{"pic.png": png})
	res := callResult(t, r, "read", map[string]any{"path": "pic.png"})
	if len(res.Content) != 2 || res.Content[1].Type != tools.ImageContent || res.Content[1].MIMEType != "image/png" || string(res.Content[1].Data) != png {
		t.Errorf("image result %+v", res.Content)
	}
}

// TestConfinement: every file tool refuses paths that lead outside the working
// directory, by "..", by an absolute path, or through a symbolic link at any
// component, including for files that do not exist yet.
func TestConfinement(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret\n"), 0o644)
	r, dir := newRun(t, map[string]string{"in.txt": "in\n", "sub/ok.txt": "ok\n"})
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(outside, filepath.Join(dir, "outdir")))                               // dir link out
	must(os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "out.txt"))) // file link out
	must(os.Symlink("../../"+filepath.Base(outside), filepath.Join(dir, "sub", "rel")))   // relative link out (checked below)
	must(os.Symlink(filepath.Join(outside, "new.txt"), filepath.Join(dir, "dangling")))   // dangling link out
	must(os.Symlink("sub", filepath.Join(dir, "inlink")))                                 // link that stays inside
	paths := []string{
		"../x.txt",
		"sub/../../x.txt",
		filepath.Join(outside, "secret.txt"),
		"/etc/passwd",
		"outdir/secret.txt",
		"outdir/new.txt",
		"outdir/deeper/new.txt",
		"out.txt",
		"dangling",
		"sub/rel/secret.txt",
	}
	patches := func(p string) []string {
		return []string{
			"*** Begin Patch\n*** Add File: " + p + "\n+x\n*** End Patch",
			"*** Begin Patch\n*** Update File: " + p + "\n-secret\n+pwned\n*** End Patch",
			"*** Begin Patch\n*** Delete File: " + p + "\n*** End Patch",
			"*** Begin Patch\n*** Update File: in.txt\n*** Move to: " + p + "\n-in\n+moved\n*** End Patch",
		}
	}
	for _, p := range paths {
		calls := []struct {
			tool string
			args map[string]any
		}{
			{"read", map[string]any{"path": p}},
			{"write", map[string]any{"path": p, "content": "pwned\n"}},
			{"edit", map[string]any{"path": p, "old_string": "secret", "new_string": "pwned"}},
		}
		for _, pt := range patches(p) {
			calls = append(calls, struct {
				tool string
				args map[string]any
			}{"apply_patch", map[string]any{"patch": pt}})
		}
		for _, c := range calls {
			res, err := call(t, r, c.tool, c.args)
			if err == nil || !res.IsError {
				t.Errorf("%s %v was not refused: %s", c.tool, c.args, res.AllText())
				continue
			}
			if !strings.Contains(res.AllText(), "outside the working directory") {
				t.Errorf("%s %v: refusal %q does not say why", c.tool, c.args, res.AllText())
			}
		}
	}
	if got := testenv.ReadText(t, filepath.Join(outside, "secret.txt")); got != "secret\n" {
		t.Errorf("the file outside was changed: %q", got)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("files were created outside: %v", ents)
	}
	if got := testenv.ReadText(t, filepath.Join(dir, "in.txt")); got != "in\n" {
		t.Errorf("in.txt changed by a refused move: %q", got)
	}
	// A link that stays inside is followed, and a write through it lands on its target.
	if got := mustCall(t, r, "read", map[string]any{"path": "inlink/ok.txt"}); !strings.Contains(got, "ok") {
		t.Errorf("read through inside link: %q", got)
	}
	mustCall(t, r, "write", map[string]any{"path": "inlink/ok.txt", "content": "via link\n"})
	if got := testenv.ReadText(t, filepath.Join(dir, "sub", "ok.txt")); got != "via link\n" {
		t.Errorf("write through inside link: %q", got)
	}
	if fi, _ := os.Lstat(filepath.Join(dir, "inlink")); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the inside link was replaced by a file")
	}
	// An absolute path inside the working directory is fine.
	mustCall(t, r, "read", map[string]any{"path": filepath.Join(dir, "in.txt")})
}

func TestWrite(t *testing.T) {
	r, dir := newRun(t, map[string]string{"old.sh": "#!/bin/sh\n"})
	os.Chmod(filepath.Join(dir, "old.sh"), 0o755)
	res := callResult(t, r, "write", map[string]any{"path": "new/deep/f.txt", "content": "a\nb\n"})
	if fc := structured[*tools.FileChanges](t, res); len(fc.Changed) != 1 || fc.Changed[0] != (tools.FileChange{Path: "new/deep/f.txt", Action: "created"}) {
		t.Errorf("write changed %+v", fc.Changed)
	}
	if got := res.AllText(); got != "wrote 4 bytes (2 lines) to new/deep/f.txt (created)" {
		t.Errorf("write said %q", got)
	}
	if testenv.ReadText(t, filepath.Join(dir, "new", "deep", "f.txt")) != "a\nb\n" {
		t.Error("content")
	}
	res = callResult(t, r, "write", map[string]any{"path": "old.sh", "content": "#!/bin/sh\necho hi\n"})
	if ch := structured[*tools.FileChanges](t, res).Changed; len(ch) != 1 || ch[0] != (tools.FileChange{Path: "old.sh", Action: "updated"}) {
		t.Errorf("changed files %+v", ch)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "old.sh")); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode after write %v, want 0755 kept", fi.Mode().Perm())
	}
	if _, err := call(t, r, "write", map[string]any{"path": "new", "content": "x"}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("write over a directory: %v", err)
	}
}

// TestAtomicReplacement: a write replaces the file by renaming a complete
// temporary file over it, so an open handle on the old file still reads the
// old content in full, and no temporary file is left behind.
func TestAtomicReplacement(t *testing.T) {
	old := strings.Repeat("old line\n", 10000)
	r, dir := newRun(t, map[string]string{"f.txt": old})
	p := filepath.Join(dir, "f.txt")
	before, _ := os.Stat(p)
	h, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	mustCall(t, r, "write", map[string]any{"path": "f.txt", "content": "new\n"})
	after, _ := os.Stat(p)
	if os.SameFile(before, after) {
		t.Error("the file was rewritten in place, not replaced by a rename")
	}
	b := make([]byte, len(old)+10)
	n, _ := h.Read(b)
	if string(b[:n]) != old {
		t.Errorf("the old handle reads %d bytes of mixed content", n)
	}
	if testenv.ReadText(t, p) != "new\n" {
		t.Error("new content")
	}
	mustCall(t, r, "edit", map[string]any{"path": "f.txt", "old_string": "new", "new_string": "newer"})
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

func TestEdit(t *testing.T) {
	r, dir := newRun(t, map[string]string{"f.go": "a := 1\nb := 1\nc := 2\n", "g.go": "x\ty\n"})
	p := filepath.Join(dir, "f.go")
	tests := []struct {
		name    string
		args    map[string]any
		wantErr string
		want    string
	}{
		{"ambiguous", map[string]any{"path": "f.go", "old_string": ":= 1", "new_string": ":= 9"}, "matches 2 places in f.go (lines 1, 2)", "a := 1\nb := 1\nc := 2\n"},
		{"ambiguous on one line", map[string]any{"path": "f.go", "old_string": "1", "new_string": "9"}, "matches 2 places in f.go (lines 1, 2)", "a := 1\nb := 1\nc := 2\n"},
		{"ambiguous, lines counted once", map[string]any{"path": "f.go", "old_string": " ", "new_string": "_"}, "matches 6 places in f.go (lines 1 (2 times), 2 (2 times), 3 (2 times))", "a := 1\nb := 1\nc := 2\n"},
		{"not found", map[string]any{"path": "f.go", "old_string": "d := 4", "new_string": "x"}, "not found in f.go", "a := 1\nb := 1\nc := 2\n"},
		{"whitespace hint", map[string]any{"path": "g.go", "old_string": "x y", "new_string": "z"}, "different whitespace", ""},
		{"same", map[string]any{"path": "f.go", "old_string": "a", "new_string": "a"}, "are the same", "a := 1\nb := 1\nc := 2\n"},
		{"missing file", map[string]any{"path": "nope.go", "old_string": "a", "new_string": "b"}, "use write to create", ""},
		{"unique", map[string]any{"path": "f.go", "old_string": "b := 1", "new_string": "b := 5"}, "", "a := 1\nb := 5\nc := 2\n"},
		{"replace all", map[string]any{"path": "f.go", "old_string": " := ", "new_string": " = ", "replace_all": true}, "", "a = 1\nb = 5\nc = 2\n"},
		{"empty old_string", map[string]any{"path": "f.go", "old_string": "", "new_string": "x"}, `argument "old_string": expected a non-empty string`, "a = 1\nb = 5\nc = 2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, r, "edit", tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(res.AllText(), tt.wantErr) {
					t.Fatalf("err %v, result %q, want %q", err, res.AllText(), tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if tt.want != "" {
				if got := testenv.ReadText(t, p); got != tt.want {
					t.Fatalf("file %q, want %q", got, tt.want)
				}
			}
		})
	}
}

func TestApplyPatch(t *testing.T) {
	files := map[string]string{
		"a.go":     "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 1\n}\n",
		"old.txt":  "move me\n",
		"gone.txt": "bye\n",
		"crlf.txt": "one\r\ntwo\r\n",
	}
	r, dir := newRun(t, files)
	patch := `*** Begin Patch
*** Add File: pkg/new.go
+package pkg
+
+var X = 1
*** Update File: a.go
@@ func B() int {
-	return 1
+	return 2
*** Update File: old.txt
*** Move to: moved/new.txt
-move me
+moved
*** Delete File: gone.txt
*** Update File: crlf.txt
 one
-two
+deux
*** End of File
*** End Patch`
	res := callResult(t, r, "apply_patch", map[string]any{"patch": patch})
	wantChanged := []tools.FileChange{{Path: "pkg/new.go", Action: "created"}, {Path: "a.go", Action: "updated"},
		{Path: "moved/new.txt", Action: "created", MovedFrom: "old.txt"}, {Path: "gone.txt", Action: "deleted"}, {Path: "crlf.txt", Action: "updated"}}
	if got := structured[*tools.FileChanges](t, res).Changed; !slices.Equal(got, wantChanged) {
		t.Errorf("changed %+v, want %+v", got, wantChanged)
	}
	want := "applied the patch to 5 files:\nA pkg/new.go\nM a.go\nR old.txt -> moved/new.txt\nD gone.txt\nM crlf.txt"
	if got := res.AllText(); got != want {
		t.Errorf("result %q, want %q", got, want)
	}
	checks := map[string]string{
		"pkg/new.go":    "package pkg\n\nvar X = 1\n",
		"a.go":          "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n",
		"moved/new.txt": "moved\n",
		"crlf.txt":      "one\r\ndeux\r\n",
	}
	for name, want := range checks {
		if got := testenv.ReadText(t, filepath.Join(dir, filepath.FromSlash(name))); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	for _, gone := range []string{"old.txt", "gone.txt"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists", gone)
		}
	}
}

// TestApplyPatchKeepsLineEndings: in a file mixing CRLF and LF lines, the
// lines a patch does not change keep their own ending (context lines too),
// a changed line takes the ending of the line it replaces and an added line
// its neighbour's; a file with no final newline keeps none.
func TestApplyPatchKeepsLineEndings(t *testing.T) {
	tests := []struct{ name, content, patch, want string }{
		{"context keeps CRLF in a mixed file",
			"a\r\nb\r\nc\nd\n",
			" a\n b\n-c\n+C\n d\n",
			"a\r\nb\r\nC\nd\n"},
		{"changed lines take the replaced line's ending",
			"a\nb\r\nc\r\nd\n",
			" a\n-b\n-c\n+B\n+C\n d\n",
			"a\nB\r\nC\r\nd\n"},
		{"an added line takes its neighbour's",
			"a\r\nb\r\nc\nd\n",
			" a\n+x\n+y\n b\n c\n+z\n d\n",
			"a\r\nx\r\ny\r\nb\r\nc\nz\nd\n"},
		{"no final newline stays so",
			"a\r\nb\nc",
			" b\n-c\n+C\n+D\n*** End of File\n",
			"a\r\nb\nC\nD"},
		{"all CRLF",
			"one\r\ntwo\r\nthree\r\n",
			" one\n-two\n+deux\n+zwei\n three\n",
			"one\r\ndeux\r\nzwei\r\nthree\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, dir := newRun(t, map[string]string{"m.txt": tt.content})
			mustCall(t, r, "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: m.txt\n" + tt.patch + "*** End Patch"})
			if got := testenv.ReadText(t, filepath.Join(dir, "m.txt")); got != tt.want {
				t.Errorf("m.txt = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestApplyPatchGrantsNoExecute: a file apply_patch moves or adds never gains
// an execute bit the patch did not ask for (the format has no way to ask):
// with write allowed and exec denied, "*** Move to:" kept the mode of an
// executable script, planting a program at the destination
// (node_modules/.bin/tsc) that a later call would run. Added files are 0644.
func TestApplyPatchGrantsNoExecute(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\necho hi\n"), 0o750); err != nil {
		t.Fatal(err)
	}
	r, err := tools.NewRun(context.Background(), tools.Config{WorkDir: dir,
		Policy: tools.Policy{Tiers: map[tools.Tier]tools.Decision{tools.TierWrite: tools.Allow, tools.TierExec: tools.Deny}}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	mustCall(t, r, "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: run.sh\n*** Move to: node_modules/.bin/tsc\n-echo hi\n+echo planted\n" +
		"*** Add File: new.sh\n+#!/bin/sh\n*** End Patch"})
	for name, want := range map[string]os.FileMode{"node_modules/.bin/tsc": 0o640, "new.sh": 0o644} {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s has mode %v, want %v (no execute bit)", name, got, want)
		}
		if fi.Mode().Perm()&0o111 != 0 {
			t.Errorf("%s is executable (%v) after apply_patch", name, fi.Mode().Perm())
		}
	}
}

// TestApplyPatchDeletesLinkNotTarget: "*** Delete File:" on a symbolic link
// deletes the link and leaves the file it points to (it deleted the target);
// a link that leads out is refused as every such path is (TestConfinement);
// moving a link moves its content and removes the link, not the target; a
// patch that fails deletes no link.
func TestApplyPatchDeletesLinkNotTarget(t *testing.T) {
	r, dir := newRun(t, map[string]string{"target.txt": "keep\n", "src.txt": "one\n"})
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"l": "target.txt", "out": outside, "l2": "target.txt", "ml": "src.txt"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := call(t, r, "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Delete File: out\n*** End Patch"}); err == nil || !strings.Contains(err.Error(), "outside the working directory") {
		t.Fatalf("deleting a link that leads out: %v", err)
	}
	got := mustCall(t, r, "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Delete File: l\n" +
		"*** Update File: ml\n*** Move to: moved.txt\n-one\n+uno\n*** End Patch"})
	if want := "applied the patch to 2 files:\nD l\nR ml -> moved.txt"; got != want {
		t.Errorf("result %q, want %q", got, want)
	}
	for _, gone := range []string{"l", "ml"} {
		if _, err := os.Lstat(filepath.Join(dir, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("link %s still there: %v", gone, err)
		}
	}
	for path, want := range map[string]string{filepath.Join(dir, "target.txt"): "keep\n", outside: "outside\n",
		filepath.Join(dir, "src.txt"): "one\n", filepath.Join(dir, "moved.txt"): "uno\n"} {
		if got := testenv.ReadText(t, path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	// All or nothing: a failing section leaves the link in place.
	if _, err := call(t, r, "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Delete File: l2\n*** Update File: nosuch.txt\n-a\n+b\n*** End Patch"}); err == nil {
		t.Fatal("a patch updating a missing file applied")
	}
	for _, link := range []string{"l2", "out"} {
		if fi, err := os.Lstat(filepath.Join(dir, link)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s after a refused patch: %v %v", link, fi, err)
		}
	}
}

// TestApplyPatchAllOrNothing: a patch with any hunk that does not apply writes
// nothing, and the error names the file and hunk.
func TestApplyPatchAllOrNothing(t *testing.T) {
	files := map[string]string{"a.txt": "alpha\nbeta\n", "b.txt": "one\ntwo\n", "c.txt": "keep\n"}
	tests := []struct {
		name, patch, want string
	}{
		{"second hunk misses", "*** Begin Patch\n*** Update File: a.txt\n-alpha\n+ALPHA\n*** Update File: b.txt\n@@\n-three\n+THREE\n*** End Patch",
			`"*** Update File: b.txt", hunk 1`},
		{"late hunk in same file misses", "*** Begin Patch\n*** Update File: a.txt\n@@\n-alpha\n+ALPHA\n@@\n-gamma\n+GAMMA\n*** End Patch",
			`"*** Update File: a.txt", hunk 2`},
		{"context line missing", "*** Begin Patch\n*** Add File: new.txt\n+x\n*** Update File: b.txt\n@@ func nowhere()\n-one\n+1\n*** End Patch",
			`the @@ line "func nowhere()" is not in the file`},
		{"delete missing", "*** Begin Patch\n*** Add File: new.txt\n+x\n*** Delete File: zzz.txt\n*** End Patch", "zzz.txt does not exist"},
		{"add existing", "*** Begin Patch\n*** Update File: a.txt\n-alpha\n+A\n*** Add File: c.txt\n+x\n*** End Patch", "c.txt already exists"},
		{"move onto existing", "*** Begin Patch\n*** Update File: a.txt\n*** Move to: c.txt\n-alpha\n+A\n*** End Patch", "cannot move to c.txt"},
		{"same file twice", "*** Begin Patch\n*** Update File: a.txt\n-alpha\n+A\n*** Delete File: a.txt\n*** End Patch", "appears twice"},
		{"no end", "*** Begin Patch\n*** Add File: new.txt\n+x\n", `must end with "*** End Patch"`},
		{"no begin", "*** Add File: new.txt\n+x\n*** End Patch", `must start with "*** Begin Patch"`},
		{"bad add line", "*** Begin Patch\n*** Add File: new.txt\nx\n*** End Patch", "every line must start with '+'"},
		{"bad hunk line", "*** Begin Patch\n*** Update File: a.txt\n@@\n*alpha\n*** End Patch", "must start with ' ', '-' or '+'"},
		{"unknown section", "*** Begin Patch\n*** Rename File: a.txt\n*** End Patch", "expected \"*** Add File: \""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, dir := newRun(t, files)
			res, err := call(t, r, "apply_patch", map[string]any{"patch": tt.patch})
			if err == nil || !res.IsError || !strings.Contains(res.AllText(), tt.want) {
				t.Fatalf("err %v, result %q, want %q", err, res.AllText(), tt.want)
			}
			if !strings.Contains(res.AllText(), "othing was written") {
				t.Errorf("error %q does not say nothing was written", res.AllText())
			}
			for name, want := range files {
				if got := testenv.ReadText(t, filepath.Join(dir, name)); got != want {
					t.Errorf("%s changed to %q", name, got)
				}
			}
			if ents, _ := os.ReadDir(dir); len(ents) != len(files) {
				t.Errorf("files were added or removed: %v", ents)
			}
		})
	}
}

func TestApplyPatchFuzzyContext(t *testing.T) {
	r, dir := newRun(t, map[string]string{"f.py": "def f():\n    z = 1   \n    return z\n\ndef g():\n    x = 1\n    return x\n"})
	patch := "*** Begin Patch\n*** Update File: f.py\n@@ def g():\n     x = 1\n-    return x\n+    return x + 1\n*** End Patch"
	mustCall(t, r, "apply_patch", map[string]any{"patch": patch})
	want := "def f():\n    z = 1   \n    return z\n\ndef g():\n    x = 1\n    return x + 1\n"
	if got := testenv.ReadText(t, filepath.Join(dir, "f.py")); got != want {
		t.Errorf("got %q", got)
	}
	// Trailing whitespace differences still match.
	patch = "*** Begin Patch\n*** Update File: f.py\n-    z = 1\n+    y = 1\n*** End Patch"
	mustCall(t, r, "apply_patch", map[string]any{"patch": patch})
	if got := testenv.ReadText(t, filepath.Join(dir, "f.py")); !strings.HasPrefix(got, "def f():\n    y = 1\n") {
		t.Errorf("got %q", got)
	}
}

func TestWriteToolsNeedApproval(t *testing.T) {
	dir := t.TempDir()
	r, err := tools.NewRun(context.Background(), tools.Config{WorkDir: dir}) // zero policy: ask, no approver
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, c := range []struct {
		tool string
		args string
	}{
		{"write", `{"path":"x","content":"y"}`},
		{"edit", `{"path":"x","old_string":"a","new_string":"b"}`},
		{"apply_patch", `{"patch":"*** Begin Patch\n*** Add File: x\n+y\n*** End Patch"}`},
	} {
		if _, err := r.Call(context.Background(), c.tool, json.RawMessage(c.args), tools.FromModel); !errors.Is(err, tools.ErrNoApprover) {
			t.Errorf("%s: err %v, want fail closed", c.tool, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused write created the file")
	}
	// Read needs no approval.
	if _, err := r.Call(context.Background(), "read", json.RawMessage(`{"path":"."}`), tools.FromModel); err != nil {
		t.Errorf("read: %v", err)
	}
	// Plan surface hides the write tools, and refuses them by name.
	p, _ := tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Surface: tools.SurfacePlan, Policy: tools.PolicyOf(tools.Allow)})
	defer p.Close()
	if got := toolNames(p); strings.Join(got, ",") != "notebook,read" {
		t.Errorf("plan lists %v", got)
	}
	if _, err := p.Call(context.Background(), "write", json.RawMessage(`{"path":"x","content":"y"}`), tools.FromBridge); !errors.Is(err, tools.ErrNotOnSurface) {
		t.Errorf("bridge write on plan: %v", err)
	}
}

func TestEditCRLF(t *testing.T) {
	r, dir := newRun(t, map[string]string{"w.txt": "one\r\ntwo\r\nthree\r\n"})
	mustCall(t, r, "edit", map[string]any{"path": "w.txt", "old_string": "one\ntwo", "new_string": "uno\ndos"})
	if got := testenv.ReadText(t, filepath.Join(dir, "w.txt")); got != "uno\r\ndos\r\nthree\r\n" {
		t.Errorf("got %q", got)
	}
}

func TestApplyPatchHeredoc(t *testing.T) {
	r, dir := newRun(t, map[string]string{"a.txt": "a\n"})
	mustCall(t, r, "apply_patch", map[string]any{"patch": "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n*** End Patch\nEOF\n"})
	if got := testenv.ReadText(t, filepath.Join(dir, "a.txt")); got != "b\n" {
		t.Errorf("got %q", got)
	}
}

// TestApplyPatchAgentForms: patch shapes coding agents emit that the
// reference apply_patch accepts: nested @@ anchors, a unified-diff range
// header, a blank separator line closing a hunk, typographic punctuation
// typed as ASCII, and whitespace-only differences.
func TestApplyPatchAgentForms(t *testing.T) {
	const twin = "class A:\n    def m(self):\n        return 1\n\nclass B:\n    def m(self):\n        return 1\n"
	tests := []struct {
		name, file, patch, want string
	}{
		{"nested anchors", twin,
			"*** Begin Patch\n*** Update File: f.py\n@@ class B:\n@@     def m(self):\n-        return 1\n+        return 2\n*** End Patch",
			"class A:\n    def m(self):\n        return 1\n\nclass B:\n    def m(self):\n        return 2\n"},
		{"unified range header", twin,
			"*** Begin Patch\n*** Update File: f.py\n@@ -5,3 +5,3 @@\n class B:\n     def m(self):\n-        return 1\n+        return 3\n*** End Patch",
			"class A:\n    def m(self):\n        return 1\n\nclass B:\n    def m(self):\n        return 3\n"},
		{"unified range header with function context", twin,
			"*** Begin Patch\n*** Update File: f.py\n@@ -6,2 +6,2 @@ class B:\n     def m(self):\n-        return 1\n+        return 4\n*** End Patch",
			"class A:\n    def m(self):\n        return 1\n\nclass B:\n    def m(self):\n        return 4\n"},
		{"blank line closing the last hunk", "func main() {\n\tprintln(1)\n}\n",
			"*** Begin Patch\n*** Update File: f.py\n@@\n-\tprintln(1)\n+\tprintln(2)\n }\n\n*** End Patch",
			"func main() {\n\tprintln(2)\n}\n"},
		{"typographic dash and quotes typed as ASCII", "x = \"a \u2013 b\"  # \u201cquoted\u201d\ny = 2\n",
			"*** Begin Patch\n*** Update File: f.py\n-x = \"a - b\"  # \"quoted\"\n+x = 1\n y = 2\n*** End Patch",
			"x = 1\ny = 2\n"},
		{"spaces for a tab", "func f() {\n\treturn\n}\n",
			"*** Begin Patch\n*** Update File: f.py\n@@ func f() {\n-    return\n+\treturn // done\n*** End Patch",
			"func f() {\n\treturn // done\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, dir := newRun(t, map[string]string{"f.py": tt.file})
			mustCall(t, r, "apply_patch", map[string]any{"patch": tt.patch})
			if got := testenv.ReadText(t, filepath.Join(dir, "f.py")); got != tt.want {
				t.Errorf("file %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("blank lines in and after added files", func(t *testing.T) {
		r, dir := newRun(t, nil)
		mustCall(t, r, "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Add File: n1.txt\n+a\n\n*** Add File: n2.txt\n+b\n\n+c\n\n\n*** End Patch"})
		for name, want := range map[string]string{"n1.txt": "a\n", "n2.txt": "b\n\nc\n"} {
			if got := testenv.ReadText(t, filepath.Join(dir, name)); got != want {
				t.Errorf("%s = %q, want %q", name, got, want)
			}
		}
	})
	t.Run("an @@ anchor with nothing after it is still an error", func(t *testing.T) {
		r, _ := newRun(t, map[string]string{"f.py": twin})
		res, err := call(t, r, "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: f.py\n@@ class B:\n*** End Patch"})
		if err == nil || !res.IsError || !strings.Contains(res.AllText(), "an empty hunk") {
			t.Fatalf("err %v, result %q", err, res.AllText())
		}
	})
}

// TestReadImageByContent: what comes back as an image is decided by the
// file's content, not only its name: a model given bytes that are not the
// image its type says rejects the whole request. A .png that holds text is
// read as text, a JPEG named .png is sent as image/jpeg, and an image without
// an image extension is still an image (not "a binary file; not shown").
func TestReadImageByContent(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	jpeg := "\xff\xd8\xff\xe0\x00\x10JFIF\x00"
	gif := "GIF89a\x01\x00\x01\x00\x00\x00\x00;"
	webp := "RIFF\x1a\x00\x00\x00WEBPVP8 "
	r, _ := newRun(t, map[string]string{
		"notes.png": "not an image\n", "photo.png": jpeg, "shot": png, "anim.gif": gif, "w.webp": webp,
		"empty.png": "", "bin.jpg": "\x00\x01\x02",
	})
	tests := []struct {
		path string
		mime string // "" = not an image
		text string // substring of the text when not an image
	}{
		{"notes.png", "", "     1\tnot an image"},
		{"photo.png", "image/jpeg", ""},
		{"shot", "image/png", ""},
		{"anim.gif", "image/gif", ""},
		{"w.webp", "image/webp", ""},
		{"empty.png", "", "is empty"},
		{"bin.jpg", "", "binary file"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			res := callResult(t, r, "read", map[string]any{"path": tt.path})
			var img *tools.Content
			for i := range res.Content {
				if res.Content[i].Type == tools.ImageContent {
					img = &res.Content[i]
				}
			}
			if tt.mime == "" {
				if img != nil || !strings.Contains(res.AllText(), tt.text) {
					t.Errorf("got %+v, want text with %q", res.Content, tt.text)
				}
				if strings.HasSuffix(tt.path, "png") && tt.path != "empty.png" && !strings.Contains(res.AllText(), "not a") {
					t.Errorf("the text does not say the file is not the image its name says: %q", res.AllText())
				}
				return
			}
			if img == nil || img.MIMEType != tt.mime {
				t.Errorf("got %+v, want an %s image", res.Content, tt.mime)
			}
		})
	}
}

// TestReadLargeDirectory: a directory listing cut at ReadMaxEntries says how
// to see the rest, and offset (an entry number, like a line number for a
// file) shows it.
func TestReadLargeDirectory(t *testing.T) {
	files := map[string]string{}
	n := tools.ReadMaxEntries + 20
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("big/f%04d", i)] = ""
	}
	r, _ := newRun(t, files)
	first := mustCall(t, r, "read", map[string]any{"path": "big"})
	last := fmt.Sprintf("f%04d", tools.ReadMaxEntries-1)
	if !strings.Contains(first, last) || strings.Contains(first, fmt.Sprintf("f%04d", tools.ReadMaxEntries)) ||
		!strings.Contains(first, fmt.Sprintf("entries 1-%d of %d shown; call read with offset %d to continue", tools.ReadMaxEntries, n, tools.ReadMaxEntries+1)) {
		t.Errorf("first page:\n...%s", first[len(first)-200:])
	}
	rest := mustCall(t, r, "read", map[string]any{"path": "big", "offset": tools.ReadMaxEntries + 1})
	if strings.Contains(rest, last+"\n") || !strings.Contains(rest, fmt.Sprintf("f%04d", n-1)) || !strings.Contains(rest, fmt.Sprintf("entries %d-%d of %d shown", tools.ReadMaxEntries+1, n, n)) {
		t.Errorf("second page:\n%s", rest)
	}
	if res, err := call(t, r, "read", map[string]any{"path": "big", "offset": n + 1}); err == nil || !strings.Contains(res.AllText(), "past the end") {
		t.Errorf("offset past the last entry: %v %s", err, res.AllText())
	}
}

// TestWriteDirectoryPath: a path ending in a slash names a directory; write
// refuses it instead of creating a file of that name.
func TestWriteDirectoryPath(t *testing.T) {
	r, dir := newRun(t, nil)
	res, err := call(t, r, "write", map[string]any{"path": "newdir/", "content": "x"})
	if err == nil || !strings.Contains(res.AllText(), "give a file path") {
		t.Errorf("write newdir/: %v %s", err, res.AllText())
	}
	if _, err := os.Lstat(filepath.Join(dir, "newdir")); err == nil {
		t.Error("newdir was created")
	}
}

// TestFileToolsRefuseBadText: invalid UTF-8 or a lone surrogate escape in
// write's content or path, edit's strings or apply_patch's patch is refused,
// saying which argument and why, and nothing is written; before, Go's JSON
// decoding made each a U+FFFD and "wrote 5 bytes" was reported. A surrogate
// pair is a character and is written as its UTF-8.
func TestFileToolsRefuseBadText(t *testing.T) {
	r, dir := newRun(t, map[string]string{"e.txt": "hello\n"})
	cases := []struct {
		tool, args, want string
	}{
		{"write", `{"path":"a.txt","content":"ab` + "\xff" + `cd"}`, "content holds invalid UTF-8 (byte 0xff"},
		{"write", `{"path":"a.txt","content":"x\ud800y"}`, `content holds a lone surrogate (\ud800`},
		{"write", `{"path":"a.txt","content":"x\udc00"}`, `content holds a lone surrogate (\udc00`},
		{"write", `{"path":"a.txt","content":"x\ud800\u0041"}`, `content holds a lone surrogate (\ud800`},
		{"write", `{"path":"b` + "\xc3" + `.txt","content":"x"}`, "path holds invalid UTF-8 (byte 0xc3"},
		{"write", `{"path":"b\udfff.txt","content":"x"}`, `path holds a lone surrogate`},
		{"edit", `{"path":"e.txt","old_string":"hello","new_string":"h\ud83d"}`, `new_string holds a lone surrogate (\ud83d`},
		{"edit", `{"path":"e.txt","old_string":"hel` + "\xe2\x82" + `","new_string":"x"}`, "old_string holds invalid UTF-8"},
		{"apply_patch", `{"patch":"*** Begin Patch\n*** Add File: p.txt\n+\udead\n*** End Patch"}`, "patch holds a lone surrogate"},
	}
	for _, c := range cases {
		res, err := r.Call(context.Background(), c.tool, json.RawMessage(c.args), tools.FromModel)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "Nothing was written") {
			t.Errorf("%s %s: want an error containing %q, got %v %s", c.tool, c.args, c.want, err, res.AllText())
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || testenv.ReadText(t, filepath.Join(dir, "e.txt")) != "hello\n" {
		t.Errorf("files after refused calls: %v", ents)
	}
	// Valid text, escaped or not, is written exactly.
	for _, args := range []string{`{"path":"ok.txt","content":"\ud83d\ude00 \u00e9 \\ud800 é"}`} {
		if _, err := r.Call(context.Background(), "write", json.RawMessage(args), tools.FromModel); err != nil {
			t.Fatal(err)
		}
	}
	if got := testenv.ReadText(t, filepath.Join(dir, "ok.txt")); got != "😀 é \\ud800 é" {
		t.Errorf("ok.txt = %q", got)
	}
}
