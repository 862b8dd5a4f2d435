package proc

import "errors"
import "fmt"
import "os"
import "path/filepath"
import "slices"
import "strings"

import "golang.org/x/sys/unix"

// The filesystem view: in its own mount namespace a sandboxed process gets
// a new root (a tmpfs) holding only what its policy grants, each path
// bound at its own place (read-only ones read-only, and none with set-uid
// or device files), a private /tmp, a /dev of the five harmless devices
// and pseudo-terminals of its own,
// a /proc of its PID namespace, and of /sys only what systemRO lists, its
// own cgroup at /sys/fs/cgroup. What is not granted is not there at all:
// a unix socket in /run or /tmp, another user's files, the host's
// terminals. Landlock still applies inside, as the second layer.

// viewDevices are the devices the view's /dev holds.
var viewDevices = []string{"null", "zero", "full", "random", "urandom"}

// viewTmpOptions bounds the private /tmp (memory, counted to the cgroup of
// the process that writes it).
const viewTmpOptions = "mode=1777,size=256m"

// grant is one path of the view, resolved on the host.
type grant struct {
	path string // the real path: no symbolic link in it
	rw   bool
	file bool
	fd   int // the detached copy of its mount tree, once opened
}

// link is a symbolic link met on the way to a granted path, recreated in
// the view so that the path resolves there as on the host (/lib -> usr/lib).
type link struct{ path, target string }

// special reports whether p is a path the view sets up itself rather than
// binding it from the host: /proc, /dev, the cgroup tree.
func special(p string) bool {
	for _, s := range []string{"/proc", "/dev", "/sys/fs/cgroup"} {
		if p == s || strings.HasPrefix(p, s+"/") {
			return true
		}
	}
	return false
}

// planView resolves spec's paths on the host: the real paths to bind (a
// path beneath another with the same or more rights is left out) and the
// symbolic links to recreate. Paths that do not exist are skipped.
func planView(spec launchSpec) ([]grant, []link) {
	var gs []grant
	var links []link
	add := func(p string, rw bool) {
		if !filepath.IsAbs(p) || special(filepath.Clean(p)) {
			return
		}
		real, err := resolveHost(p, &links)
		if err != nil || real == "/" || special(real) {
			return
		}
		fi, err := os.Stat(real)
		if err != nil {
			return
		}
		gs = append(gs, grant{path: real, rw: rw, file: !fi.IsDir(), fd: -1})
	}
	for _, p := range spec.RO {
		add(p, false)
	}
	for _, p := range spec.RW {
		add(p, true)
	}
	slices.SortStableFunc(gs, func(a, b grant) int { return strings.Compare(a.path, b.path) })
	var kept []grant
	for _, g := range gs {
		covered := false
		for i, k := range kept {
			if k.path == g.path {
				kept[i].rw = k.rw || g.rw
				covered = true
				break
			}
			if strings.HasPrefix(g.path, k.path+"/") && (k.rw || !g.rw) {
				covered = true
				break
			}
		}
		if !covered {
			kept = append(kept, g)
		}
	}
	return kept, links
}

// resolveHost follows p's symbolic links one component at a time,
// recording each link it passes, and returns the real path.
func resolveHost(p string, links *[]link) (string, error) {
	rest := strings.Split(filepath.Clean(p), "/")
	cur := "/"
	for hops := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return "", err
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > 40 {
			return "", unix.ELOOP
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if !slices.Contains(*links, link{next, target}) {
			*links = append(*links, link{next, target})
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return cur, nil
}

// cloneTree opens a detached copy of the mount tree at path (a recursive
// bind not yet attached anywhere), with attrs set on every mount of it.
func cloneTree(path string, attrs uint64) (int, error) {
	fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		return -1, fmt.Errorf("open_tree %s: %w", path, err)
	}
	if attrs != 0 {
		if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: attrs}); err != nil {
			unix.Close(fd)
			return -1, fmt.Errorf("mount_setattr %s: %w", path, err)
		}
	}
	return fd, nil
}

// attach mounts the detached tree fd at target, made first as an empty
// file or directory where it is missing.
func attach(fd int, target string, file bool) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	if _, err := os.Lstat(target); errors.Is(err, os.ErrNotExist) {
		if file {
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			f.Close()
		} else if err := os.Mkdir(target, 0o755); err != nil {
			return err
		}
	}
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, target, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount to %s: %w", target, err)
	}
	return nil
}

