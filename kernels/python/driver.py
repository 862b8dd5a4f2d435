# tether's in-kernel driver for Python: our own small program, embedded in the
# tether binary and started as `python -c <this file>`.
#
# Frames: each frame is a 4-byte big-endian length followed by that many bytes
# of UTF-8 JSON. Frames travel on the process's original stdin (host -> driver)
# and stdout (driver -> host). Before any user code runs the driver moves those
# two descriptors aside and points fds 0, 1 and 2 at /dev/null and two capture
# pipes, so nothing a cell prints (print, os.write(1, ...), a child process)
# can reach the frame channel. Capture threads forward what arrives on the
# pipes as "stream" frames.
#
# Host -> driver: exec {id, code, max_image}, reply {id, ok, text, structured},
#                 shutdown.
# Driver -> host: ready {python, executable}, stream {name, text},
#                 display {data}, result {data}, tool {id, name, args},
#                 done {id, error}.
#
# SIGINT interrupts the running cell (KeyboardInterrupt), never the driver's
# own bookkeeping: the handler raises only while user code runs.

import ast
import base64
import builtins
import codecs
import io
import json
import linecache
import os
import queue
import signal
import struct
import sys
import threading
import traceback
import types

_MAX_FRAME = 64 << 20


class _State:
    in_cell = False
    critical = 0
    pending_interrupt = False
    cell_id = 0
    cell_file = "<cell>"
    max_image = 1 << 20
    max_text = 32 << 10
    emitted_figures = set()


_state = _State()
_wlock = threading.Lock()
_fout = None
_replies = {}
_replies_lock = threading.Lock()
_requests = queue.Queue()
_next_tool_id = [0]


def _send(obj):
    data = json.dumps(obj, ensure_ascii=False, default=repr).encode("utf-8", "surrogatepass")
    if len(data) > _MAX_FRAME:
        raise ValueError("kernels: message of %d bytes is over the %d-byte frame limit" % (len(data), _MAX_FRAME))
    with _wlock:
        _fout.write(struct.pack(">I", len(data)) + data)
        _fout.flush()


class _Critical:
    """Blocks KeyboardInterrupt from SIGINT while driver bookkeeping runs."""

    def __enter__(self):
        _state.critical += 1

    def __exit__(self, *exc):
        _state.critical -= 1
        if _state.critical == 0 and _state.pending_interrupt and _state.in_cell:
            _state.pending_interrupt = False
            raise KeyboardInterrupt
        return False


def _on_sigint(signum, frame):
    if not _state.in_cell:
        return
    if _state.critical:
        _state.pending_interrupt = True
        return
    raise KeyboardInterrupt


# ---- output capture ------------------------------------------------------

class _Pump(threading.Thread):
    """Forwards what arrives on a capture pipe as stream frames.

    The pipe's read end is non-blocking. The thread waits for data with poll
    (consuming nothing), then reads and forwards under its lock; _sync_streams
    takes the same lock and drains what is left, so once it returns everything
    written before it has been forwarded.
    """

    def __init__(self, fd, name):
        super().__init__(daemon=True, name="tether-pump-" + name)
        self.fd = fd
        self.stream = name
        self.lock = threading.Lock()
        self.dec = codecs.getincrementaldecoder("utf-8")(errors="replace")
        os.set_blocking(fd, False)

    def run(self):
        import select

        poller = select.poll()
        poller.register(self.fd, select.POLLIN | select.POLLHUP)
        while True:
            try:
                poller.poll()
            except InterruptedError:
                continue
            with self.lock:
                if self.drain() is None:
                    return

    def drain(self):
        """Reads and forwards until the pipe is empty; None at end of file."""
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return True
            except InterruptedError:
                continue
            if not data:
                return None
            text = self.dec.decode(data)
            if text:
                _send({"op": "stream", "name": self.stream, "text": text})


_pumps = []


def _sync_streams():
    """Forwards everything written to fds 1 and 2 so far."""
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except Exception:
            pass
    for p in _pumps:
        with p.lock:
            p.drain()


# ---- rich output -----------------------------------------------------------


def _png_of_figure(fig):
    dpi = fig.dpi if fig.dpi else 100
    data = b""
    for _ in range(6):
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
        data = buf.getvalue()
        if len(data) <= _state.max_image:
            return data, ""
        dpi = dpi / 2
    return None, "image left out: %d bytes even at dpi %d, over the %d-byte cap" % (len(data), dpi * 2, _state.max_image)


def _is_figure(obj):
    t = type(obj)
    return t.__module__.startswith("matplotlib") and t.__name__ == "Figure" and hasattr(obj, "savefig")


