package proc

import "bytes"
import "encoding/json"
import "errors"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "runtime"
import "strings"
import "syscall"
import "time"

import "golang.org/x/sys/unix"

// launcherArg is the argument that makes any binary importing this package
// the sandbox launcher (see init): tether, and the test binaries of the
// packages that start processes, all are.
const launcherArg = "__tether-sandbox"

// specEnv carries the launch spec to the launcher, in its environment and
// not on its command line: a sandboxed process may read its init's command
// line (/proc/1/cmdline), never its environment (Landlock's ptrace
// scoping). The launcher takes it out before it execs the peer.
const specEnv = "TETHER_SANDBOX_SPEC"

// launchSpec is what the launcher applies before it execs the peer.
type launchSpec struct {
	Peer     string      `json:"peer"`
	RO       []string    `json:"ro"`
	RW       []string    `json:"rw"`
	Net      bool        `json:"net"`      // the network is allowed
	Landlock bool        `json:"landlock"` // confine with Landlock
	NS       bool        `json:"ns"`       // started in namespaces: mount /proc
	View     bool        `json:"view"`     // in namespaces: build the filesystem view
	NetNS    bool        `json:"netns"`    // in a network namespace of its own
	Path     string      `json:"path"`     // the program to exec; "" probes
	Init     bool        `json:"init"`     // stay as the namespace's init (runInit)
	StatusFD int         `json:"statusfd"` // init: where the peer's wait status goes
	Cgroup   string      `json:"cgroup"`   // init: the cgroup to join first
	AS       uint64      `json:"as"`       // RLIMIT_AS set before exec, 0 none
	Caches   []viewCache `json:"caches"`   // view: overlays of shared caches
	Nice     int         `json:"nice"`     // the priority it runs at (peerNice)
}

// viewCache is a Cache as the launcher lays it: the shared cache at Path
// read-only beneath Upper, with Work the overlay's own work directory.
type viewCache struct {
	Path  string `json:"path"`
	Upper string `json:"upper"`
	Work  string `json:"work"`
}

// launchFailed is the launcher's exit status when it cannot set up the
// sandbox (126, the shell's "cannot execute").
const launchFailed = 126

func init() {
	// Before main and TestMain: a launcher does its work and execs (or
	// exits) without running anything of the program it is part of.
	if len(os.Args) == 2 && os.Args[1] == spawnerArg {
		os.Exit(spawnerMain())
	}
	if len(os.Args) >= 2 && os.Args[1] == launcherArg {
		spec := os.Getenv(specEnv)
		os.Unsetenv(specEnv)
		os.Exit(launch(spec, os.Args[2:]))
	}
	if len(os.Args) >= 3 && os.Args[1] == inPlaceArg {
		// A peer that is this very binary: confined here, it runs on as if
		// started with its own arguments.
		spec := os.Getenv(specEnv)
		os.Unsetenv(specEnv)
		if code := confineInPlace(spec); code != 0 {
			os.Exit(code)
		}
		os.Args = os.Args[2:]
	}
	if len(os.Args) == 3 && os.Args[1] == treeArg {
		os.Exit(runTreeHelper(os.Args[2]))
	}
}

// launch applies spec to this process and execs argv (argv[0] is the
// peer's own argv[0]; spec.Path the file to run).
func launch(specJSON string, argv []string) int {
	spec, fail := readSpec(specJSON)
	if fail == nil {
		return launchFailed
	}
	// One thread from here to exec: the Landlock domain is this thread's,
	// and execve keeps the calling thread's.
	runtime.LockOSThread()
	if err := enterNamespaces(&spec); err != nil {
		return fail("%v", err)
	}
	lowerPriority(spec.Nice, unix.Syscall6)
	if spec.Init {
		return runInit(spec, argv, fail)
	}
	if spec.Landlock {
		if err := restrict(spec, unix.Syscall6); err != nil {
			return fail("%v", err)
		}
	}
	if err := dropCaps(); err != nil {
		return fail("dropping the launcher's capabilities: %v", err)
	}
	if spec.Path == "" {
		return 0 // a probe
	}
	if len(argv) == 0 {
		return fail("no program to run")
	}
	if spec.AS != 0 && belowLauncher(spec.AS) {
		return execLimited(spec.AS, spec.Path, argv, "tether sandbox: "+spec.Peer+": exec "+spec.Path+": ", execHint)
	}
	if err := limitAddressSpace(spec.AS); err != nil {
		return fail("%v", err)
	}
	err := syscall.Exec(spec.Path, argv, os.Environ())
	if errors.Is(err, syscall.ENOENT) {
		fmt.Fprintf(os.Stderr, "tether sandbox: %s: %s: %v\n", spec.Peer, spec.Path, err)
		return 127
	}
	return fail("exec %s: %v %s", spec.Path, err, execHint)
}

