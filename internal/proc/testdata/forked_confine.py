"""The test's zygote: forkchild.py (ForkChildSource, prepended by the test)
confines each child; the child then looks around as a cell could and
reports what it saw on its socket.

Each request on the socket ZYGOTE_FD names carries a JSON request (the
ForkSpec as "spec", what to try to reach) and descriptors: a detached mount
tree per spec["trees"] entry, the child's socket to tether and the
kernel's own socket.
"""

import json
import os
import signal
import socket
import traceback

_libc = _tfc_libc()
PTRACE_ATTACH = 16


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


def caps():
    with open("/proc/self/status") as f:
        return {l.split(":")[0]: l.split()[1] for l in f if l.startswith("Cap")}


def look(req):
    """What a cell could see and do, in the report's words."""
    ws = req["ws"]
    out = {"pid": os.getpid(), "ppid": os.getppid(), "cwd": os.getcwd(), "caps": caps()}
    out["own"] = outcome(lambda: open(os.path.join(ws, "f")).read())
    out["write_own"] = outcome(lambda: open(os.path.join(ws, "g"), "w").close())
    out["write_tmp"] = outcome(lambda: open(os.path.join(os.environ["TMPDIR"], "t"), "w").close())
    out["other"] = outcome(lambda: open(req["other"]).read())
    out["shadow"] = outcome(lambda: open("/etc/shadow").read())
    out["ungranted"] = outcome(lambda: open(req["ungranted"]).read())
    out["write_usr"] = outcome(lambda: open("/usr/tether-zygote-test", "w").close())
    out["proc"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    out["signal_all"] = outcome(lambda: os.kill(-1, 0))
    out["env"] = dict(os.environ)
    out["pts"] = sorted(os.listdir("/dev/pts"))
    for name in ("sibling", "zygote"):
        pid = req[name]
        out["signal_" + name] = outcome(lambda: os.kill(pid, 0))
        out["ptrace_" + name] = outcome(lambda: _tfc_ck(_libc, _libc.ptrace(PTRACE_ATTACH, pid, None, None), "ptrace"))

    def connect():
        with socket.create_connection(("127.0.0.1", req["port"]), timeout=5):
            pass

    out["host_tcp"] = outcome(connect)
    out["forked"], out["fork_error"] = fork_many(req["forks"])
    out["fds"] = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            out["fds"].append(os.readlink("/proc/self/fd/" + fd))
        except FileNotFoundError:
            continue  # the descriptor listdir itself had open
    return out


def child(req, fds):
    """fds: the trees, the child's socket to tether (hello, go, the init's
    status), and the kernel's own socket (its frame channel's place): the
    report, "interrupted" on SIGINT; "die" there makes it kill itself, its
    end lets it exit."""
    trees, ctl, rep = fds[:-2], fds[-2], fds[-1]
    try:
        abi = tether_fork_child(req["spec"], trees, ctl, keep=[rep])
    except BaseException:
        os.write(ctl, (json.dumps({"error": traceback.format_exc()}) + "\n").encode())
        os._exit(1)
    try:
        report = look(req)
        report["landlock"] = abi
    except BaseException:
        report = {"error": traceback.format_exc()}
    signal.signal(signal.SIGINT, lambda *_: os.write(rep, b"interrupted\n"))
    os.write(rep, (json.dumps(report) + "\n").encode())
    if os.read(rep, 4) == b"die\n":
        os.kill(os.getpid(), signal.SIGKILL)
    os._exit(0)


def main():
    z = socket.socket(fileno=int(os.environ.pop("ZYGOTE_FD")))
    while True:
        msg, fds, _, _ = socket.recv_fds(z, 1 << 16, 8)
        if not msg:
            os._exit(0)
        pid = os.fork()
        if pid == 0:
            z.close()
            child(json.loads(msg), fds)
        for fd in fds:
            os.close(fd)
        z.sendall(b"%d\n" % pid)


main()