def _bundle(obj):
    data = {}
    note = ""
    if _is_figure(obj):
        png, note = _png_of_figure(obj)
        if png is not None:
            data["image/png"] = base64.b64encode(png).decode()
        _state.emitted_figures.add(id(obj))
    else:
        f = getattr(type(obj), "_repr_png_", None)
        if f is not None:
            try:
                png = f(obj)
                if isinstance(png, str):
                    png = base64.b64decode(png)
                if png:
                    if len(png) <= _state.max_image:
                        data["image/png"] = base64.b64encode(png).decode()
                    else:
                        note = "image left out: %d bytes, over the %d-byte cap" % (len(png), _state.max_image)
            except Exception as e:
                note = "_repr_png_ failed: %r" % (e,)
        f = getattr(type(obj), "_repr_html_", None)
        if f is not None:
            try:
                html = f(obj)
                if html:
                    data["text/html"] = str(html)
            except Exception as e:
                note = "_repr_html_ failed: %r" % (e,)
    try:
        data["text/plain"] = repr(obj)
    except Exception as e:
        data["text/plain"] = "<%s object; repr failed: %r>" % (type(obj).__name__, e)
    # Bound the texts here, so a huge repr never makes a huge frame; the host
    # cuts again on a rune boundary and says so.
    for key in ("text/plain", "text/html"):
        v = data.get(key)
        if v is not None and len(v) > _state.max_text + 4:
            data[key] = v[: _state.max_text + 4]
            note = (note + "; " if note else "") + "text cut: %d characters in all" % len(v)
    if note:
        data["note"] = note
    return data


def display(*objs):
    """Shows each object as rich output (text, HTML table, image)."""
    for obj in objs:
        data = _bundle(obj)
        with _Critical():
            _send({"op": "display", "data": data})


def _flush_figures():
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    for num in list(plt.get_fignums()):
        fig = plt.figure(num)
        if id(fig) not in _state.emitted_figures:
            display(fig)
        plt.close(fig)


def _show(*args, **kwargs):
    _flush_figures()


class _PyplotHook:
    """Replaces pyplot.show with ours as soon as pyplot is imported."""

    def find_spec(self, name, path, target=None):
        if name != "matplotlib.pyplot":
            return None
        import importlib.machinery

        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        orig = spec.loader.exec_module

        def exec_module(module):
            orig(module)
            module.show = _show

        spec.loader.exec_module = exec_module
        return spec


# ---- the bridge ----------------------------------------------------------


class ToolError(Exception):
    """A tool called from a cell failed or was refused."""


class ToolResult(str):
    """The text of a tool's result; .structured holds its structured output."""

    structured = None


def tool(name, args=None, **kwargs):
    """Calls one of the run's tools, as the model would, and returns its text."""
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise TypeError("tool(name, args): args must be a dict, not %s" % type(args).__name__)
    args = dict(args, **kwargs)
    ev = threading.Event()
    with _Critical():
        with _replies_lock:
            _next_tool_id[0] += 1
            tid = _next_tool_id[0]
            slot = {"event": ev}
            _replies[tid] = slot
        try:
            _send({"op": "tool", "id": tid, "name": str(name), "args": args})
        except ValueError as e:
            with _replies_lock:
                _replies.pop(tid, None)
            raise ToolError(str(e)) from None
    try:
        ev.wait()
    finally:
        with _replies_lock:
            _replies.pop(tid, None)
    rep = slot.get("reply") or {}
    if not rep.get("ok"):
        raise ToolError(rep.get("text") or "tool %s failed" % name)
    out = ToolResult(rep.get("text") or "")
    out.structured = rep.get("structured")
    return out


# ---- IPython idioms (the host rewrites cells into calls of these) --------


def _expand(s, depth=2):
    """Expands {expr} in a shell line from the calling cell's variables."""
    if "{" not in s:
        return s
    frame = sys._getframe(depth)
    g, l = frame.f_globals, frame.f_locals
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "{" and i + 1 < len(s) and s[i + 1] == "{":
            out.append("{")
            i += 2
            continue
        if c == "}" and i + 1 < len(s) and s[i + 1] == "}":
            out.append("}")
            i += 2
            continue
        if c == "{":
            j = s.find("}", i)
            if j > i:
                try:
                    out.append(str(eval(s[i + 1:j], g, l)))
                    i = j + 1
                    continue
                except Exception:
                    pass
        out.append(c)
        i += 1
    return "".join(out)


