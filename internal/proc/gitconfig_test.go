package proc_test

import "bytes"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/proc"

// TestPeersGitRunsNoRepositoryProgram: git run by any process tether starts
// (go's VCS stamping runs git status, a worker's agent git commit) ignores
// the program-running settings a repository's .git/config makes (fsmonitor,
// hooks, the pager, gpg with signing on, a credential helper) and the
// operator's own configuration, and reads tether's global configuration
// from the process's home. The sandbox is off so that a program that ran
// could leave its mark.
func TestPeersGitRunsNoRepositoryProgram(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir, markers, scratch := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "scratch")
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = operator-identity\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "a"}} {
		c := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	hook := "#!/bin/sh\ntouch " + markers + "/hook\n"
	os.WriteFile(filepath.Join(dir, ".git", "hooks", "pre-commit"), []byte(hook), 0o755)
	mark := func(n string) string { return fmt.Sprintf("touch %s/%s; true", markers, n) }
	f, _ := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "[core]\n\tfsmonitor = %s\n\tpager = %s\n\teditor = %s\n[commit]\n\tgpgSign = true\n[gpg]\n\tprogram = %s\n[credential]\n\thelper = !%s\n",
		mark("fsmonitor"), mark("pager"), mark("editor"), mark("gpg"), mark("credential"))
	f.Close()

	defer proc.Configure(proc.Options{})
	proc.Configure(proc.Options{Off: true})
	os.WriteFile(filepath.Join(dir, "x.txt"), []byte("x\n"), 0o644)
	script := `git status --porcelain && git add x.txt && git -c user.name=w -c user.email=w@e commit -q -m x && git log -1 --format=%an && git config --global --get safe.directory && git config --get user.name || echo no-operator-identity`
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := proc.Sandbox(cmd, proc.Policy{Peer: "git test", Family: proc.Workers, Scratch: scratch}); err != nil {
		t.Fatal(err)
	}
	if err := proc.Run(cmd); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	ents, _ := os.ReadDir(markers)
	for _, e := range ents {
		t.Errorf("the repository's %s program ran", e.Name())
	}
	text := out.String()
	if !strings.Contains(text, "\n*\n") || !strings.Contains(text, "no-operator-identity") {
		t.Errorf("want tether's global configuration (safe.directory *) and not the operator's (user.name):\n%s", text)
	}
}