// buildView makes this mount namespace's root the process's view and
// changes into it (to the same working directory when the view has it,
// else /). Mounts are already private. It returns the paths Landlock must
// grant in addition (the private /tmp).
func buildView(spec launchSpec) (extraRW []string, err error) {
	cwd, _ := os.Getwd()
	gs, links := planView(spec)
	// Every source is opened before anything is covered.
	defer func() {
		for _, g := range gs {
			if g.fd >= 0 {
				unix.Close(g.fd)
			}
		}
	}()
	for i := range gs {
		attrs := uint64(unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV)
		if !gs[i].rw {
			attrs |= unix.MOUNT_ATTR_RDONLY
		}
		if gs[i].fd, err = cloneTree(gs[i].path, attrs); err != nil {
			return nil, err
		}
	}
	devs := map[string]int{}
	defer func() {
		for _, fd := range devs {
			unix.Close(fd)
		}
	}()
	if err := openDevices(devs); err != nil {
		return nil, err
	}
	var cms []cacheMount
	defer func() {
		for _, m := range cms {
			unix.Close(m.fd)
		}
	}()
	if err := openCaches(spec, &links, &cms); err != nil {
		return nil, err
	}
	for _, c := range spec.Caches {
		extraRW = append(extraRW, c.Path)
	}
	cgroupFD := -1
	if spec.Cgroup != "" {
		if cgroupFD, err = cloneTree(spec.Cgroup, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC); err != nil {
			return nil, err
		}
		defer unix.Close(cgroupFD)
	}

	// The new root, on the host's /tmp of this namespace (every source is
	// open already, so covering it hides nothing the view needs).
	const root = "/tmp"
	if err := unix.Mount("tmpfs", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755"); err != nil {
		return nil, fmt.Errorf("mounting the new root: %w", err)
	}
	in := func(p string) string { return filepath.Join(root, p) }
	if err := os.Mkdir(in("/tmp"), 0o1777); err != nil {
		return nil, err
	}
	if err := unix.Mount("tmpfs", in("/tmp"), "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, viewTmpOptions); err != nil {
		return nil, fmt.Errorf("mounting a private /tmp: %w", err)
	}
	for _, g := range gs {
		if err := attach(g.fd, in(g.path), g.file); err != nil {
			return nil, err
		}
	}
	for _, l := range links {
		p := in(l.path)
		if _, err := os.Lstat(p); err == nil {
			continue // there already (beneath a bound directory)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.Symlink(l.target, p); err != nil {
			return nil, err
		}
	}
	for _, m := range cms {
		if err := attach(m.fd, in(m.path), false); err != nil {
			return nil, err
		}
	}
	pts, err := mountDev(in("/dev"), devs)
	if err != nil {
		return nil, err
	}
	extraRW = append(extraRW, pts...)
	if err := os.MkdirAll(in("/proc"), 0o555); err != nil {
		return nil, err
	}
	if err := unix.Mount("proc", in("/proc"), "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return nil, fmt.Errorf("mounting /proc for the PID namespace: %w", err)
	}
	if cgroupFD >= 0 {
		if err := attach(cgroupFD, in("/sys/fs/cgroup"), false); err != nil {
			return nil, err
		}
	}

	if err := pivotInto(root, cwd); err != nil {
		return nil, err
	}
	return append(extraRW, "/tmp"), nil
}

// openDevices opens a detached copy of each of viewDevices the host has
// into devs, by name.
func openDevices(devs map[string]int) error {
	for _, d := range viewDevices {
		fd, err := cloneTree("/dev/"+d, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return err
		}
		devs[d] = fd
	}
	return nil
}

// cacheMount is a shared cache's tree, open, and where the view shows it.
type cacheMount struct {
	path string
	fd   int
}

// openCaches opens each shared cache of spec into cms: an overlay of a
// private layer on it, or the private layer alone when the overlay cannot
// be made (cold, but still nothing of it shared).
func openCaches(spec launchSpec, links *[]link, cms *[]cacheMount) error {
	for _, c := range spec.Caches {
		real, err := resolveHost(c.Path, links)
		if err != nil {
			return fmt.Errorf("the cache %s: %w", c.Path, err)
		}
		fd, err := overlayTree(c)
		if err != nil {
			fmt.Fprintf(os.Stderr, "tether sandbox: %s: the cache %s starts empty (its private layer alone: %v)\n", spec.Peer, c.Path, err)
			if fd, err = cloneTree(c.Upper, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV); err != nil {
				return err
			}
		}
		*cms = append(*cms, cacheMount{real, fd})
	}
	return nil
}

// mountDev makes the view's /dev at dev: a tmpfs with the opened devices,
// the standard links and, where this kernel allows, a devpts instance of
// this namespace (a debugger gives its program a terminal), none of the
// host's. It returns the paths Landlock must grant for the terminals.
func mountDev(dev string, devs map[string]int) (extraRW []string, err error) {
	if err := os.MkdirAll(dev, 0o755); err != nil {
		return nil, err
	}
	if err := unix.Mount("tmpfs", dev, "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755"); err != nil {
		return nil, fmt.Errorf("mounting /dev: %w", err)
	}
	for d, fd := range devs {
		if err := attach(fd, filepath.Join(dev, d), true); err != nil {
			return nil, err
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, filepath.Join(dev, name)); err != nil {
			return nil, err
		}
	}
	if err := os.Mkdir(filepath.Join(dev, "pts"), 0o755); err != nil {
		return nil, err
	}
	if unix.Mount("devpts", filepath.Join(dev, "pts"), "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620") == nil {
		if err := os.Symlink("pts/ptmx", filepath.Join(dev, "ptmx")); err != nil {
			return nil, err
		}
		return []string{"/dev/pts", "/dev/ptmx"}, nil
	}
	return nil, nil
}

// pivotInto makes root the process's root: the old root is stacked under
// the new one and detached, and the new root takes no new entries. It
// changes into cwd when the view has it, else /.
func pivotInto(root, cwd string) error {
	if err := unix.Chdir(root); err != nil {
		return err
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detaching the old root: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return fmt.Errorf("making the new root read-only: %w", err)
	}
	if cwd == "" || unix.Chdir(cwd) != nil {
		_ = unix.Chdir("/")
	}
	return nil
}