class _Magics:
    def system(self, cmd):
        import subprocess

        cmd = _expand(cmd)
        r = subprocess.run(cmd, shell=True)
        return None if r.returncode == 0 else _note_status(cmd, r.returncode)

    def getoutput(self, cmd):
        import subprocess

        cmd = _expand(cmd)
        r = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, text=True, errors="replace")
        return r.stdout.splitlines()

    def magic(self, name, args):
        args = _expand(args)
        return getattr(self, "m_" + name)(args)

    def cell(self, name, args, body):
        args = _expand(args)
        return getattr(self, "c_" + name)(args, body)

    def m_cd(self, args):
        path = os.path.expanduser(args.strip().strip("'\"") or "~")
        os.chdir(path)
        print(os.getcwd())

    def m_pwd(self, args):
        return os.getcwd()

    def m_pip(self, args):
        import shlex
        import subprocess
        import importlib
        import importlib.metadata as md

        argv = shlex.split(args)
        before = _dist_versions(md)
        r = subprocess.run([sys.executable, "-m", "pip"] + argv)
        importlib.invalidate_caches()
        after = _dist_versions(md)
        changed = [n for n, v in after.items() if before.get(n) != v] + [n for n in before if n not in after]
        evicted = _evict(md, changed)
        if evicted:
            print("evicted from sys.modules: " + ", ".join(sorted(evicted)))
        if r.returncode != 0:
            raise RuntimeError("pip exited with status %d; see its output above" % r.returncode)
        if changed:
            print("note: changed distributions: " + ", ".join(sorted(changed)) + "; the next import loads them fresh")

    def m_timeit(self, args):
        opts, stmt = _timeit_opts(args)
        return _timeit(stmt, "pass", opts)

    def c_timeit(self, args, body):
        opts, setup = _timeit_opts(args)
        return _timeit(body, setup or "pass", opts)

    def c_bash(self, args, body):
        import subprocess

        r = subprocess.run(["bash"] + args.split(), input=body, text=True)
        if r.returncode != 0:
            raise RuntimeError("bash exited with status %d" % r.returncode)

    c_sh = c_bash


def _note_status(cmd, code):
    sys.stderr.write("command exited with status %d: %s\n" % (code, cmd))
    return None


def _dist_versions(md):
    out = {}
    for d in md.distributions():
        try:
            name = d.metadata["Name"]
        except Exception:
            continue
        if name:
            out[name.lower().replace("_", "-")] = d.version
    return out


def _evict(md, changed):
    tops = set()
    for name in changed:
        tops.add(name.replace("-", "_"))
        try:
            dist = md.distribution(name)
        except Exception:
            continue
        try:
            txt = dist.read_text("top_level.txt")
        except Exception:
            txt = None
        if txt:
            tops.update(t.strip() for t in txt.split() if t.strip())
        for f in dist.files or []:
            parts = f.parts
            if not parts or parts[0].endswith((".dist-info", ".egg-info")) or parts[0] in ("..", "__pycache__"):
                continue
            top = parts[0]
            if top.endswith(".py"):
                top = top[:-3]
            if top.isidentifier():
                tops.add(top)
    evicted = []
    for mod in list(sys.modules):
        if mod.split(".")[0] in tops:
            del sys.modules[mod]
            evicted.append(mod)
    return evicted


def _timeit_opts(args):
    import shlex

    words = shlex.split(args, posix=False)
    opts = {"n": 0, "r": 7}
    rest = []
    i = 0
    while i < len(words):
        w = words[i]
        if w in ("-n", "-r") and i + 1 < len(words):
            opts[w[1]] = int(words[i + 1])
            i += 2
            continue
        if w == "-q" or w == "-o":
            i += 1
            continue
        rest = words[i:]
        break
    stmt = args
    if rest:
        # keep the original spacing of the statement part
        stmt = args[args.find(rest[0]):]
    else:
        stmt = ""
    return opts, stmt


def _fmt_time(t):
    for unit, scale in (("s", 1.0), ("ms", 1e3), ("µs", 1e6), ("ns", 1e9)):
        if t * scale >= 1.0 or unit == "ns":
            return "%.3g %s" % (t * scale, unit)


def _timeit(stmt, setup, opts):
    import timeit
    import statistics

    ns = sys.modules["__main__"].__dict__
    t = timeit.Timer(stmt, setup, globals=ns)
    number = opts["n"]
    if number <= 0:
        number, _ = t.autorange()
    runs = [x / number for x in t.repeat(repeat=max(1, opts["r"]), number=number)]
    mean = statistics.mean(runs)
    dev = statistics.pstdev(runs) if len(runs) > 1 else 0.0
    print("%s ± %s per loop (mean ± std. dev. of %d runs, %d loops each)" % (_fmt_time(mean), _fmt_time(dev), len(runs), number))
    return None


# ---- running cells ---------------------------------------------------------


def _main_module():
    mod = types.ModuleType("__main__")
    mod.__dict__.update({
        "__builtins__": builtins,
        "display": display,
        "tool": tool,
        "ToolError": ToolError,
        "__tether__": _Magics(),
    })
    sys.modules["__main__"] = mod
    return mod


