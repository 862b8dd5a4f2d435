package proc

import "errors"
import "fmt"
import "unsafe"

import "golang.org/x/sys/unix"

// Landlock's three system calls, straight from golang.org/x/sys/unix.
// go-landlock would do the same, but its syscall package links libcap's psx
// with cgo whenever cgo is on, making every default build of tether a cgo
// build; the launcher needs none of psx: it confines one thread, then execs.

// rulesetAttr is struct landlock_ruleset_attr up to the scoped field (ABI
// 6); its size tells the kernel which fields are there.
type rulesetAttr struct {
	fs, net, scoped uint64
}

// landlockABI is the kernel's Landlock ABI version (0 and an error without).
func landlockABI() (int, error) {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0, e
	}
	return int(v), nil
}

// fsRights are the filesystem rights an ABI version handles.
func fsRights(abi int) uint64 {
	r := uint64(1<<13 - 1) // execute .. make_sym
	if abi >= 2 {
		r |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		r |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		r |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	if abi >= 9 {
		r |= unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX
	}
	return r
}

// fileRights are the rights that apply to a file (the rest are a
// directory's); a rule on a file may grant only these.
const fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
	unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

// readRights are read-only rights: read and run files, list directories.
const readRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR

// restrict confines with Landlock the threads sys makes its calls on (the
// calling one, which the launcher holds until exec; or every thread, in
// place): spec.RO readable, spec.RW writable, nothing else of the
// filesystem; no TCP bind or connect without spec.Net (ABI 4); no signals or
// abstract unix sockets to processes outside the domain (ABI 6).
func restrict(spec launchSpec, sys threadSyscall) error {
	abi, err := landlockABI()
	if err != nil || abi < 1 {
		return errors.New("Landlock is not available")
	}
	handled := fsRights(abi)
	attr := rulesetAttr{fs: handled}
	size := unsafe.Sizeof(attr.fs)
	if abi >= 4 {
		size += unsafe.Sizeof(attr.net)
		if !spec.Net {
			attr.net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		}
	}
	if abi >= 6 {
		size += unsafe.Sizeof(attr.scoped)
		attr.scoped = unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
	}
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", e)
	}
	defer unix.Close(int(fd))
	add := func(path string, rights uint64) error {
		pfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				return nil // absent here: nothing to allow
			}
			return fmt.Errorf("opening %s: %w", path, err)
		}
		defer unix.Close(pfd)
		var st unix.Stat_t
		if err := unix.Fstat(pfd, &st); err != nil {
			return fmt.Errorf("stat %s: %w", path, err)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			rights &= fileRights
		}
		rule := unix.LandlockPathBeneathAttr{Allowed_access: rights & handled, Parent_fd: int32(pfd)}
		if rule.Allowed_access == 0 {
			return nil
		}
		_, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
		if e == unix.EBADFD {
			// A file of an internal filesystem (a namespace link such as
			// /proc/self/ns/pid, a pipe) takes no rule: nothing to allow.
			return nil
		}
		if e != 0 {
			return fmt.Errorf("landlock_add_rule %s: %w", path, e)
		}
		return nil
	}
	for _, p := range spec.RO {
		if err := add(p, readRights); err != nil {
			return err
		}
	}
	for _, p := range spec.RW {
		if err := add(p, handled); err != nil {
			return err
		}
	}
	if _, _, e := sys(unix.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0); e != 0 {
		return fmt.Errorf("no_new_privs: %w", e)
	}
	if _, _, e := sys(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0, 0, 0, 0); e != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", e)
	}
	return nil
}