// execHint follows a failed exec's error.
const execHint = "(a path outside the process's sandbox table is refused with EACCES)"

// readSpec decodes a launch spec, with the function that says on stderr why
// the sandbox could not be set up and returns launchFailed; a spec that does
// not decode is said there and its fail is nil.
func readSpec(specJSON string) (launchSpec, func(format string, a ...any) int) {
	var spec launchSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		fmt.Fprintf(os.Stderr, "tether sandbox: bad launch spec: %v\n", err)
		return spec, nil
	}
	return spec, func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "tether sandbox: %s: %s\n", spec.Peer, fmt.Sprintf(format, a...))
		return launchFailed
	}
}

// enterNamespaces does spec's part in the namespaces the process was
// started in: its mounts private, the cgroup joined, the filesystem view
// (or /proc) mounted, loopback up.
func enterNamespaces(spec *launchSpec) error {
	if spec.NS {
		// Our own /proc: only the processes of this PID namespace. Mounts
		// stay in this mount namespace.
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			return fmt.Errorf("making mounts private: %v", err)
		}
		if spec.Cgroup != "" {
			// Join before the peer exists, so it and all it starts are
			// counted (and while the cgroup tree is still in reach).
			if err := os.WriteFile(filepath.Join(spec.Cgroup, "cgroup.procs"), []byte("0"), 0); err != nil {
				return fmt.Errorf("joining the cgroup %s: %v", spec.Cgroup, err)
			}
		}
		if spec.View {
			extra, err := buildView(*spec)
			if err != nil {
				return fmt.Errorf("building the filesystem view: %v", err)
			}
			spec.RW = append(spec.RW, extra...)
		} else if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("mounting /proc for the PID namespace: %v", err)
		}
	}
	if spec.NetNS {
		// Loopback only: a program may still talk to itself.
		if err := loopbackUp(); err != nil {
			return fmt.Errorf("bringing up loopback: %v", err)
		}
	}
	return nil
}

// peerNice is the nice value every sandboxed process runs at: below
// tether's own, so that however many kernels, workers or servers are busy,
// the host still answers its sessions. It counts where the scheduler
// weighs tasks within a cgroup (a systemd service, a container); where it
// puts each session in a scheduling group of its own (autogroup, for tasks
// in the root cgroup), every process tether starts leads a session and its
// group weighs as much as tether's, whatever the nice value.
const peerNice = 10

// lowerPriority sets the nice value of every thread sys reaches (the
// calling one, or all) to nice; what they start inherits it. Best effort:
// a priority is no confinement.
func lowerPriority(nice int, sys threadSyscall) {
	if nice > 0 {
		sys(unix.SYS_SETPRIORITY, unix.PRIO_PROCESS, 0, uintptr(nice), 0, 0, 0)
	}
}

// limitAddressSpace sets RLIMIT_AS to n (0: leaves it), soft and hard alike,
// so the program cannot raise it again; a lower hard limit already in place
// stays.
func limitAddressSpace(n uint64) error {
	if n == 0 {
		return nil
	}
	lim := unix.Rlimit{Cur: n, Max: n}
	var old unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_AS, &old) == nil && old.Max < lim.Max {
		lim = unix.Rlimit{Cur: old.Max, Max: old.Max}
	}
	if err := unix.Setrlimit(unix.RLIMIT_AS, &lim); err != nil {
		return fmt.Errorf("setting the address-space limit: %v", err)
	}
	return nil
}

