package workers

import "bytes"
import "context"
import "errors"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "syscall"
import "time"

import "github.com/tetherhq/tether/internal/proc"

// Bounds of what an isolated worker's changes may hold.
const (
	// MaxChangedFiles caps how many files an isolated worker's changes hold.
	MaxChangedFiles = 1000
	// MaxChangedBytes caps their content (old and new together).
	MaxChangedBytes = 64 << 20
	// gitTimeout bounds one git command tether runs for a worktree.
	gitTimeout = 2 * time.Minute
)

// Change is one file an isolated worker changed in its worktree, relative
// to the commit its worktree was made from.
type Change struct {
	// Path is the file relative to Config.Dir, with forward slashes.
	Path string `json:"path"`
	// Old is its content in that commit (empty when Create).
	Old []byte `json:"-"`
	// New is its content in the worktree when the run ended.
	New []byte `json:"-"`
	// Create says the file is new.
	Create bool `json:"create,omitempty"`
	// Delete says the worker deleted the file (New is empty).
	Delete bool `json:"delete,omitempty"`
}

// Changes are what an isolated worker's run left in its worktree.
type Changes struct {
	// Base is the commit the worktree was made from.
	Base string `json:"base"`
	// Files are the changed files, in path order.
	Files []Change `json:"files"`
	// LeftOut are changes that cannot come back as a staged edit, each
	// with why (a symbolic link, a file outside Dir).
	LeftOut []string `json:"left_out,omitempty"`
	// Err says why the changes could not be read; Files is then empty.
	Err string `json:"error,omitempty"`
}

// tree is an isolated worker's git worktree.
type tree struct {
	top     string // the workdir's repository top level
	prefix  string // Config.Dir relative to top ("" or "sub/dir/")
	base    string // the commit the worktree was made from
	scratch string // the directory holding the worktree, removed with it
	path    string // the worktree itself
	gitdir  string // the worktree's own git directory (index, HEAD)
	common  string // the repository's common git directory (objects, config)
}

// dir is where the worker runs: Config.Dir's place in the worktree.
func (t *tree) dir() string { return filepath.Join(t.path, filepath.FromSlash(t.prefix)) }

// git runs git sandboxed, read-write on rw only, and returns its stdout.
// No program the repository's configuration names runs: a worker (or a
// tenant with write access) may have written .git/config, .git/info/attributes
// or .gitattributes. The settings that run a program whatever its name
// (hooks, fsmonitor, the pager, ssh, credential helpers, gpg) are fixed for
// every process tether starts (internal/proc's git settings); the filters,
// diff drivers and merge drivers the repository defines by name are read
// first and each is emptied on the command line, so git checks files out and
// in as they are stored.
func git(dir string, ro, rw []string, args ...string) ([]byte, error) {
	off, err := repoPrograms(dir, ro)
	if err != nil {
		return nil, err
	}
	out, _, err := runGit(dir, ro, rw, append(off, args...)...)
	return out, err
}

// repoPrograms returns the -c arguments that empty every filter, diff
// driver and merge driver the repository's configuration (includes
// followed, the worktree's own too) defines.
func repoPrograms(dir string, ro []string) ([]string, error) {
	out, stderr, err := runGit(dir, ro, nil, "config", "--null", "--get-regexp", `^(filter|diff|merge)\.`)
	if err != nil {
		// Exit status 1 without a message: no such key.
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 && len(bytes.TrimSpace(stderr)) == 0 {
			return nil, nil
		}
		return nil, fmt.Errorf("workers: cannot read the repository's git configuration, so the programs it may name cannot be turned off: %w", err)
	}
	var off []string
	seen := map[string]bool{}
	for _, ent := range strings.Split(string(out), "\x00") {
		key, _, _ := strings.Cut(ent, "\n")
		section, rest, ok := strings.Cut(key, ".")
		i := strings.LastIndexByte(rest, '.')
		if !ok || i <= 0 {
			continue
		}
		name := rest[:i]
		if seen[section+"."+name] {
			continue
		}
		seen[section+"."+name] = true
		var keys []string
		switch strings.ToLower(section) {
		case "filter":
			keys = []string{"smudge", "clean", "process"}
			off = append(off, "-c", "filter."+name+".required=false")
		case "diff":
			keys = []string{"command", "textconv"}
		case "merge":
			keys = []string{"driver"}
		}
		for _, k := range keys {
			off = append(off, "-c", section+"."+name+"."+k+"=")
		}
	}
	return off, nil
}

