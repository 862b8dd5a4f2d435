package workers_test

import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "testing"

import "github.com/google/jsonschema-go/jsonschema"
import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/workers"

var answerSchema = &jsonschema.Schema{
	Type:       "object",
	Properties: map[string]*jsonschema.Schema{"answer": {Type: "integer"}},
	Required:   []string{"answer"},
}

// TestOutputSchema runs a batch of workers with one schema: a result that
// conforms, one in a fenced block, and one that does not, reported with
// the validation error and its text kept.
func TestOutputSchema(t *testing.T) {
	r := newRoster(t, workers.Config{Commands: map[string]string{workers.Fast: script(t, "json.sh")}})
	ids := map[string]string{}
	for _, brief := range []string{"NUMBER please", "FENCED please", "anything"} {
		if err := r.Check(workers.Spec{Brief: brief, OutputSchema: answerSchema}); err != nil {
			t.Fatal(err)
		}
		id, err := r.Start(workers.Spec{Brief: brief, OutputSchema: answerSchema})
		if err != nil {
			t.Fatal(err)
		}
		ids[brief] = id
	}
	for brief, id := range ids {
		rep := wait(t, r, id)
		if rep.Status != workers.Done || !rep.SchemaChecked {
			t.Fatalf("%s: status %s checked %v, log %s", brief, rep.Status, rep.SchemaChecked, rep.LogTail)
		}
		switch brief {
		case "anything":
			if !strings.Contains(rep.SchemaError, "answer") || !strings.Contains(rep.Result, `"many"`) {
				t.Errorf("non-conforming result: error %q, result %q", rep.SchemaError, rep.Result)
			}
		default:
			if rep.SchemaError != "" {
				t.Errorf("%s: conforming result reported %q (result %q)", brief, rep.SchemaError, rep.Result)
			}
		}
	}
	// A schema that does not resolve is refused before anything starts.
	bad := &jsonschema.Schema{Ref: "#/$defs/missing"}
	if err := r.Check(workers.Spec{Brief: "x", OutputSchema: bad}); err == nil || !strings.Contains(err.Error(), "output schema") {
		t.Errorf("unresolvable schema: err = %v", err)
	}
}

// gitRepo makes a repository with one commit holding a.txt.
func gitRepo(t *testing.T) string {
	t.Helper()
	testenv.RequireBinary(t, "git")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "a.txt"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "a"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func worktrees(t *testing.T, dir string) int {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "worktree", "list", "--porcelain").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(out), "worktree ")
}

