package proc

import "os"
import "syscall"
import "unsafe"

import "golang.org/x/sys/unix"

// execRoom is how far above the launcher's own address space a limit must
// be for the launcher to set it and then exec as Go does (syscall.Exec),
// which allocates and may start a thread after the limit is in force.
const execRoom = 256 << 20

// belowLauncher says whether an address-space limit of n bytes leaves the
// launcher too little room to run Go code after setting it: its runtime
// has reserved most of a gigabyte of address space before main.
func belowLauncher(n uint64) bool {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return true
	}
	var pages uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		pages = pages*10 + uint64(c-'0')
	}
	return n < pages*uint64(os.Getpagesize())+execRoom
}

// execLimited sets the address-space limit n and execs path with argv and
// this process's environment without allocating or starting a thread
// between the two: the arguments are converted first, and both calls are
// raw system calls. It returns only when either call fails, after writing
// why to stderr after prefix (made before the call, so nothing is
// formatted under the limit). Unlike syscall.Exec it leaves the soft
// open-files limit as Go's runtime raised it (the original is not known
// here), so the program starts with it at the hard limit.
func execLimited(n uint64, path string, argv []string, prefix, hint string) int {
	pathp, err := syscall.BytePtrFromString(path)
	if err != nil {
		return failRaw(prefix, err.Error())
	}
	argvp, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return failRaw(prefix, err.Error())
	}
	envp, err := syscall.SlicePtrFromStrings(os.Environ())
	if err != nil {
		return failRaw(prefix, err.Error())
	}
	lim := unix.Rlimit{Cur: n, Max: n}
	var old unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_AS, &old) == nil && old.Max < lim.Max {
		lim = unix.Rlimit{Cur: old.Max, Max: old.Max}
	}
	if _, _, e := unix.RawSyscall6(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_AS, uintptr(unsafe.Pointer(&lim)), 0, 0, 0); e != 0 {
		return failRaw(prefix+"setting the address-space limit: ", e.Error())
	}
	_, _, e := unix.RawSyscall(unix.SYS_EXECVE, uintptr(unsafe.Pointer(pathp)), uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])))
	if e == unix.ENOENT {
		failRaw(prefix, e.Error())
		return 127
	}
	return failRaw(prefix, e.Error(), " ", hint)
}

// failRaw writes parts and a newline to stderr with raw writes (no
// allocation) and returns launchFailed.
func failRaw(parts ...string) int {
	for _, s := range parts {
		writeRaw(s)
	}
	writeRaw("\n")
	return launchFailed
}

func writeRaw(s string) {
	if len(s) > 0 {
		unix.RawSyscall(unix.SYS_WRITE, 2, uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(len(s)))
	}
}
