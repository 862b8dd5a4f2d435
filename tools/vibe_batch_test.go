package tools_test

import "errors"
import "os"
import "os/exec"
import "path/filepath"
import "slices"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/tools"
import "github.com/tetherhq/tether/workers"

const answerSchema = `{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"]}`

// TestVibeBatchWithSchema spawns two workers in one call with a shared
// context and an output schema: one result conforms, the other is reported
// as not conforming, with the validation error and its text.
func TestVibeBatchWithSchema(t *testing.T) {
	run := vibeRun(t, workers.Config{Commands: map[string]string{workers.Fast: workerScript(t, "json.sh")}, Surface: "plan"})
	res := callResult(t, run, "vibe_spawn", `{"context":"You count things.","output_schema":`+answerSchema+`,
		"tasks":[{"brief":"NUMBER of apples","label":"apples"},{"brief":"how many pears","label":"pears"}]}`)
	infos := structured[*tools.VibeSpawned](t, res).Workers
	if len(infos) != 2 || infos[0].Label != "apples" || infos[1].Label != "pears" {
		t.Fatalf("spawn structured = %#v; text %q", res.Structured, res.AllText())
	}
	if text := res.AllText(); !strings.Contains(text, "Started 2 workers: "+infos[0].ID) || !strings.Contains(text, "checked against the output schema") {
		t.Errorf("spawn = %q", text)
	}
	good := callResult(t, run, "vibe_wait", `{"worker_id":"`+infos[0].ID+`"}`)
	if text := good.AllText(); !strings.Contains(text, "conforms to the output schema") || !strings.Contains(text, `{"answer": 42}`) {
		t.Errorf("conforming wait = %q", text)
	}
	bad := callResult(t, run, "vibe_wait", `{"worker_id":"`+infos[1].ID+`"}`)
	text := bad.AllText()
	if !strings.Contains(text, "does NOT conform to the output schema") || !strings.Contains(text, "answer") ||
		!strings.Contains(text, "Result (non-conforming):\n"+`{"answer": "many"}`) {
		t.Errorf("non-conforming wait = %q", text)
	}
	rep := bad.Structured.(tools.VibeReport)
	if !rep.SchemaChecked || rep.SchemaError == "" {
		t.Errorf("structured report = %+v", rep.Report)
	}

	for _, c := range []struct{ args, want string }{
		{`{"brief":"x","tasks":[{"brief":"y"}]}`, "not both"},
		{`{"label":"nothing"}`, "no brief"},
		{`{"context":"shared","tasks":[{"brief":"ok"},{"brief":"  ","label":"blank"}]}`, "task 2 (blank) has an empty brief"},
		{`{"tasks":[{"brief":"ok"},{"brief":"bad","tier":"good"}]}`, "task 2"},
		{`{"brief":"x","output_schema":{"$ref":"#/$defs/missing"}}`, "output schema"},
	} {
		n := len(callResult(t, run, "vibe_list", `{}`).AllText())
		_, err := call(t, run, "vibe_spawn", c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("vibe_spawn %s: err = %v, want %q", c.args, err, c.want)
		}
		if m := len(callResult(t, run, "vibe_list", `{}`).AllText()); m != n {
			t.Errorf("vibe_spawn %s started a worker though it failed", c.args)
		}
	}
}

// isolatedRun is a run on a git repository holding a.txt ("one\n"), with
// workers that edit their working directory (edit.sh).
func isolatedRun(t *testing.T) (*tools.Run, string) {
	t.Helper()
	return isolatedRunWith(t, "edit.sh", nil)
}

// isolatedRunWith is isolatedRun with the worker script given and more
// committed files.
func isolatedRunWith(t *testing.T, script string, files map[string]string) (*tools.Run, string) {
	t.Helper()
	testenv.RequireBinary(t, "git")
	dir := t.TempDir()
	all := map[string]string{"a.txt": "one\n"}
	for name, content := range files {
		all[name] = content
	}
	testenv.WriteFiles(t, dir, all)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "a"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	ws, err := workers.New(workers.Config{Dir: dir, Commands: map[string]string{workers.Fast: workerScript(t, script)}})
	if err != nil {
		t.Fatal(err)
	}
	run := startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), Vibe: tools.VibeConfig{On: true, Workers: ws}})
	return run, dir
}