// loopbackUp sets the loopback interface of this network namespace up.
func loopbackUp() error {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(s)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr)
}

// nsAttr sets cmd up to start in a user namespace (mapping tether's ids to
// themselves, so files keep their owners) with its own IPC namespace; with
// pid, its own PID and mount namespaces (the launcher mounts a /proc of
// its own); with netns, its own network namespace (loopback only).
func nsAttr(cmd *exec.Cmd, pid, netns bool) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWIPC
	if pid {
		// A cgroup namespace too: /proc/self/cgroup names the process's
		// cgroup relative to where it started, not the host's tree.
		a.Cloneflags |= syscall.CLONE_NEWPID | syscall.CLONE_NEWNS | syscall.CLONE_NEWCGROUP
	}
	if netns {
		a.Cloneflags |= syscall.CLONE_NEWNET
	}
	uid, gid := os.Geteuid(), os.Getegid()
	if uid == 0 {
		// root may map every id: files of any owner stay as they are.
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
		a.GidMappingsEnableSetgroups = true
	} else {
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		// Not root in the namespace either: exec would drop the
		// capabilities the launcher needs there (to mount its /proc and
		// bring up loopback) unless they are ambient. The launcher clears
		// them before it execs the peer (dropCaps).
		// Overlayfs also wants CAP_DAC_OVERRIDE of its mounter (for the
		// work directory it keeps without permissions); in a namespace that
		// maps only tether's own ids it reaches only tether's own files.
		a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_DAC_OVERRIDE}
	}
}

