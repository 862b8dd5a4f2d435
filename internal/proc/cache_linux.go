package proc

import "crypto/rand"
import "encoding/hex"
import "fmt"
import "os"
import "path/filepath"
import "strconv"
import "strings"
import "sync"
import "time"

import "golang.org/x/sys/unix"

// layerAge is how long a workspace's private cache layers are kept
// unused before a later launch removes them (its workspace gone, or not
// worked on for that long: the next process starts from the shared cache).
const layerAge = 30 * 24 * time.Hour

var (
	gcMu   sync.Mutex
	gcDone = map[string]bool{}
)

// gcLayers removes, once per process, the workspaces' layers in base not
// used for layerAge.
func gcLayers(base string) {
	gcMu.Lock()
	defer gcMu.Unlock()
	if gcDone[base] {
		return
	}
	gcDone[base] = true
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && e.IsDir() && time.Since(fi.ModTime()) > layerAge {
			removeWork(filepath.Join(base, e.Name()))
		}
	}
}

// workAge is how old an overlay's work directory must be before a later
// launch removes it: far longer than any process keeps its cache mounted.
const workAge = 7 * 24 * time.Hour

// caches sets spec up for cs and returns env with each cache's variable:
// with a filesystem view, an overlay at the cache's own place (the
// variable names it there); without, the private layer alone, named by the
// variable (a cache without one is left out).
//
// An overlay's upper layer must not be another live overlay's (the kernel
// leaves two mounts sharing one undefined: concurrent gopls saw each
// other's cache half-written), so each overlay claims its layer with a
// lock the process holds while it runs (returned, to be passed to it); a
// process that finds the workspace's layers taken gets one of its own.
func caches(spec *launchSpec, cs []Cache, env []string) ([]string, []*os.File, error) {
	var locks []*os.File
	fail := func(err error) ([]string, []*os.File, error) {
		for _, f := range locks {
			f.Close()
		}
		return nil, nil, err
	}
	for _, c := range cs {
		if c.Path == "" || c.Upper == "" || !filepath.IsAbs(c.Path) || !filepath.IsAbs(c.Upper) {
			continue
		}
		upper := filepath.Join(c.Upper, "upper")
		if spec.View {
			u, lock, err := claimLayer(c.Upper)
			if err != nil {
				return fail(fmt.Errorf("proc: the private cache layer of %s for %s: %w", spec.Peer, c.Path, err))
			}
			upper = u
			if lock != nil {
				locks = append(locks, lock)
			}
		}
		if err := os.MkdirAll(upper, 0o700); err != nil {
			return fail(fmt.Errorf("proc: the private cache layer of %s for %s: %w", spec.Peer, c.Path, err))
		}
		// The workspace's directory of layers: marked used now, and its
		// unused siblings removed.
		ws := filepath.Dir(c.Upper)
		now := time.Now()
		_ = os.Chtimes(ws, now, now)
		gcLayers(filepath.Dir(ws))
		if !spec.View {
			if c.Env == "" {
				continue
			}
			spec.RW = append(spec.RW, upper)
			env = append(env[:len(env):len(env)], c.Env+"="+upper)
			continue
		}
		// The shared cache is the lower layer: it must exist.
		if err := os.MkdirAll(c.Path, 0o755); err != nil {
			return fail(fmt.Errorf("proc: the cache %s of %s: %w", c.Path, spec.Peer, err))
		}
		work, err := newWork(filepath.Join(c.Upper, "work"))
		if err != nil {
			return fail(fmt.Errorf("proc: the private cache layer of %s for %s: %w", spec.Peer, c.Path, err))
		}
		spec.Caches = append(spec.Caches, viewCache{Path: c.Path, Upper: upper, Work: work})
		if c.Env != "" {
			v := c.Path
			if c.Sub != "" {
				v = strings.TrimSuffix(c.Path, string(filepath.Separator)+c.Sub)
			}
			env = append(env[:len(env):len(env)], c.Env+"="+v)
		}
	}
	return env, locks, nil
}

// layerSlots is how many kept upper layers a workspace's cache has: as
// many processes of one workspace may use it at once (a language server, a
// checker, a debug build) and keep what they wrote for the next.
const layerSlots = 4

// claimLayer returns an upper layer of the cache whose layers are in dir
// that no live overlay uses, with the lock that holds it (nil for a
// temporary layer): the first free of the kept ones, else a new one of
// its own, removed with the old work directories.
func claimLayer(dir string) (string, *os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, err
	}
	for i := range layerSlots {
		name := "upper"
		if i > 0 {
			name += "-" + strconv.Itoa(i)
		}
		f, err := os.OpenFile(filepath.Join(dir, name+".lock"), os.O_RDONLY|os.O_CREATE, 0o600)
		if err != nil {
			return "", nil, err
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
			return filepath.Join(dir, name), f, nil
		}
		f.Close()
	}
	w, err := newWork(filepath.Join(dir, "work"))
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(w, "upper"), nil, nil
}

// newWork makes an overlay work directory of its own under dir (two
// overlays sharing one would clean each other's), and removes those left
// from launches long gone.
func newWork(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	now := time.Now()
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			stamp, _, _ := strings.Cut(e.Name(), "-")
			if n, err := strconv.ParseInt(stamp, 10, 64); err == nil && now.Sub(time.Unix(0, n)) > workAge {
				removeWork(filepath.Join(dir, e.Name()))
			}
		}
	}
	var b [6]byte
	rand.Read(b[:])
	w := filepath.Join(dir, strconv.FormatInt(now.UnixNano(), 10)+"-"+hex.EncodeToString(b[:]))
	return w, os.Mkdir(w, 0o700)
}

// removeWork removes dir, whose overlay work directories the kernel
// leaves without permissions.
func removeWork(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}

// overlayTree makes a detached overlay mount: lower read-only beneath
// upper. Its paths are resolved now, before the view covers anything.
func overlayTree(c viewCache) (int, error) {
	for _, p := range []string{c.Path, c.Upper, c.Work} {
		if strings.ContainsAny(p, ",:\\") {
			return -1, fmt.Errorf("%s: a comma, colon or backslash in the path", p)
		}
	}
	fs, err := unix.Fsopen("overlay", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("fsopen overlay: %w", err)
	}
	defer unix.Close(fs)
	for _, kv := range [][2]string{{"lowerdir", c.Path}, {"upperdir", c.Upper}, {"workdir", c.Work}} {
		if err := unix.FsconfigSetString(fs, kv[0], kv[1]); err != nil {
			return -1, fmt.Errorf("overlay %s=%s: %w", kv[0], kv[1], err)
		}
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return -1, fmt.Errorf("creating the overlay: %w", err)
	}
	fd, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return -1, fmt.Errorf("fsmount overlay: %w", err)
	}
	return fd, nil
}