// TestIsolatedWorker runs a worker in its own worktree: the workdir is left
// alone, the changes come back against the base commit, and the worktree is
// removed when the worker is killed.
func TestIsolatedWorker(t *testing.T) {
	dir := gitRepo(t)
	escape := filepath.Join(dir, "escape.txt")
	r := newRoster(t, workers.Config{Dir: dir, Env: []string{"ESCAPE=" + escape},
		Commands: map[string]string{workers.Fast: script(t, "edit.sh")}})
	id, err := r.Start(workers.Spec{Brief: "two\n", Isolated: true})
	if err != nil {
		t.Fatal(err)
	}
	rep := wait(t, r, id)
	if rep.Status != workers.Done {
		t.Fatalf("status %s: %s %s", rep.Status, rep.Exit, rep.LogTail)
	}
	if ran := strings.TrimSpace(rep.Result); ran == dir || ran == "" {
		t.Errorf("the worker ran in %q, want its own worktree", ran)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "one\n" {
		t.Errorf("workdir a.txt = %q: the isolated worker wrote the workdir", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Error("workdir has b.txt: the isolated worker wrote the workdir")
	}
	if _, err := os.Stat(escape); err == nil && proc.SandboxStatus().Files() {
		t.Error("the isolated worker wrote the workdir through the sandbox")
	}
	c := rep.Changes
	if c == nil || c.Err != "" || len(c.Files) != 2 {
		t.Fatalf("changes = %+v", c)
	}
	a, b := c.Files[0], c.Files[1]
	if a.Path != "a.txt" || a.Create || string(a.Old) != "one\n" || string(a.New) != "one\ntwo\n" {
		t.Errorf("a.txt change = %s create=%v old %q new %q", a.Path, a.Create, a.Old, a.New)
	}
	if b.Path != "b.txt" || !b.Create || string(b.New) != "new file\n" {
		t.Errorf("b.txt change = %s create=%v new %q", b.Path, b.Create, b.New)
	}
	if n := worktrees(t, dir); n != 2 {
		t.Errorf("%d worktrees while the worker is kept, want 2", n)
	}
	// A follow-up (a rerun: edit.sh appends its brief's first line again)
	// has its changes against what the first run left.
	send(t, r, id, "three")
	rep2 := wait(t, r, id)
	if c := rep2.Changes; c == nil || len(c.Files) != 1 || c.Files[0].Path != "a.txt" ||
		string(c.Files[0].Old) != "one\ntwo\n" || string(c.Files[0].New) != "one\ntwo\ntwo\n" || c.Base == rep.Changes.Base {
		t.Errorf("follow-up changes = %+v", c)
	}
	if _, err := r.Kill(id); err != nil {
		t.Fatal(err)
	}
	if n := worktrees(t, dir); n != 1 {
		t.Errorf("%d worktrees after kill, want the workdir's only", n)
	}
	if _, err := os.Stat(strings.TrimSpace(rep.Result)); err == nil {
		t.Errorf("worktree %s still exists after kill", rep.Result)
	}
}

func TestIsolatedNeedsGit(t *testing.T) {
	r := newRoster(t, workers.Config{Dir: t.TempDir(), Commands: map[string]string{workers.Fast: script(t, "edit.sh")}})
	_, err := r.Start(workers.Spec{Brief: "two", Isolated: true})
	if err == nil || !strings.Contains(err.Error(), "git repository") {
		t.Fatalf("isolated outside a repository: err = %v", err)
	}
	if len(r.List()) != 0 {
		t.Errorf("a worker was added: %+v", r.List())
	}
}

// TestIsolatedSubdirectory: a workdir below the repository's top runs the
// worker at its place in the worktree; its changes are relative to the
// workdir, and a file it wrote outside the workdir is left out, named.
func TestIsolatedSubdirectory(t *testing.T) {
	top := gitRepo(t)
	sub := filepath.Join(top, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "a.txt"), []byte("sub one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "sub"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "sub"}} {
		if out, err := exec.Command("git", append([]string{"-C", top}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	r := newRoster(t, workers.Config{Dir: sub, Commands: map[string]string{workers.Fast: "sh " + mustAbs(t, "testdata/edit.sh") + " && echo out > ../outside.txt"}})
	id, err := r.Start(workers.Spec{Brief: "two\n", Isolated: true})
	if err != nil {
		t.Fatal(err)
	}
	rep := wait(t, r, id)
	c := rep.Changes
	if rep.Status != workers.Done || c == nil || len(c.Files) != 2 {
		t.Fatalf("status %s (%s %s), changes %+v", rep.Status, rep.Exit, rep.LogTail, c)
	}
	if c.Files[0].Path != "a.txt" || string(c.Files[0].Old) != "sub one\n" || string(c.Files[0].New) != "sub one\ntwo\n" {
		t.Errorf("a.txt change = %s %q -> %q", c.Files[0].Path, c.Files[0].Old, c.Files[0].New)
	}
	if len(c.LeftOut) != 1 || !strings.Contains(c.LeftOut[0], "outside.txt (outside the workdir)") {
		t.Errorf("left out = %q", c.LeftOut)
	}
	if ran := strings.TrimSpace(rep.Result); filepath.Base(ran) != "sub" || ran == sub {
		t.Errorf("ran in %q, want the worktree's sub", ran)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
