package workers_test

import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/workers"

// hostileRepo makes a repository whose configuration names a program for
// everything git can run one for: filters (one through an included file,
// one through .git/info/attributes), diff and merge drivers, textconv,
// fsmonitor, hooks, the pager, the editor, ssh, askpass, credential
// helper, gpg with signing on. Each program touches a file in the returned
// marker directory.
func hostileRepo(t *testing.T) (dir, markers string) {
	t.Helper()
	dir = gitRepo(t)
	markers = t.TempDir()
	mark := func(name string) string { return fmt.Sprintf("touch %s/%s; cat", markers, name) }
	files := map[string]string{
		".gitattributes": "*.txt filter=evil diff=evil merge=evil\n*.md filter=evil2\n",
		"c.md":           "markdown\n",
	}
	testenv.WriteFiles(t, dir, files)
	for _, args := range [][]string{{"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "attributes"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	hooks := filepath.Join(dir, ".git", "hooks")
	for _, h := range []string{"post-checkout", "pre-commit", "commit-msg", "post-commit", "reference-transaction", "post-index-change"} {
		if err := os.WriteFile(filepath.Join(hooks, h), []byte("#!/bin/sh\ntouch "+markers+"/hook-"+h+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	extra := filepath.Join(dir, ".git", "extra.cfg")
	os.WriteFile(extra, []byte(fmt.Sprintf("[filter \"evil2\"]\n\tsmudge = %s\n\tclean = %s\n\trequired = true\n", mark("included-smudge"), mark("included-clean"))), 0o644)
	os.WriteFile(filepath.Join(dir, ".git", "info", "attributes"), []byte("b.txt filter=evil3\n"), 0o644)
	cfg := fmt.Sprintf(`[include]
	path = extra.cfg
[filter "evil"]
	smudge = %s
	clean = %s
	process = touch %s/process
	required = true
[filter "evil3"]
	clean = %s
	required = true
[diff "evil"]
	textconv = %s
	command = %s
[merge "evil"]
	driver = %s
[core]
	fsmonitor = %s
	pager = %s
	editor = %s
	sshCommand = %s
	askPass = %s
[credential]
	helper = !%s
[gpg]
	program = %s
[commit]
	gpgSign = true
[log]
	showSignature = true
`, mark("smudge"), mark("clean"), markers, mark("info-attributes-clean"), mark("textconv"), mark("diff-command"), mark("merge-driver"),
		mark("fsmonitor"), mark("pager"), mark("editor"), mark("ssh"), mark("askpass"), mark("credential"), mark("gpg"))
	f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(cfg)
	f.Close()
	return dir, markers
}

func markersIn(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestIsolatedRunsNoRepositoryProgram: a repository whose configuration
// names programs for git (a tenant with write access, or a worker, can
// write .git/config) gets an isolated worker all the same, its worktree
// made, its changes read and committed, and none of those programs runs.
// The check runs with the sandbox off so that a program that did run could
// leave its mark anywhere; with it on they would run confined, which is
// still running a program the exec tier never approved.
func TestIsolatedRunsNoRepositoryProgram(t *testing.T) {
	dir, markers := hostileRepo(t)
	// The hostile configuration works for a git run the ordinary way.
	probe := filepath.Join(t.TempDir(), "probe")
	exec.Command("git", "-C", dir, "worktree", "add", "-q", "--detach", probe, "HEAD").Run()
	if got := markersIn(t, markers); len(got) == 0 {
		t.Fatal("the hostile configuration ran nothing for a plain git worktree add: the test would prove nothing")
	}
	exec.Command("git", "-C", dir, "-c", "core.hooksPath=/dev/null", "worktree", "remove", "--force", probe).Run()
	for _, m := range markersIn(t, markers) {
		os.Remove(filepath.Join(markers, m))
	}

	defer proc.Configure(proc.Options{})
	proc.Configure(proc.Options{Off: true})
	r := newRoster(t, workers.Config{Dir: dir, Commands: map[string]string{workers.Fast: script(t, "edit.sh")}})
	id, err := r.Start(workers.Spec{Brief: "two\n", Isolated: true})
	if err != nil {
		t.Fatalf("spawn: %v (markers: %v)", err, markersIn(t, markers))
	}
	rep := wait(t, r, id)
	if rep.Status != workers.Done {
		t.Fatalf("status %s: %s %s", rep.Status, rep.Exit, rep.LogTail)
	}
	c := rep.Changes
	if c == nil || c.Err != "" || len(c.Files) != 2 || c.Files[0].Path != "a.txt" || string(c.Files[0].New) != "one\ntwo\n" {
		t.Errorf("changes = %+v", c)
	}
	if len(rep.Changes.LeftOut) > 0 {
		t.Errorf("left out: %v", rep.Changes.LeftOut)
	}
	// A follow-up commits the first run's changes (signing on, hooks there).
	send(t, r, id, "three")
	wait(t, r, id)
	if _, err := r.Kill(id); err != nil {
		t.Fatal(err)
	}
	if got := markersIn(t, markers); len(got) > 0 {
		t.Errorf("repository-configured programs ran: %s", strings.Join(got, ", "))
	}
}