def _suppressed(code):
    for line in reversed(code.splitlines()):
        s = line.split("#", 1)[0].rstrip()
        if s:
            return s.endswith(";")
    return False


def _error_of(e, filename):
    name = type(e).__name__
    if isinstance(e, SyntaxError) and getattr(e, "filename", None) == filename:
        lines = traceback.format_exception_only(type(e), e)
        return {"name": name, "message": str(e.msg), "traceback": "".join(lines), "line": e.lineno or 0}
    tb = e.__traceback__
    # drop the driver's own frames above the cell
    while tb is not None and not tb.tb_frame.f_code.co_filename.startswith("<cell"):
        tb = tb.tb_next
    line = 0
    t = tb
    while t is not None:
        if t.tb_frame.f_code.co_filename == filename:
            line = t.tb_lineno
        t = t.tb_next
    text = "".join(traceback.format_exception(type(e), e, tb))
    msg = str(e)
    if isinstance(e, KeyboardInterrupt):
        name, msg = "KeyboardInterrupt", "interrupted"
    return {"name": name, "message": msg, "traceback": text, "line": line}


def _run_cell(req, ns):
    cid = req["id"]
    code = req["code"]
    _state.cell_id = cid
    _state.max_image = int(req.get("max_image") or (1 << 20))
    _state.max_text = int(req.get("max_text") or (32 << 10))
    _state.emitted_figures = set()
    filename = "<cell-%d>" % cid
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    error = None
    try:
        try:
            _state.in_cell = True
            tree = compile(code, filename, "exec", ast.PyCF_ONLY_AST)
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = tree.body.pop()
            exec(compile(tree, filename, "exec"), ns)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), filename, "eval"), ns)
                if value is not None and not _suppressed(code):
                    ns["_"] = value
                    data = _bundle(value)
                    with _Critical():
                        _send({"op": "result", "data": data})
            _flush_figures()
        finally:
            _state.in_cell = False
            _state.pending_interrupt = False
    except BaseException as e:  # SystemExit and KeyboardInterrupt included
        error = _error_of(e, filename)
        try:
            _flush_figures()
        except BaseException:
            pass
    return error


def _reader(fin):
    while True:
        hdr = fin.read(4)
        if len(hdr) < 4:
            os._exit(0)  # host is gone: never outlive it
        (n,) = struct.unpack(">I", hdr)
        if n > _MAX_FRAME:
            os._exit(70)
        data = b""
        while len(data) < n:
            chunk = fin.read(n - len(data))
            if not chunk:
                os._exit(0)
            data += chunk
        msg = json.loads(data.decode("utf-8"))
        if msg.get("op") == "reply":
            with _replies_lock:
                slot = _replies.get(msg.get("id"))
            if slot is not None:
                slot["reply"] = msg
                slot["event"].set()
            continue
        _requests.put(msg)


def main():
    global _fout
    fin = os.fdopen(os.dup(0), "rb", buffering=0)
    _fout = os.fdopen(os.dup(1), "wb", buffering=0)
    errfd = os.dup(2)  # the host keeps the tail of this for crash reports
    try:
        import faulthandler

        faulthandler.enable(file=os.fdopen(errfd, "w", closefd=False))
    except Exception:
        pass
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for fd, name in ((1, "stdout"), (2, "stderr")):
        r, w = os.pipe()
        os.dup2(w, fd)
        os.close(w)
        p = _Pump(r, name)
        p.start()
        _pumps.append(p)
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=True, write_through=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=True, write_through=True)
    limit = int(os.environ.pop("TETHER_KERNEL_RLIMIT_AS", "0") or 0)
    if limit > 0:
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except Exception as e:
            sys.stderr.write("tether: could not apply the memory limit: %r\n" % (e,))
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.meta_path.insert(0, _PyplotHook())
    signal.signal(signal.SIGINT, _on_sigint)
    mod = _main_module()
    threading.Thread(target=_reader, args=(fin,), daemon=True, name="tether-reader").start()
    _send({"op": "ready", "python": sys.version.split()[0], "executable": sys.executable, "pid": os.getpid()})
    while True:
        req = _requests.get()
        op = req.get("op")
        if op == "shutdown":
            break
        if op != "exec":
            continue
        try:
            error = _run_cell(req, mod.__dict__)
        except BaseException as e:  # an interrupt that landed in the driver itself
            error = {"name": type(e).__name__, "message": str(e) or "interrupted", "traceback": "", "line": 0}
        _sync_streams()
        _send({"op": "done", "id": req["id"], "error": error})
    _sync_streams()
    sys.stdout.flush()
    os._exit(0)


main()