// runGit runs git sandboxed in dir, read-write on rw only, with hooks and
// fsmonitor off, and returns its stdout and stderr.
func runGit(dir string, ro, rw []string, args ...string) ([]byte, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	full := append([]string{"-c", "core.hooksPath=" + os.DevNull, "-c", "core.fsmonitor=false", "-c", "core.quotePath=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = dir
	// Neither the system's nor the user's git configuration: the sandbox does
	// not grant them, and tether needs none of it.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_PAGER=cat")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	tro, trw := proc.Table(proc.Shell, "git", cmd.Env)
	ro = append(append(tro, dir), ro...)
	if err := proc.Sandbox(cmd, proc.Policy{Peer: "git", Family: proc.Workers, RO: ro, RW: append(trw, rw...)}); err != nil {
		return nil, nil, err
	}
	cmd.WaitDelay = 2 * time.Second
	if err := proc.Start(cmd); err != nil {
		return nil, nil, err
	}
	err := cmd.Wait()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		sub := args
		for len(sub) > 2 && sub[0] == "-c" {
			sub = sub[2:]
		}
		return out.Bytes(), errb.Bytes(), fmt.Errorf("git %s: %s: %w", sub[0], msg, err)
	}
	return out.Bytes(), errb.Bytes(), nil
}

// newTree makes a worktree of the repository dir is in, at its HEAD, in a
// scratch directory of its own.
func newTree(dir string) (*tree, error) {
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("workers: isolated: %w", err)
		}
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil, errors.New("workers: isolated needs git, which is not on PATH: install git, or spawn without isolated")
	}
	top := findTop(dir)
	if top == "" {
		return nil, fmt.Errorf("workers: isolated needs the workdir %s to be in a git repository, and no directory from it up holds .git: run git init and commit there, or spawn without isolated", dir)
	}
	out, err := git(dir, []string{top}, nil, "rev-parse", "--show-toplevel", "--show-prefix", "--git-common-dir")
	if err != nil {
		return nil, fmt.Errorf("workers: isolated needs the workdir %s to be in a git repository (%v): run git init and commit there, or spawn without isolated", dir, err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 3 {
		return nil, fmt.Errorf("workers: isolated: git rev-parse in %s said %q", dir, out)
	}
	t := &tree{top: lines[0], prefix: lines[1], common: lines[2]}
	if !filepath.IsAbs(t.common) {
		t.common = filepath.Join(dir, t.common)
	}
	base, err := git(dir, t.ro(), nil, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		return nil, fmt.Errorf("workers: isolated: the repository at %s has no commit yet: commit the files the worker starts from, or spawn without isolated", t.top)
	}
	t.base = strings.TrimSpace(string(base))
	if t.scratch, err = os.MkdirTemp("", "tether-worker-"); err != nil {
		return nil, fmt.Errorf("workers: isolated: cannot make a scratch directory for the worktree: %w", err)
	}
	t.path = filepath.Join(t.scratch, "tree")
	if _, err := git(t.top, t.ro(), []string{t.common, t.scratch}, "worktree", "add", "--detach", t.path, t.base); err != nil {
		os.RemoveAll(t.scratch)
		return nil, fmt.Errorf("workers: isolated: cannot add a git worktree of %s: %w", t.top, err)
	}
	gd, err := git(t.path, t.ro(), nil, "rev-parse", "--absolute-git-dir")
	if err != nil {
		t.remove()
		return nil, fmt.Errorf("workers: isolated: the new worktree has no git directory: %w", err)
	}
	t.gitdir = strings.TrimSpace(string(gd))
	return t, nil
}

// remove removes the worktree and its scratch directory.
func (t *tree) remove() error {
	_, err := git(t.top, t.ro(), []string{t.common, t.scratch}, "worktree", "remove", "--force", t.path)
	if rerr := os.RemoveAll(t.scratch); err == nil && rerr != nil {
		err = rerr
	}
	if _, perr := git(t.top, t.ro(), []string{t.common}, "worktree", "prune"); err == nil {
		err = perr
	}
	return err
}

// changes reads what the worktree holds that its base commit does not: a
// file changed or added (untracked files too, ignored ones not). Then it
// commits them in the worktree and makes that commit the base, so a
// follow-up run's changes are against what this run left (which is what
// the workdir holds once this run's edit is accepted).
func (t *tree) changes() Changes {
	c := t.diff()
	if c.Err == "" && (len(c.Files) > 0 || len(c.LeftOut) > 0) {
		if err := t.advance(); err != nil {
			c.LeftOut = append(c.LeftOut, "(a follow-up's changes will be against the original base: "+err.Error()+")")
		}
	}
	return c
}

// advance commits everything in the worktree and makes it the base.
func (t *tree) advance() error {
	rw := []string{t.gitdir, t.common}
	if _, err := git(t.path, t.ro(), rw, "add", "-A"); err != nil {
		return err
	}
	if _, err := git(t.path, t.ro(), rw, "-c", "user.name=tether", "-c", "user.email=tether@localhost",
		"commit", "-q", "--no-verify", "--allow-empty", "-m", "worker run"); err != nil {
		return err
	}
	head, err := git(t.path, t.ro(), nil, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	t.base = strings.TrimSpace(string(head))
	return nil
}

// diff reads the changes against the base.
func (t *tree) diff() Changes {
	c := Changes{Base: t.base, Files: []Change{}}
	out, err := git(t.path, t.ro(), []string{t.gitdir}, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		c.Err = err.Error()
		return c
	}
	var size int
	for _, ent := range strings.Split(string(out), "\x00") {
		if len(ent) < 4 {
			continue
		}
		xy, path := ent[:2], ent[3:]
		rel, inside := strings.CutPrefix(path, t.prefix)
		if !inside {
			c.LeftOut = append(c.LeftOut, path+" (outside the workdir)")
			continue
		}
		ch := Change{Path: rel, Create: xy == "??" || strings.ContainsRune(xy, 'A'), Delete: strings.ContainsRune(xy, 'D')}
		if !ch.Delete {
			fi, err := os.Lstat(filepath.Join(t.path, filepath.FromSlash(path)))
			if err != nil || !fi.Mode().IsRegular() {
				c.LeftOut = append(c.LeftOut, rel+" (not a regular file)")
				continue
			}
		}
		if len(c.Files) == MaxChangedFiles {
			c.LeftOut = append(c.LeftOut, rel+fmt.Sprintf(" (over %d files)", MaxChangedFiles))
			continue
		}
		var err error
		if !ch.Delete {
			if ch.New, err = os.ReadFile(filepath.Join(t.path, filepath.FromSlash(path))); err != nil {
				c.LeftOut = append(c.LeftOut, rel+" ("+err.Error()+")")
				continue
			}
		}
		if !ch.Create {
			if ch.Old, err = git(t.path, t.ro(), nil, "cat-file", "blob", t.base+":"+path); err != nil {
				c.LeftOut = append(c.LeftOut, rel+" ("+err.Error()+")")
				continue
			}
		}
		if bytes.Equal(ch.Old, ch.New) && !ch.Create && !ch.Delete {
			continue // only its mode or index entry changed
		}
		if size += len(ch.Old) + len(ch.New); size > MaxChangedBytes {
			c.LeftOut = append(c.LeftOut, rel+fmt.Sprintf(" (the changes are over %d MiB)", MaxChangedBytes>>20))
			continue
		}
		c.Files = append(c.Files, ch)
	}
	return c
}

// ro is what git reads of the repository.
func (t *tree) ro() []string {
	ro := []string{t.top, t.common}
	if t.path != "" {
		ro = append(ro, t.path)
	}
	return ro
}

// findTop returns the nearest directory from dir up that holds .git (a
// directory, or the file of a worktree or submodule), or "".
func findTop(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}