// dropCaps clears this thread's ambient capabilities, so a peer exec'd
// from it as a user other than root holds none in its namespaces.
// It also clears the inheritable set they were raised through.
func dropCaps() error {
	err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	if errors.Is(err, unix.EINVAL) {
		return nil // a kernel without ambient capabilities: none were given
	}
	if err != nil {
		return err
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	if data[0].Inheritable == 0 && data[1].Inheritable == 0 {
		return nil
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	return unix.Capset(&hdr, &data[0])
}

// selfExe is the launcher: this very binary.
const selfExe = "/proc/self/exe"

func sandbox(cmd *exec.Cmd, p Policy) error {
	o := currentOptions()
	if o.Off || cmd.Err != nil {
		return nil // off by the operator's choice; a lookup error Start reports
	}
	if p.Unconfined != "" {
		if o.Strict {
			return fmt.Errorf("proc: %s would have to run outside the sandbox (%s), which this host does not allow", p.Peer, p.Unconfined)
		}
		return nil
	}
	st := SandboxStatus()
	if !st.Available() {
		return nil // the fallback SandboxStatus and each first result state
	}
	if !programExists(cmd) {
		return nil // Start reports the missing program as it always did
	}
	net := o.Net[p.Family]
	// Every family in a PID namespace of its own. A language server is the
	// namespace's process 1 itself; a kernel, a debug adapter (with its
	// debuggee) and a worker run under an init (runInit), so that they are
	// ordinary processes there: a cell's os.kill(os.getpid(), SIGKILL)
	// works, orphans are reaped, and the peer's status still reaches tether
	// (WaitStatus).
	pidns := st.Namespaces
	netns := st.Namespaces && !net
	spec := launchSpec{Peer: p.Peer, Net: net, Landlock: st.Landlock >= 1 && !p.zygote, NS: pidns, View: pidns && st.View, NetNS: netns, Path: cmd.Path, AS: p.AddressSpace, Nice: peerNice}
	if pidns && p.Family != Servers && !p.NoInit {
		fd, err := withInit(cmd)
		if err != nil {
			return fmt.Errorf("proc: the status pipe of %s: %w", p.Peer, err)
		}
		spec.Init, spec.StatusFD, spec.Cgroup = true, fd, p.Cgroup
	}
	if spec.Peer == "" {
		spec.Peer = cmd.Path
	}
	spec.RO = append(append([]string(nil), systemRO...), p.RO...)
	spec.RW = append(append([]string(nil), systemRW...), p.RW...)
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	if p.Scratch != "" {
		if err := os.MkdirAll(p.Scratch, 0o700); err != nil {
			return fmt.Errorf("proc: the scratch directory of %s: %w", spec.Peer, err)
		}
		spec.RW = append(spec.RW, p.Scratch)
		env = append(env[:len(env):len(env)], "TMPDIR="+p.Scratch)
	}
	env, locks, err := caches(&spec, p.Caches, env)
	if err != nil {
		return err
	}
	// The locks on the cache layers go to the process (after the init's
	// status pipe, whose number is fixed): the init, or the server it
	// execs, holds them while it runs; tether's copies close once it started.
	cmd.ExtraFiles = append(cmd.ExtraFiles, locks...)
	closeAfterStart(cmd, locks)
	b, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	cmd.Env = append(env[:len(env):len(env)], specEnv+"="+string(b))
	if p.InPlace && !spec.Init && inPlaceFor(cmd.Path) {
		startInPlace(cmd)
	} else {
		cmd.Args = append([]string{selfExe, launcherArg}, cmd.Args...)
		cmd.Path = selfExe
	}
	if st.Namespaces {
		// Always a user namespace: the process holds no capability outside
		// it, so even as root it cannot read a non-dumpable tether's /proc
		// entries (environ, fd) or bypass other checks made against the
		// host's namespace.
		nsAttr(cmd, pidns, netns)
	}
	return nil
}

// programExists reports whether cmd's program is there to run (a relative
// path is cmd.Dir's).
func programExists(cmd *exec.Cmd) bool {
	p := cmd.Path
	if !filepath.IsAbs(p) && cmd.Dir != "" {
		p = filepath.Join(cmd.Dir, p)
	}
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// probe finds what the sandbox can do here: Landlock's ABI, and whether a
// launcher started in namespaces can set them up (a kernel or a container
// may refuse unprivileged user namespaces, or mounting /proc in them).
func probe() Status {
	var s Status
	abi, err := landlockABI()
	switch {
	case err != nil:
		s.LandlockErr = "the kernel has no Landlock (Linux 5.13 or later, with landlock in the lsm= boot list): " + err.Error()
	case abi < 1:
		s.LandlockErr = "Landlock is disabled in this kernel"
	default:
		s.Landlock = abi
	}
	viewErr := probeLaunch(true, true, s.Landlock >= 1)
	if viewErr == nil {
		s.Namespaces, s.View = true, true
		return s
	}
	s.ViewErr = viewErr.Error()
	if err := probeLaunch(true, false, s.Landlock >= 1); err != nil {
		s.NamespacesErr = err.Error()
		if s.Landlock >= 1 {
			if err := probeLaunch(false, false, true); err != nil {
				s.Landlock, s.LandlockErr = 0, err.Error()
			}
		}
	} else {
		s.Namespaces = true
	}
	return s
}

// probeLaunch runs the launcher as a probe: it sets everything up and exits.
func probeLaunch(ns, view, ll bool) error {
	spec := launchSpec{Peer: "probe", Landlock: ll, NS: ns, View: view, NetNS: ns, RO: systemRO, RW: systemRW}
	b, _ := json.Marshal(spec)
	cmd := exec.Command(selfExe, launcherArg)
	cmd.Env = append(os.Environ(), specEnv+"="+string(b))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if ns {
		nsAttr(cmd, true, true)
	}
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		if ns {
			return fmt.Errorf("cannot start a process in new user, PID and mount namespaces: %w", err)
		}
		return err
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = err.Error()
			}
			return errors.New(strings.TrimPrefix(msg, "tether sandbox: probe: "))
		}
		return nil
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		return errors.New("the sandbox probe did not finish within 10s")
	}
}
