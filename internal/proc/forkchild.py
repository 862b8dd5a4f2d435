"""A process forked from a zygote confines itself as the launcher confines a
process it starts (sandbox_linux.go, view_linux.go, landlock_linux.go):
namespaces of its own, a root holding the zygote's view of the system, its
workspace and scratch trees, a private /tmp, /dev and /proc, then Landlock,
no capabilities and the address-space cap. Python 3.11 has no unshare or
mount calls: they go through ctypes. The zygote has no Landlock domain (a
domain would deny its children every workspace, and every mount) and runs
no cell; nothing here runs after a cell could.

tether_fork_child(spec, trees, ctl) returns in the kernel: the process 2 of
a PID namespace of its own, under an init (process 1) that reaps what is
reparented to it and, when the kernel ends, writes "status N" (its wait
status) on ctl. Before anything else the forked process says "hello" on ctl
(its credentials carry its pid as tether sees it: the kernel's process group
is its) and waits for "go": tether puts it in its pids cgroup in between;
it ends once its init is forked. The kernel says "kernel" on ctl once it is
confined (its credentials carry its pid) and closes it. Any failure raises;
the caller reports it on ctl and exits.
"""

import ctypes as _tfc_ctypes
import os as _tfc_os
import signal as _tfc_signal
import struct as _tfc_struct

_TFC_NEWNS, _TFC_NEWCGROUP, _TFC_NEWIPC, _TFC_NEWUSER, _TFC_NEWPID, _TFC_NEWNET = 0x20000, 0x02000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000
_TFC_NOSUID, _TFC_NODEV, _TFC_NOEXEC, _TFC_RDONLY, _TFC_REMOUNT = 2, 4, 8, 1, 32
_TFC_BIND, _TFC_REC, _TFC_PRIVATE = 4096, 16384, 1 << 18
_TFC_PIVOT_ROOT, _TFC_MOVE_MOUNT, _TFC_CAPSET = 155, 429, 126
_TFC_LL_CREATE, _TFC_LL_ADD, _TFC_LL_RESTRICT = 444, 445, 446
_TFC_PR_SET_NO_NEW_PRIVS, _TFC_PR_CAP_AMBIENT, _TFC_PR_CAP_AMBIENT_CLEAR_ALL = 38, 47, 4
# The view's devices, private /tmp options and the rights Landlock grants:
# the launcher's (view_linux.go, landlock_linux.go).
_TFC_DEVICES = ("null", "zero", "full", "random", "urandom")
_TFC_TMP_OPTIONS = "mode=1777,size=256m"
_TFC_READ = 1 | 4 | 8  # execute, read file, read dir
_TFC_FILE_RIGHTS = 1 | 2 | 4 | 0x4000 | 0x8000  # execute, write, read, truncate, ioctl_dev


def _tfc_libc():
    libc = _tfc_ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = _tfc_ctypes.c_long
    libc.mount.argtypes = [_tfc_ctypes.c_char_p, _tfc_ctypes.c_char_p, _tfc_ctypes.c_char_p, _tfc_ctypes.c_ulong, _tfc_ctypes.c_char_p]
    return libc


def _tfc_ck(libc, r, what):
    if r < 0:
        e = _tfc_ctypes.get_errno()
        raise OSError(e, "%s: %s" % (what, _tfc_os.strerror(e)))
    return r


def _tfc_mount(libc, src, tgt, fs, flags, data=None):
    enc = lambda s: s.encode() if s else None
    _tfc_ck(libc, libc.mount(enc(src), enc(tgt), enc(fs), flags, enc(data)), "mount %s on %s" % (src or fs, tgt))


