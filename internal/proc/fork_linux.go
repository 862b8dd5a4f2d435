package proc

import _ "embed"
import "errors"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "slices"
import "strings"

import "golang.org/x/sys/unix"

// ForkChildSource is Python that a process forked from a zygote runs to
// confine itself as the launcher would have confined it
// (tether_fork_child(spec, trees, ctl, keep)): a zygote defines it once,
// before it forks anything.
//
//go:embed forkchild.py
var ForkChildSource string

// ForkSpec is what a forked process confines itself by (ForkChildSource):
// the launcher's rules for its Policy, with the paths the zygote's view
// lacks coming as detached mount trees (Trees, in the order of the
// descriptors that travel with the request).
type ForkSpec struct {
	Peer  string   `json:"peer"`
	Net   bool     `json:"net"`
	RO    []string `json:"ro"`
	RW    []string `json:"rw"`
	Trees []string `json:"trees"`
	Cwd   string   `json:"cwd"`
	Env   []string `json:"env"`
	AS    uint64   `json:"as"`
	Nice  int      `json:"nice"` // the priority it runs at (peerNice)
}

// NewForkSpec is the spec of a process of policy p forked from a zygote
// started with ZygotePolicy(p), working in cwd with env (tether's view of
// its environment, filtered as Sandbox filters a command's). trees are the
// directories to send as detached trees (DetachedTree), in order: p's
// read-write directories and its scratch. It fails with ErrNoFork where
// the launcher itself would not confine the process with namespaces, a
// view and Landlock (the sandbox off or unavailable, an unconfined peer,
// shared caches).
func NewForkSpec(p Policy, cwd string, env []string) (ForkSpec, error) {
	o := currentOptions()
	st := SandboxStatus()
	if o.Off || p.Unconfined != "" || len(p.Caches) > 0 || !st.Namespaces || !st.View || st.Landlock < 1 {
		return ForkSpec{}, ErrNoFork
	}
	s := ForkSpec{Peer: p.Peer, Net: o.Net[p.Family], Cwd: cwd, AS: p.AddressSpace, Nice: peerNice}
	s.RO = append(append([]string(nil), systemRO...), p.RO...)
	s.RW = append(append([]string(nil), systemRW...), p.RW...)
	s.Env = ChildEnv(env, p, o)
	for _, d := range p.RW {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			s.Trees = append(s.Trees, d)
		}
	}
	if p.Scratch != "" {
		if err := os.MkdirAll(p.Scratch, 0o700); err != nil {
			return ForkSpec{}, fmt.Errorf("proc: the scratch directory of %s: %w", p.Peer, err)
		}
		if home := ownHome(p); home != "" {
			if err := writeGitConfig(home); err != nil {
				return ForkSpec{}, fmt.Errorf("proc: the home directory of %s: %w", p.Peer, err)
			}
		}
		s.RW = append(s.RW, p.Scratch)
		s.Trees = append(s.Trees, p.Scratch)
		s.Env = append(s.Env, "TMPDIR="+p.Scratch)
	}
	return s, nil
}

// ZygotePolicy is the policy of a zygote whose children have policy p: its
// read-only paths, none of its read-write ones (each child gets its own as
// a tree), a scratch of its own. The zygote has no Landlock domain (StartZygote).
func ZygotePolicy(p Policy, scratch string) Policy {
	return Policy{Peer: p.Peer + " zygote", Family: p.Family, RO: slices.Clone(p.RO), Scratch: scratch, PassEnv: p.PassEnv}
}

// SandboxZygote sets cmd up to run as a zygote of policy p
// (ZygotePolicy): namespaces and a filesystem view as any process of its
// family, but no Landlock domain, which would bind every child it forks.
// It runs no untrusted code itself: each child confines itself
// (ForkChildSource) before it runs any. It fails with ErrNoFork where
// children could not confine themselves as the launcher would.
func SandboxZygote(cmd *exec.Cmd, p Policy) error {
	if len(p.RW) > 0 {
		return fmt.Errorf("proc: a zygote has no read-write paths (%v): its children get theirs as trees", p.RW)
	}
	if _, err := NewForkSpec(p, "", nil); err != nil {
		return err
	}
	p.zygote = true
	return Sandbox(cmd, p)
}

// DetachedTree is a detached copy of the mount tree at dir (no set-uid, no
// devices), for a forked child to move into its view: a plain directory
// descriptor from another mount namespace cannot be bound there. It needs
// CAP_SYS_ADMIN in tether's mount namespace; without it, a helper (this
// binary again, in user and mount namespaces of its own) makes it.
func DetachedTree(dir string) (int, error) {
	fd, err := cloneTree(dir, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err == nil || !errors.Is(err, unix.EPERM) {
		return fd, err
	}
	return helperTree(dir)
}

// treeArg is the first argument of this binary run as DetachedTree's
// helper.
const treeArg = "__tether-tree"

// helperTree runs this binary as a tree helper in user and mount
// namespaces of its own, which sends back a detached tree of dir on a
// socket.
func helperTree(dir string) (int, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(fds[0])
	theirs := os.NewFile(uintptr(fds[1]), "tree socket")
	cmd := exec.Command(selfExe, treeArg, dir)
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.Env = []string{}
	nsAttr(cmd, false, false)
	cmd.SysProcAttr.Cloneflags |= unix.CLONE_NEWNS
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = Run(cmd)
	theirs.Close()
	if err != nil {
		return -1, fmt.Errorf("proc: a detached tree of %s: %v: %s", dir, err, strings.TrimSpace(stderr.String()))
	}
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := unix.Recvmsg(fds[0], buf, oob, 0)
	if err != nil {
		return -1, fmt.Errorf("proc: a detached tree of %s: %w", dir, err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return -1, fmt.Errorf("proc: a detached tree of %s: no descriptor came (%v)", dir, err)
	}
	rights, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(rights) != 1 {
		return -1, fmt.Errorf("proc: a detached tree of %s: no descriptor came (%v)", dir, err)
	}
	return rights[0], nil
}

// runTreeHelper is the helper's side: a tree of dir, sent on fd 3.
func runTreeHelper(dir string) int {
	fd, err := cloneTree(filepath.Clean(dir), unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := unix.Sendmsg(3, []byte{0}, unix.UnixRights(fd), nil, 0); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
