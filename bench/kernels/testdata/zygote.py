"""Fresh interpreters against children forked from one warm interpreter.

python3 zygote.py DRIVER N prints one JSON object: for N kernels started at
once each way, each kernel's PSS after its first cell and the time from the
start request to that cell's answer.

"fresh": N python3 processes, each compiling the driver in top-level pieces
and running it, as kernels/python starts one today (without the sandbox).
"forked": one python3 (the zygote) compiles the driver's definitions once,
then forks a child per request; the child gets its stdin and stdout over a
Unix socket (SCM_RIGHTS) and runs the driver's main. The zygote's own PSS is
reported apart. Neither is sandboxed: this sizes what forking saves, nothing
else.
"""

import json
import os
import select
import socket
import struct
import subprocess
import sys
import time

CELL = "sum(range(1000))"


def chunks(src):
    """The driver split before each top-level def, class or decorator, as
    kernels/python's splitTopLevel does: "LINE:SOURCE"."""
    lines = src.splitlines(keepends=True)
    out, start, prev_dec = [], 0, False
    for i, line in enumerate(lines):
        top = line.startswith(("def ", "class ", "@"))
        if top and not prev_dec and i > start:
            out.append("%d:%s" % (start + 1, "".join(lines[start:i])))
            start = i
        if line.strip():
            prev_dec = line.startswith("@")
    if start < len(lines):
        out.append("%d:%s" % (start + 1, "".join(lines[start:])))
    return out


BOOT = """import sys
_tether_end = sys.argv.index("--end")
_tether_chunks = sys.argv[1:_tether_end]
del sys.argv[1:_tether_end + 1]
while _tether_chunks:
    _tether_line, _, _tether_src = _tether_chunks.pop(0).partition(":")
    exec(compile("\\n" * (int(_tether_line) - 1) + _tether_src, "<string>", "exec"))
"""

# The zygote: the driver's definitions (BOOT ran them; its main() call was
# left off), then a fork per request on the socket ZYGOTE_FD names: the request carries the
# child's stdin and stdout; the zygote answers with the child's pid.
ZYGOTE = """
import gc, os, socket, sys
gc.collect()
gc.freeze()
_z = socket.socket(fileno=int(os.environ.pop("ZYGOTE_FD")))
_z.sendall(b"z\\n")
while True:
    _msg, _fds, _, _ = socket.recv_fds(_z, 16, 2)
    if not _msg:
        os._exit(0)
    _pid = os.fork()
    if _pid == 0:
        _z.close()
        os.dup2(_fds[0], 0)
        os.dup2(_fds[1], 1)
        for _fd in _fds:
            os.close(_fd)
        del _fds
        main()
        os._exit(0)
    for _fd in _fds:
        os.close(_fd)
    _z.sendall(str(_pid).encode() + b"\\n")
"""


def pss_kb(pid):
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            if line.startswith("Pss:"):
                return int(line.split()[1])
    return 0


def send(fd, obj):
    data = json.dumps(obj).encode()
    os.write(fd, struct.pack(">I", len(data)) + data)


class Kernel:
    """One kernel's pipes: frames in on win, out on rout."""

    def __init__(self, t0, win, rout):
        self.t0, self.win, self.rout = t0, win, rout
        self.buf, self.pid, self.ready, self.done = b"", 0, False, 0.0

    def frames(self):
        b = os.read(self.rout, 1 << 16)
        if not b:
            raise SystemExit("zygote.py: a kernel ended before its cell's answer")
        self.buf += b
        while len(self.buf) >= 4:
            (n,) = struct.unpack(">I", self.buf[:4])
            if len(self.buf) < 4 + n:
                break
            yield json.loads(self.buf[4 : 4 + n])
            self.buf = self.buf[4 + n :]


def first_cells(kernels, deadline=120):
    """Sends each kernel its cell once it is ready; returns when every one
    answered (each kernel's done time set)."""
    by_fd = {k.rout: k for k in kernels}
    end = time.monotonic() + deadline
    while any(not k.done for k in kernels):
        if time.monotonic() > end:
            raise SystemExit("zygote.py: kernels did not answer within %ds" % deadline)
        r, _, _ = select.select([k.rout for k in kernels if not k.done], [], [], 1)
        for fd in r:
            k = by_fd[fd]
            for f in k.frames():
                if f["op"] == "ready":
                    k.pid = f["pid"]
                    send(k.win, {"op": "exec", "id": 1, "code": CELL, "source": CELL})
                elif f["op"] == "done":
                    if f.get("error"):
                        raise SystemExit("zygote.py: the cell failed: %r" % f["error"])
                    k.done = time.monotonic()


def fresh(driver, n):
    argv = [sys.executable, "-c", BOOT] + chunks(driver) + ["--end"]
    procs, kernels = [], []
    for _ in range(n):
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        procs.append(p)
        kernels.append(Kernel(time.monotonic(), p.stdin.fileno(), p.stdout.fileno()))
    first_cells(kernels)
    out = [(k.done - k.t0, pss_kb(p.pid)) for k, p in zip(kernels, procs)]
    for p in procs:
        p.kill()
        p.wait()
    return out


def recv(sock):
    """What the zygote says next; its end is an error, not an empty answer
    to wait on again."""
    b = sock.recv(4096)
    if not b:
        raise SystemExit("zygote.py: the zygote ended before it answered")
    return b


def forked(driver, n):
    # The driver's definitions: everything before its closing dispatch
    # (the zygote mode or main()).
    tail = '\nif "--tether-zygote" in sys.argv:'
    if tail not in driver:
        raise SystemExit("zygote.py: the driver does not end with its dispatch %r" % tail.strip())
    defs = driver.rsplit(tail, 1)[0] + "\n"
    ours, theirs = socket.socketpair()
    argv = [sys.executable, "-c", BOOT + ZYGOTE] + chunks(defs) + ["--end"]
    t = time.monotonic()
    env = dict(os.environ, ZYGOTE_FD=str(theirs.fileno()))
    z = subprocess.Popen(argv, pass_fds=(theirs.fileno(),), env=env)
    theirs.close()
    answers = b""
    while not answers.endswith(b"\n"):
        answers += recv(ours)
    boot = time.monotonic() - t
    kernels = []
    for _ in range(n):
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        k = Kernel(time.monotonic(), in_w, out_r)
        socket.send_fds(ours, [b"k"], [in_r, out_w])
        os.close(in_r)
        os.close(out_w)
        kernels.append(k)
    answers = b""
    while answers.count(b"\n") < n:
        answers += recv(ours)
    first_cells(kernels)
    out = [(k.done - k.t0, pss_kb(k.pid)) for k in kernels]
    zygote = pss_kb(z.pid)
    for k in kernels:
        os.kill(k.pid, 9)
    ours.close()
    z.wait()
    return out, zygote, boot


def summary(rows):
    lat = sorted(r[0] for r in rows)
    pss = [r[1] for r in rows]
    return {
        "pss_kib_avg": sum(pss) // len(pss),
        "first_cell_p50_s": lat[len(lat) // 2],
        "first_cell_max_s": lat[-1],
    }


def main():
    driver = open(sys.argv[1]).read()
    n = int(sys.argv[2])
    f = fresh(driver, n)
    time.sleep(1)
    k, zygote, boot = forked(driver, n)
    print(json.dumps({"kernels": n, "fresh": summary(f), "forked": summary(k), "zygote_pss_kib": zygote, "zygote_boot_s": boot}))


main()
