"""A zygote whose children confine themselves, for zygote_linux_test.go.

The zygote runs under tether's launcher in namespaces of its own with a
filesystem view of the system's paths and no Landlock domain (a domain
would deny its children every workspace and every mount). Each request on
the socket ZYGOTE_FD names carries a workspace path and two descriptors: a
detached mount tree of the workspace (open_tree(OPEN_TREE_CLONE) by
tether), its socket to tether, and a pipe whose end lets it exit. The zygote forks a child, which
before anything else: takes new user, mount, PID, IPC and cgroup
namespaces (a network namespace too without the network); as the new PID
namespace's first process, builds a root of the
zygote's view with a private /tmp and /proc and the workspace tree moved
in; pivots into it; and confines itself with Landlock (system paths
read-only, workspace and /tmp read-write, signals and abstract sockets
scoped). It then looks around as a cell could and reports what it saw.
"""

import ctypes
import json
import os
import signal
import socket
import struct
import traceback

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x20000, 0x02000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 8, 4096, 16384, 1 << 18
SYS_PIVOT_ROOT, SYS_MOVE_MOUNT, SYS_LL_CREATE, SYS_LL_ADD, SYS_LL_RESTRICT = 155, 429, 444, 445, 446
PTRACE_ATTACH = 16


def ck(r, what):
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, "%s: %s" % (what, os.strerror(e)))
    return r


def mount(src, tgt, fs, flags, data=None):
    enc = lambda s: s.encode() if s else None
    ck(libc.mount(enc(src), enc(tgt), enc(fs), flags, enc(data)), "mount %s on %s" % (src, tgt))


def namespaces(net):
    uid, gid = os.geteuid(), os.getegid()
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWCGROUP
    if not net:
        flags |= CLONE_NEWNET
    ck(libc.unshare(flags), "unshare")
    for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)), ("gid_map", "%d %d 1" % (gid, gid))):
        with open("/proc/self/" + name, "w") as f:
            f.write(text)