def _tfc_namespaces(net):
    """User, mount, PID, IPC and cgroup namespaces (and a network one
    without the network). A process may map only its own ids into a
    namespace it made: the launcher maps every id for root from the parent
    side, here even root's are its own alone (files of other owners show as
    the overflow ids, and with no capability left no owner's rights are
    borrowed)."""
    uid, gid = _tfc_os.geteuid(), _tfc_os.getegid()
    libc = _tfc_libc()
    flags = _TFC_NEWUSER | _TFC_NEWNS | _TFC_NEWPID | _TFC_NEWIPC | _TFC_NEWCGROUP
    if not net:
        flags |= _TFC_NEWNET
    _tfc_ck(libc, libc.unshare(flags), "unshare")
    for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)), ("gid_map", "%d %d 1" % (gid, gid))):
        with open("/proc/self/" + name, "w") as f:
            f.write(text)


def _tfc_loopback_up():
    import fcntl
    import socket

    SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        ifr = fcntl.ioctl(s, SIOCGIFFLAGS, _tfc_struct.pack("16sH14x", b"lo", 0))
        flags = _tfc_struct.unpack("16sH14x", ifr)[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, _tfc_struct.pack("16sH14x", b"lo", flags | IFF_UP))


def _tfc_dev(libc, dev):
    """A /dev of the launcher's devices (bound from the zygote's), the
    standard links and a devpts instance of this namespace, none of the
    zygote's terminals. Returns the paths Landlock must grant for it."""
    _tfc_os.mkdir(dev, 0o755)
    _tfc_mount(libc, "tmpfs", dev, "tmpfs", _TFC_NOSUID | _TFC_NOEXEC, "mode=0755")
    for d in _TFC_DEVICES:
        if _tfc_os.path.exists("/dev/" + d):
            open(dev + "/" + d, "w").close()
            _tfc_mount(libc, "/dev/" + d, dev + "/" + d, None, _TFC_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        _tfc_os.symlink(target, dev + "/" + name)
    _tfc_os.mkdir(dev + "/pts", 0o755)
    if libc.mount(b"devpts", (dev + "/pts").encode(), b"devpts", _TFC_NOSUID | _TFC_NOEXEC, b"newinstance,ptmxmode=0666,mode=0620") == 0:
        _tfc_os.symlink("pts/ptmx", dev + "/ptmx")
        return ["/dev/pts", "/dev/ptmx"]
    return []


def _tfc_view(spec, trees):
    """A new root (a tmpfs on the zygote's /tmp of this mount namespace):
    every entry of the zygote's root bound in as it is there, a private
    /tmp, /dev and /proc, each tree moved to its path; pivot into it, make
    it read-only and change into spec's cwd. Returns what Landlock must
    grant beyond spec's paths."""
    libc = _tfc_libc()
    _tfc_mount(libc, None, "/", None, _TFC_REC | _TFC_PRIVATE)
    root = "/tmp"
    _tfc_mount(libc, "tmpfs", root, "tmpfs", _TFC_NOSUID | _TFC_NODEV, "mode=0755")
    for e in sorted(_tfc_os.listdir("/")):
        src = "/" + e
        if e in ("tmp", "proc", "dev"):
            continue
        if _tfc_os.path.islink(src):
            _tfc_os.symlink(_tfc_os.readlink(src), root + src)
            continue
        if _tfc_os.path.isdir(src):
            _tfc_os.mkdir(root + src)
        else:
            open(root + src, "w").close()
        _tfc_mount(libc, src, root + src, None, _TFC_BIND | _TFC_REC)
    _tfc_os.mkdir(root + "/tmp", 0o1777)
    _tfc_mount(libc, "tmpfs", root + "/tmp", "tmpfs", _TFC_NOSUID | _TFC_NODEV, _TFC_TMP_OPTIONS)
    extra = _tfc_dev(libc, root + "/dev")
    for path, tree in zip(spec["trees"], trees):
        _tfc_os.makedirs(root + path, exist_ok=True)
        _tfc_ck(libc, libc.syscall(_TFC_MOVE_MOUNT, tree, b"", -100, (root + path).encode(), 4), "move_mount of " + path)
        _tfc_os.close(tree)
    _tfc_os.mkdir(root + "/proc", 0o555)
    _tfc_mount(libc, "proc", root + "/proc", "proc", _TFC_NOSUID | _TFC_NODEV | _TFC_NOEXEC)
    _tfc_os.chdir(root)
    _tfc_ck(libc, libc.syscall(_TFC_PIVOT_ROOT, b".", b"."), "pivot_root")
    _tfc_ck(libc, libc.umount2(b".", 2), "detaching the old root")
    _tfc_mount(libc, None, "/", None, _TFC_REMOUNT | _TFC_BIND | _TFC_RDONLY | _TFC_NOSUID | _TFC_NODEV)
    try:
        _tfc_os.chdir(spec.get("cwd") or "/")
    except OSError:
        _tfc_os.chdir("/")
    return extra + ["/tmp"]


def _tfc_landlock(ro, rw, net):
    """Landlock as the launcher's restrict: ro readable, rw writable,
    nothing else; no TCP bind or connect without the network (ABI 4); no
    signals or abstract sockets out of the domain (ABI 6)."""
    libc = _tfc_libc()
    abi = _tfc_ck(libc, libc.syscall(_TFC_LL_CREATE, None, 0, 1), "Landlock is not available")
    fs = (1 << 13) - 1
    for v, bit in ((2, 0x2000), (3, 0x4000), (5, 0x8000), (9, 0x10000)):
        if abi >= v:
            fs |= bit
    size = 8 + (8 if abi >= 4 else 0) + (8 if abi >= 6 else 0)
    tcp = 3 if abi >= 4 and not net else 0
    attr = _tfc_struct.pack("<QQQ", fs, tcp, 3 if abi >= 6 else 0)
    rs = _tfc_ck(libc, libc.syscall(_TFC_LL_CREATE, _tfc_ctypes.c_char_p(attr), size, 0), "landlock_create_ruleset")
    try:
        for path, rights in [(p, _TFC_READ) for p in ro] + [(p, fs) for p in rw]:
            try:
                pfd = _tfc_os.open(path, _tfc_os.O_PATH | _tfc_os.O_CLOEXEC)
            except FileNotFoundError:
                continue  # absent here: nothing to allow
            try:
                if not _tfc_os.path.isdir("/proc/self/fd/%d" % pfd):
                    rights &= _TFC_FILE_RIGHTS
                rights &= fs
                if not rights:
                    continue
                rule = _tfc_struct.pack("<Qi", rights, pfd)
                r = libc.syscall(_TFC_LL_ADD, rs, 1, _tfc_ctypes.c_char_p(rule), 0)
                if r < 0 and _tfc_ctypes.get_errno() != 77:  # EBADFD: an internal filesystem's file takes no rule
                    _tfc_ck(libc, r, "landlock_add_rule " + path)
            finally:
                _tfc_os.close(pfd)
        _tfc_ck(libc, libc.prctl(_TFC_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _tfc_ck(libc, libc.syscall(_TFC_LL_RESTRICT, rs, 0), "landlock_restrict_self")
    finally:
        _tfc_os.close(rs)
    return abi


def _tfc_drop_caps():
    """No capability left in the process's namespaces (there is no exec to
    drop those unshare gave): ambient, then effective, permitted and
    inheritable."""
    libc = _tfc_libc()
    if libc.prctl(_TFC_PR_CAP_AMBIENT, _TFC_PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 and _tfc_ctypes.get_errno() != 22:
        _tfc_ck(libc, -1, "clearing ambient capabilities")
    hdr = _tfc_struct.pack("<Ii", 0x20080522, 0)
    data = bytes(24)
    _tfc_ck(libc, libc.syscall(_TFC_CAPSET, _tfc_ctypes.c_char_p(hdr), _tfc_ctypes.c_char_p(data)), "capset")


def _tfc_init(ctl, kernel):
    """The PID namespace's first process, as the launcher's init: deaf to
    the group's signals, reaping what is reparented to it until the kernel
    ends, then telling tether the kernel's wait status."""
    for s in (_tfc_signal.SIGINT, _tfc_signal.SIGTERM, _tfc_signal.SIGHUP, _tfc_signal.SIGQUIT, _tfc_signal.SIGUSR1, _tfc_signal.SIGUSR2, _tfc_signal.SIGPIPE):
        _tfc_signal.signal(s, _tfc_signal.SIG_IGN)
    while True:
        try:
            pid, status = _tfc_os.wait()
        except ChildProcessError:
            _tfc_os._exit(1)
        except InterruptedError:
            continue
        if pid == kernel:
            break
    try:
        _tfc_os.write(ctl, b"status %d\n" % status)
    finally:
        _tfc_os._exit(0)


def _tfc_read_go(ctl):
    b = b""
    while len(b) < 3:
        c = _tfc_os.read(ctl, 3 - len(b))
        if not c:
            _tfc_os._exit(1)
        b += c
    if b != b"go\n":
        _tfc_os._exit(1)


def _tfc_nice(nice):
    """Run below tether's priority, as the launcher sets it (peerNice):
    this process, and its init and kernel after it. Best effort."""
    if nice > 0:
        try:
            _tfc_os.setpriority(_tfc_os.PRIO_PROCESS, 0, nice)
        except OSError:
            pass


def tether_fork_child(spec, trees, ctl, keep=()):
    """Confine this freshly forked process by spec (see the module's doc);
    returns in the kernel. keep are descriptors the kernel keeps (its frame
    channel); every other one but ctl and the trees is closed first."""
    own = set(keep)
    keep = own | {ctl} | set(trees)
    for fd in [int(f) for f in _tfc_os.listdir("/proc/self/fd")]:
        if fd > 2 and fd not in keep:
            try:
                _tfc_os.close(fd)
            except OSError:
                pass  # the directory listdir itself had open
    _tfc_os.setsid()
    _tfc_nice(spec.get("nice", 0))
    _tfc_signal.signal(_tfc_signal.SIGINT, _tfc_signal.SIG_IGN)
    import socket

    with socket.socket(fileno=_tfc_os.dup(ctl)) as c:
        c.sendall(b"hello\n")
    _tfc_read_go(ctl)
    _tfc_namespaces(spec["net"])
    if _tfc_os.fork():
        # Outside the namespace: done. The group this process leads lives
        # on in its init and the kernel, and the zygote's namespace's init
        # takes the init in.
        _tfc_os._exit(0)
    # The namespace's process 1: it forks the kernel at once and then only
    # reaps, so that it touches (and copies) as little of the zygote's
    # memory as it can; the kernel makes the view, which the init's root
    # follows into (pivot_root moves every process of the namespace).
    pid = _tfc_os.fork()
    if pid:
        for fd in own | set(trees):
            _tfc_os.close(fd)
        _tfc_init(ctl, pid)
    if not spec["net"]:
        _tfc_loopback_up()
    extra = _tfc_view(spec, trees)
    _tfc_signal.signal(_tfc_signal.SIGINT, _tfc_signal.SIG_DFL)
    abi = _tfc_landlock(spec["ro"], spec["rw"] + extra, spec["net"])
    _tfc_drop_caps()
    limit = spec.get("as") or 0
    if limit > 0:
        import resource

        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY and hard < limit:
            limit = hard
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    if spec.get("env") is not None:
        _tfc_os.environ.clear()
        for kv in spec["env"]:
            k, _, v = kv.partition("=")
            _tfc_os.environ[k] = v
    # Its pid, as tether sees it, in the credentials of this word.
    with socket.socket(fileno=_tfc_os.dup(ctl)) as c:
        c.sendall(b"kernel\n")
    _tfc_os.close(ctl)  # the init's now: a failure above was still told on it
    return abi