// TestVibeIsolatedStagedAndResolved: an isolated worker edits its own
// worktree; vibe_wait stages the change with a diff preview, the workdir is
// untouched until resolve accepts it, and vibe_kill removes the worktree.
func TestVibeIsolatedStagedAndResolved(t *testing.T) {
	run, dir := isolatedRun(t)
	id := spawnedOne(t, callResult(t, run, "vibe_spawn", `{"brief":"two\n","label":"editor","isolated":true}`)).ID
	res := callResult(t, run, "vibe_wait", `{"worker_id":"`+id+`"}`)
	text := res.AllText()
	for _, want := range []string{"(proposed) its changes to 2 files", `edit_id "edit_1"`, "--- a/a.txt", "+two", "+new file"} {
		if !strings.Contains(text, want) {
			t.Errorf("wait lacks %q:\n%s", want, text)
		}
	}
	rep := res.Structured.(tools.VibeReport)
	if rep.Staged == nil || rep.Staged.EditID != "edit_1" || len(rep.Staged.Files) != 2 {
		t.Fatalf("staged = %+v", rep.Staged)
	}
	if got := testenv.FileText(filepath.Join(dir, "a.txt")); got != "one\n" {
		t.Fatalf("a.txt before resolve = %q", got)
	}
	// A second wait names the same edit rather than staging it again.
	if again := callResult(t, run, "vibe_wait", `{"worker_id":"`+id+`"}`).AllText(); !strings.Contains(again, `edit_id "edit_1"`) {
		t.Errorf("second wait = %q", again)
	}
	callResult(t, run, "resolve", `{"edit_id":"edit_1","action":"accept"}`)
	if got := testenv.FileText(filepath.Join(dir, "a.txt")); got != "one\ntwo\n" {
		t.Errorf("a.txt after accept = %q", got)
	}
	if got := testenv.FileText(filepath.Join(dir, "b.txt")); got != "new file\n" {
		t.Errorf("b.txt after accept = %q", got)
	}
	tree := strings.TrimSpace(rep.Result)
	if _, err := os.Stat(tree); err != nil {
		t.Fatalf("worktree %s gone before the worker was killed: %v", tree, err)
	}
	callResult(t, run, "vibe_kill", `{"worker_id":"`+id+`"}`)
	if _, err := os.Stat(tree); err == nil {
		t.Errorf("worktree %s still there after vibe_kill", tree)
	}
	out, err := exec.Command("git", "-C", dir, "worktree", "list").Output()
	if err != nil || strings.Count(string(out), "\n") != 1 {
		t.Errorf("git worktree list after kill: %v\n%s", err, out)
	}
}

// acceptAfterDrift writes text to the workdir's file name, which edit_1
// changes too, and fails the test unless accepting edit_1 then is
// rejected as stale, naming the file.
func acceptAfterDrift(t *testing.T, run *tools.Run, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := call(t, run, "resolve", `{"edit_id":"edit_1","action":"accept"}`)
	if !errors.Is(err, search.ErrStale) || !strings.Contains(err.Error(), name) {
		t.Fatalf("accept after drift: err = %v, want a stale rejection naming %s", err, name)
	}
}

