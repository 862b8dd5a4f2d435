package workers_test

import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/workers"

// TestFollowUpResumes: a finished worker on a tier with a resume command
// continues its conversation: the command gets only the follow-up, and the
// state it kept from the first run is still there.
func TestFollowUpResumes(t *testing.T) {
	r := newRoster(t, workers.Config{
		Commands: map[string]string{workers.Fast: script(t, "chat.sh")},
		Resume:   map[string]string{workers.Fast: script(t, "chat.sh")},
	})
	id := spawn(t, r, "count the files\n", "counter", "")
	if rep := wait(t, r, id); rep.Result != "run 1\ncount the files\n" {
		t.Fatalf("first run = %q (log %s)", rep.Result, rep.LogTail)
	}
	send(t, r, id, "now only the .go ones\n")
	rep := wait(t, r, id)
	if !rep.Resumed || rep.Result != "run 2\ncount the files\nnow only the .go ones\n" {
		t.Errorf("follow-up: resumed %v result %q, want the kept history plus only the message", rep.Resumed, rep.Result)
	}
}

// TestFollowUpWithoutResume: a tier with no resume command is rerun from
// the start with the brief and the message, and its last result is in its
// state directory.
func TestFollowUpWithoutResume(t *testing.T) {
	r := newRoster(t, workers.Config{Commands: map[string]string{workers.Fast: "cat; printf 'last: '; cat \"$TETHER_WORKER_STATE/last_result\" 2>/dev/null || echo none"}})
	id := spawn(t, r, "list the files", "lister", "")
	if rep := wait(t, r, id); rep.Result != "list the fileslast: none\n" {
		t.Fatalf("first run = %q (log %s)", rep.Result, rep.LogTail)
	}
	send(t, r, id, "sorted")
	rep := wait(t, r, id)
	if rep.Resumed || rep.Result != "list the files\n\nsortedlast: list the fileslast: none\n" {
		t.Errorf("rerun: resumed %v result %q", rep.Resumed, rep.Result)
	}
}

// TestResumeNeedsCommand: a resume command for a tier with no command is
// refused.
func TestResumeNeedsCommand(t *testing.T) {
	_, err := workers.New(workers.Config{Commands: map[string]string{workers.Fast: "cat"}, Resume: map[string]string{workers.Good: "cat"}})
	if err == nil || !strings.Contains(err.Error(), "good tier") {
		t.Errorf("err = %v", err)
	}
}

// TestKilledIsolatedWorkerIsNotRerunInTheWorkdir: vibe_kill removes an
// isolated worker's worktree, so a follow-up is refused rather than run in
// the workdir itself.
func TestKilledIsolatedWorkerIsNotRerunInTheWorkdir(t *testing.T) {
	dir := gitRepo(t)
	r := newRoster(t, workers.Config{Dir: dir, Commands: map[string]string{workers.Fast: script(t, "edit.sh")}})
	id, err := r.Start(workers.Spec{Brief: "two\n", Isolated: true})
	if err != nil {
		t.Fatal(err)
	}
	wait(t, r, id)
	if _, err := r.Kill(id); err != nil {
		t.Fatal(err)
	}
	if err := r.Send(id, "three"); err == nil || !strings.Contains(err.Error(), "worktree was removed") {
		t.Errorf("send after kill: err = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "one\n" {
		t.Errorf("a.txt = %q", b)
	}
}