def view(tree, ws):
    """A new root on the zygote's private /tmp: its view bound in, a /tmp
    and /proc of this child's own, the workspace tree moved in."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    root = "/tmp"
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")
    for e in os.listdir("/"):
        src = "/" + e
        if e in ("tmp", "proc"):
            continue
        if os.path.islink(src):
            os.symlink(os.readlink(src), root + src)
            continue
        if os.path.isdir(src):
            os.mkdir(root + src)
        else:
            open(root + src, "w").close()
        mount(src, root + src, None, MS_BIND | MS_REC)
    os.mkdir(root + "/tmp", 0o1777)
    mount("tmpfs", root + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV)
    os.makedirs(root + ws)
    ck(libc.syscall(SYS_MOVE_MOUNT, tree, b"", -100, (root + ws).encode(), 4), "move_mount of the workspace")
    os.close(tree)
    os.mkdir(root + "/proc")
    mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    os.chdir(root)
    ck(libc.syscall(SYS_PIVOT_ROOT, b".", b"."), "pivot_root")
    ck(libc.umount2(b".", 2), "detaching the old root")
    os.chdir(ws)


def loopback_up():
    """Loopback of a new network namespace up: a kernel may talk to itself."""
    import fcntl

    SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        ifr = fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack("16sH14x", b"lo", 0))
        flags = struct.unpack("16sH14x", ifr)[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def landlock(ro, rw, net):
    abi = ck(libc.syscall(SYS_LL_CREATE, None, 0, 1), "landlock ABI")
    fs = (1 << 13) - 1
    for v, bit in ((2, 13), (3, 14), (5, 15)):
        if abi >= v:
            fs |= 1 << bit
    size = 8 + (8 if abi >= 4 else 0) + (8 if abi >= 6 else 0)
    # Without the network, TCP bind and connect are handled and granted
    # nowhere (ABI 4), as the launcher does it.
    tcp = 3 if abi >= 4 and not net else 0
    attr = struct.pack("<QQQ", fs, tcp, 3 if abi >= 6 else 0)
    rs = ck(libc.syscall(SYS_LL_CREATE, ctypes.c_char_p(attr), size, 0), "landlock_create_ruleset")
    file_rights = 1 | 2 | 4 | (1 << 14) | (1 << 15)
    for path, rights in [(p, 1 | 4 | 8) for p in ro] + [(p, fs) for p in rw]:
        try:
            pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except FileNotFoundError:
            continue
        if not os.path.isdir(path):
            rights &= file_rights
        rule = struct.pack("<Qi", rights & fs, pfd)
        ck(libc.syscall(SYS_LL_ADD, rs, 1, ctypes.c_char_p(rule), 0), "landlock_add_rule " + path)
        os.close(pfd)
    ck(libc.prctl(38, 1, 0, 0, 0), "no_new_privs")
    ck(libc.syscall(SYS_LL_RESTRICT, rs, 0), "landlock_restrict_self")
    return abi


def outcome(f):
    try:
        r = f()
        return "ok" if r is None else r
    except OSError as e:
        return e.strerror


def fork_many(n):
    """How many children this process could fork, up to n (a pids cgroup
    caps them); they are killed and reaped before it returns."""
    kids, err = [], "ok"
    for _ in range(n):
        try:
            pid = os.fork()
        except OSError as e:
            err = e.strerror
            break
        if pid == 0:
            signal.pause()
            os._exit(0)
        kids.append(pid)
    for pid in kids:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    return len(kids), err


def look(req):
    """What a cell could see and do, in the report's words."""
    ws = req["ws"]
    out = {"pid": os.getpid(), "ppid": os.getppid(), "cwd": os.getcwd()}
    out["own"] = outcome(lambda: open(os.path.join(ws, "f")).read())
    out["write_own"] = outcome(lambda: open(os.path.join(ws, "g"), "w").close())
    out["other"] = outcome(lambda: open(req["other"]).read())
    out["shadow"] = outcome(lambda: open("/etc/shadow").read())
    # In the zygote's view, outside this child's Landlock rules.
    out["ungranted"] = outcome(lambda: open("/sys/devices/system/cpu/online").read())
    out["write_usr"] = outcome(lambda: open("/usr/tether-zygote-test", "w").close())
    out["proc"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    out["signal_all"] = outcome(lambda: os.kill(-1, 0))
    for name in ("sibling", "zygote"):
        pid = req[name]
        out["signal_" + name] = outcome(lambda: os.kill(pid, 0))
        out["ptrace_" + name] = outcome(lambda: ck(libc.ptrace(PTRACE_ATTACH, pid, None, None), "ptrace"))
    def connect():
        with socket.create_connection(("127.0.0.1", req["port"]), timeout=5):
            pass

    out["host_tcp"] = outcome(connect)
    out["forked"], out["fork_error"] = fork_many(req["forks"])
    out["sockets"] = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink("/proc/self/fd/" + fd)
        except FileNotFoundError:
            continue  # the descriptor listdir itself had open
        if target.startswith("socket:") and int(fd) != req["ctl"]:
            out["sockets"].append(target)
    return out


def init(c, kernel):
    """The PID namespace's first process, as the launcher's init: no
    Landlock domain of its own (the kernel cannot trace it), deaf to the
    group's interrupts, reaping what is reparented to it until the kernel
    ends; then it tells tether the kernel's wait status."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        pid, status = os.wait()
        if pid == kernel:
            break
    c.sendall(b"status %d\n" % status)
    os._exit(0)


def kernel(req, c, hold):
    """The kernel (pid 2): Landlock, then what a cell could see and do.
    After the report it answers an interrupt, and "die" kills it."""
    try:
        abi = landlock(["/usr", "/lib", "/lib64", "/bin", "/etc", "/proc"], [req["ws"], "/tmp", "/dev/null"], req["net"])
        report = look(req)
        report["landlock"] = abi
    except BaseException:
        report = {"error": traceback.format_exc()}
    signal.signal(signal.SIGINT, lambda *_: c.sendall(b"interrupted\n"))
    c.sendall((json.dumps(report) + "\n").encode())
    if c.recv(4) == b"die\n":
        os.kill(os.getpid(), signal.SIGKILL)
    os.read(hold, 1)  # alive until the test lets go, a sibling to the next
    os._exit(0)


def child(req, tree, ctl, hold):
    """ctl is this child's socket to tether: tether reads its pid there
    (SO_PASSCRED), puts it in its cgroup and answers before the child goes
    on; the report and the kernel's end go there too. The child leads a
    process group of its own, which tether signals."""
    c = socket.socket(fileno=ctl)
    req["ctl"] = ctl
    try:
        os.setpgid(0, 0)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        c.sendall(b"hello\n")
        if c.recv(3) != b"go\n":
            os._exit(1)
        namespaces(req["net"])
        pid = os.fork()
        if pid:
            os.close(tree)
            os.close(hold)
            os._exit(os.waitpid(pid, 0)[1] >> 8)
        if not req["net"]:
            loopback_up()
        view(tree, req["ws"])
        pid = os.fork()
        if pid:
            init(c, pid)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        kernel(req, c, hold)
    except BaseException:
        c.sendall((json.dumps({"error": traceback.format_exc()}) + "\n").encode())
    os._exit(1)


def main():
    z = socket.socket(fileno=int(os.environ.pop("ZYGOTE_FD")))
    while True:
        msg, fds, _, _ = socket.recv_fds(z, 1 << 16, 3)
        if not msg:
            os._exit(0)
        pid = os.fork()
        if pid == 0:
            z.close()
            child(json.loads(msg), *fds)
        for fd in fds:
            os.close(fd)
        z.sendall(b"%d\n" % pid)


main()