// TestVibeIsolatedDrift: a file the worker changed is changed in the
// workdir before resolve; the whole edit is rejected and nothing written.
func TestVibeIsolatedDrift(t *testing.T) {
	run, dir := isolatedRun(t)
	id := spawnedOne(t, callResult(t, run, "vibe_spawn", `{"brief":"two\n","isolated":true}`)).ID
	callResult(t, run, "vibe_wait", `{"worker_id":"`+id+`"}`)
	acceptAfterDrift(t, run, dir, "a.txt", "one\nmine\n")
	if got := testenv.FileText(filepath.Join(dir, "a.txt")); got != "one\nmine\n" {
		t.Errorf("a.txt after the rejection = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Error("b.txt was written though the edit was rejected (all or nothing)")
	}
}

// TestVibeIsolatedDelete: a file an isolated worker deletes in its
// worktree is staged as a deletion with its edits (a deletion diff); a file
// changed in the workdir since rejects the whole edit, naming it, and
// accepting removes it and writes the rest.
func TestVibeIsolatedDelete(t *testing.T) {
	run, dir := isolatedRunWith(t, "delete.sh", map[string]string{"old.txt": "stale\nlines\n"})
	id := spawnedOne(t, callResult(t, run, "vibe_spawn", `{"brief":"old.txt\n","label":"pruner","isolated":true}`)).ID
	res := callResult(t, run, "vibe_wait", `{"worker_id":"`+id+`"}`)
	text := res.AllText()
	for _, want := range []string{"(proposed) its changes to 2 files (1 deleted)", `edit_id "edit_1"`,
		"--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-stale\n-lines", "+kept", "old.txt 1 (+0 -2) deleted"} {
		if !strings.Contains(text, want) {
			t.Errorf("wait lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Not carried over") {
		t.Errorf("the deletion is listed as not carried over:\n%s", text)
	}
	rep := res.Structured.(tools.VibeReport)
	if rep.Staged == nil || len(rep.Staged.Files) != 2 || !slices.ContainsFunc(rep.Staged.Files, func(f tools.StagedFile) bool { return f.Path == "old.txt" && f.Deleted }) {
		t.Fatalf("staged = %+v", rep.Staged)
	}
	if got := testenv.FileText(filepath.Join(dir, "old.txt")); got != "stale\nlines\n" {
		t.Fatalf("old.txt before resolve = %q", got)
	}

	// Changed in the workdir since: the whole edit is rejected.
	acceptAfterDrift(t, run, dir, "old.txt", "stale\nmine\n")
	if got := testenv.FileText(filepath.Join(dir, "a.txt")); got != "one\n" {
		t.Errorf("a.txt after the rejection = %q (all or nothing)", got)
	}
	if got := testenv.FileText(filepath.Join(dir, "old.txt")); got != "stale\nmine\n" {
		t.Errorf("old.txt after the rejection = %q", got)
	}

	if err := os.WriteFile(filepath.Join(dir, "old.txt"), []byte("stale\nlines\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	callResult(t, run, "resolve", `{"edit_id":"edit_1","action":"accept"}`)
	if _, err := os.Stat(filepath.Join(dir, "old.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("old.txt after accept: %v, want it deleted", err)
	}
	if got := testenv.FileText(filepath.Join(dir, "a.txt")); got != "one\nkept\n" {
		t.Errorf("a.txt after accept = %q", got)
	}
}

// TestVibeIsolatedNeedsGit: isolated outside a git repository is a clear
// error and starts nothing.
func TestVibeIsolatedNeedsGit(t *testing.T) {
	run := vibeRun(t, workers.Config{Commands: map[string]string{workers.Fast: workerScript(t, "edit.sh")}, Dir: t.TempDir(), Surface: "plan"})
	_, err := call(t, run, "vibe_spawn", `{"brief":"two","isolated":true}`)
	if err == nil || !strings.Contains(err.Error(), "git repository") || !strings.Contains(err.Error(), "git init") {
		t.Fatalf("err = %v", err)
	}
}

// TestVibeSendFollowUp: a finished worker on a tier with a resume command
// continues its conversation; one without says it starts over.
func TestVibeSendFollowUp(t *testing.T) {
	chat := workerScript(t, "chat.sh")
	run := vibeRun(t, workers.Config{
		Commands: map[string]string{workers.Fast: chat, workers.Good: chat},
		Resume:   map[string]string{workers.Fast: chat},
		Surface:  "plan",
	})
	for _, c := range []struct{ tier, send, result string }{
		{"fast", "continues its conversation", "run 2\ncount the files\nonly the .go ones"},
		// chat.sh keeps its history: the rerun told it the whole brief again.
		{"good", "does not keep its conversation", "run 2\ncount the files\ncount the files\n\n\nonly the .go ones"},
	} {
		t.Run(c.tier, func(t *testing.T) {
			id := spawnedOne(t, callResult(t, run, "vibe_spawn", `{"brief":"count the files\n","label":"counter","tier":"`+c.tier+`"}`)).ID
			callResult(t, run, "vibe_wait", `{"worker_id":"`+id+`"}`)
			if text := callResult(t, run, "vibe_send", `{"worker_id":"`+id+`","message":"only the .go ones"}`).AllText(); !strings.Contains(text, c.send) {
				t.Errorf("send = %q, want %q", text, c.send)
			}
			if text := callResult(t, run, "vibe_wait", `{"worker_id":"`+id+`"}`).AllText(); !strings.Contains(text, c.result) {
				t.Errorf("wait after send = %q, want %q", text, c.result)
			}
		})
	}
}
