package proc

import "fmt"
import "os"
import "os/exec"
import "runtime"
import "sync"
import "syscall"
import "unsafe"

import "golang.org/x/sys/unix"

// inPlaceArg makes a binary importing this package confine itself in place
// (see init): a peer that is this very binary, started in its namespaces,
// applies its launch spec to itself before main and runs on with the
// arguments after it, instead of a launcher that applies the spec and execs
// the binary again. One start of the binary instead of two: about half of
// what a JavaScript kernel's start costs.
const inPlaceArg = "__tether-sandbox-in-place"

// threadSyscall makes a system call on the threads whose state it sets:
// unix.Syscall6 on the calling one (the launcher, which holds it until
// exec), syscall.AllThreadsSyscall6 on every thread of the process.
type threadSyscall func(trap, a1, a2, a3, a4, a5, a6 uintptr) (r1, r2 uintptr, err syscall.Errno)

// selfInfo is this binary's file, for SameFile.
var selfInfo = sync.OnceValue(func() os.FileInfo {
	fi, _ := os.Stat(selfExe)
	return fi
})

// inPlaceFor reports whether a peer whose program is path can confine
// itself in place: path is this very binary (so it imports this package),
// and the binary can set every thread's state (syscall.AllThreadsSyscall,
// which a cgo build cannot make). Tests replace it.
var inPlaceFor = func(path string) bool {
	if cgoLinked {
		return false
	}
	self := selfInfo()
	fi, err := os.Stat(path)
	return self != nil && err == nil && os.SameFile(self, fi)
}

// startInPlace puts inPlaceArg before cmd's own arguments (where the
// launcher's would be), for a spec without an init; cmd runs its own
// program, which inPlaceFor found to be this binary.
func startInPlace(cmd *exec.Cmd) {
	cmd.Args = append([]string{cmd.Path, inPlaceArg}, cmd.Args...)
}

// confineInPlace applies specJSON to this process, every thread of it, as
// the launcher would before it execs the peer, and drops every capability
// the process holds (the launcher's exec drops them; nothing is exec'd
// here). It returns 0 when the process may run on, else the exit status.
func confineInPlace(specJSON string) int {
	spec, fail := readSpec(specJSON)
	if fail == nil {
		return launchFailed
	}
	if spec.Init || spec.Path == "" {
		return fail("a process with an init, or a probe, is not confined in place")
	}
	// Before anything is changed: a build that cannot reach every thread
	// (cgo) must not run on half confined.
	if _, _, e := syscall.AllThreadsSyscall(unix.SYS_GETPID, 0, 0, 0); e != 0 {
		return fail("cannot set every thread's state (%v): a cgo build cannot confine itself in place", e)
	}
	if err := enterNamespaces(&spec); err != nil {
		return fail("%v", err)
	}
	lowerPriority(spec.Nice, syscall.AllThreadsSyscall6)
	if spec.Landlock {
		if err := restrict(spec, syscall.AllThreadsSyscall6); err != nil {
			return fail("%v", err)
		}
	}
	if err := dropAllCaps(); err != nil {
		return fail("dropping the process's capabilities: %v", err)
	}
	if err := limitAddressSpace(spec.AS); err != nil {
		return fail("%v", err)
	}
	return 0
}

// dropAllCaps leaves every thread of the process no capability: ambient
// cleared, then permitted, effective and inheritable, under no_new_privs, so
// that nothing it execs gains one back (Linux caps what an exec under
// no_new_privs may hold at what the process held). The bounding set is left
// as it is: dropping it takes a call per capability on every thread, and
// with nothing permitted and no_new_privs it bounds nothing.
func dropAllCaps() error {
	if _, _, e := syscall.AllThreadsSyscall6(unix.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0); e != 0 {
		return fmt.Errorf("no_new_privs: %w", e)
	}
	if _, _, e := syscall.AllThreadsSyscall6(unix.SYS_PRCTL, unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0, 0); e != 0 && e != unix.EINVAL {
		return fmt.Errorf("clearing ambient capabilities: %w", e)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	_, _, e := syscall.AllThreadsSyscall(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	runtime.KeepAlive(&hdr)
	runtime.KeepAlive(&data)
	if e != 0 {
		return fmt.Errorf("capset: %w", e)
	}
	return nil
}
