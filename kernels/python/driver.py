# tether's in-kernel driver for Python: our own small program, embedded in the
# tether binary; a small boot given with `python -c` reads it from stdin in
# top-level pieces and runs them (kernels/python/boot.go).
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
#                 streams {parts: [[name, text], ...]} (in order),
#                 display {data}, result {data}, tool {id, name, args},
#                 done {id, error}.
#
# SIGINT interrupts the running cell (KeyboardInterrupt), never the driver's
# own bookkeeping: the handler raises only while user code runs.

import _ast as ast  # the compiler flags and node classes alone: ast.py costs ~270 KiB
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
import time as _time
import types

_MAX_FRAME = 64 << 20
_DRIVER_FILE = "<string>"  # run as python -c


class _State:
    in_cell = False
    critical = 0
    pending_interrupt = False
    cell_id = 0
    cell_file = "<cell>"
    max_image = 1 << 20
    max_text = 32 << 10
    emitted_figures = set()
    captured = None  # a list while %%capture collects displays
    oldpwd = None  # for %cd -
    fd_capture = False  # %%capture points fds 1 and 2 at files
    forked = False  # in a forked child, which writes to the fds itself
    history = []  # the cells as written, for %history
    last_tb = ""  # the last failed cell's traceback, for %tb
    autoreload = False
    mtimes = {}


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

    The pipes carry what reaches fds 1 and 2 directly: child processes,
    os.write, C code. The pipe's read end is non-blocking. The thread waits
    for data with poll (consuming nothing), then, under _olock, sends the text
    sys.stdout/sys.stderr hold back (written before this data) and forwards
    the pipe's contents.
    """

    def __init__(self, fd, name):
        super().__init__(daemon=True, name="tether-pump-" + name)
        self.fd = fd
        self.stream = name
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
            with _olock:
                _send_held()
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
_raws = []
_outs = []
# _olock orders everything that becomes a stream frame: text from
# sys.stdout/sys.stderr and what the pumps read from the pipes.
_olock = threading.Lock()
# _held is text sys.stdout/sys.stderr wrote and the host has not had yet: a
# list of [raw, bytearray], consecutive writes to one stream merged.
_held = []
_held_bytes = [0]
_last_send = [0.0]
_HOLD_MAX = 16384
_HOLD_SECONDS = 0.05
_monotonic = _time.monotonic


_FRAME_TEXT = 1 << 20  # text per stream frame, far below the frame limit


def _send_held():
    """Sends the held text, in order, in as few frames as fit (under _olock)."""
    if not _held:
        return
    parts = []
    for raw, b in _held:
        for i in range(0, len(b), _FRAME_TEXT):
            text = raw.dec.decode(bytes(b[i : i + _FRAME_TEXT]))
            if text:
                parts.append([raw.name, text])
    del _held[:]
    _held_bytes[0] = 0
    _last_send[0] = _monotonic()
    batch, size = [], 0
    for p in parts + [None]:
        if batch and (p is None or size + len(p[1]) > _FRAME_TEXT):
            if len(batch) == 1:
                _send({"op": "stream", "name": batch[0][0], "text": batch[0][1]})
            else:
                _send({"op": "streams", "parts": batch})
            batch, size = [], 0
        if p is not None:
            batch.append(p)
            size += len(p[1])


class _OrderedRaw(io.RawIOBase):
    """fd 1 or 2 as sys.stdout/sys.stderr write it, in order with each other
    and with what reaches the fds directly.

    Text does not go through the pipe: the pipes are read by other threads,
    and ordering one pipe's text against the other's cost a thread switch or
    two per line. It is held and sent in batches, stdout and stderr in the
    order written, in one frame: when a line ends and nothing was sent for a
    moment, when a batch is big, on flush, when a pump has pipe text to
    forward (held text goes first), and on the ticker's beat. Before text is
    held, what waits in the pipes (written before it) is forwarded, so held
    text always predates pipe text. In a forked child, and while %%capture
    points the fds elsewhere, text is written to the fd itself.
    """

    def __init__(self, fd, name):
        super().__init__()
        self.fd = fd
        self.name = name
        self.dec = codecs.getincrementaldecoder("utf-8")(errors="replace")
        import select

        poller = select.poll()  # our own: a poll object is not shared between threads
        for p in _pumps:
            poller.register(p.fd, select.POLLIN)
        self.poll = poller.poll
        st = os.fstat(fd)
        self.pipe = (st.st_dev, st.st_ino)  # the capture pipe fd points at

    def writable(self):
        return True

    def fileno(self):
        return self.fd

    def write(self, b):
        st = _state
        if not isinstance(b, (bytes, bytearray)):
            b = bytes(b)
        n = len(b)
        if st.fd_capture or st.forked or self.redirected():
            view = memoryview(b)
            done = 0
            while done < n:  # a signal may cut the write short: finish it
                done += os.write(self.fd, view[done:])
            return n
        main = threading.get_ident() == _main_thread
        if main:
            st.critical += 1  # as _Critical, inline: this runs for every line
        try:
            with _olock:
                if self.poll(0):  # pipe text, newer than what is held
                    _send_held()
                    for p in _pumps:
                        p.drain()
                if _held and _held[-1][0] is self:
                    _held[-1][1] += b
                else:
                    _held.append([self, bytearray(b)])
                _held_bytes[0] += n
                if _held_bytes[0] >= _HOLD_MAX or (b"\n" in b and _monotonic() - _last_send[0] >= _HOLD_SECONDS):
                    _send_held()
                elif not _wake.is_set():
                    _wake.set()
        finally:
            if main:
                st.critical -= 1
                if st.critical == 0 and st.pending_interrupt and st.in_cell:
                    st.pending_interrupt = False
                    raise KeyboardInterrupt
        return n

    def redirected(self):
        """Whether the cell pointed the fd elsewhere (os.dup2 onto a file, as
        fd-capturing libraries do): then text goes where the fd points."""
        try:
            st = os.fstat(self.fd)
        except OSError:
            return True
        return (st.st_dev, st.st_ino) != self.pipe

    def flush(self):
        # Only a flush asked of sys.stdout/sys.stderr sends (_Out.flush); the
        # one line buffering does after each line leaves the batch be.
        if not _explicit[0] or not _held or _state.fd_capture or _state.forked:
            return
        if threading.get_ident() != _main_thread:
            with _olock:
                _send_held()
            return
        with _Critical():
            with _olock:
                _send_held()


_main_thread = threading.get_ident()
_last_out = [None]
_explicit = [False]


class _Out(io.TextIOWrapper):
    """sys.stdout or sys.stderr: line-buffered text over an _OrderedRaw.

    A line reaches the raw stream in one write. When writes switch between
    stdout and stderr, the other stream's unfinished line goes first, so the
    two keep the order they were written in.
    """

    def write(self, s):
        prev = _last_out[0]
        if prev is not self:
            _last_out[0] = self
            if prev is not None:
                try:
                    io.TextIOWrapper.flush(prev)  # to its raw stream, not sent yet
                except Exception:
                    pass
        if not _wake.is_set():
            _wake.set()  # an unfinished line may stay in the buffer
        return super().write(s)

    def flush(self):
        _explicit[0] = True
        try:
            super().flush()
        finally:
            _explicit[0] = False


# _wake is set when text may be waiting (a write to sys.stdout or
# sys.stderr, or held text): the ticker sleeps on it, so an idle kernel does
# not wake at all.
_wake = threading.Event()


def _tick():
    """Sends held text a short while after it was written."""
    while True:
        _wake.wait()
        _time.sleep(_HOLD_SECONDS)
        if _state.forked:
            return
        # Cleared before the flush: what is written from here on sets it
        # again (and is sent by this flush or the next beat).
        _wake.clear()
        for w in _outs:  # an unfinished line, then what is held
            try:
                w.flush()
            except Exception:
                pass


def _after_fork_in_child():
    global _olock
    _state.forked = True
    _olock = threading.Lock()  # its holder may be a thread the child does not have
    del _held[:]  # the parent sends them
    _held_bytes[0] = 0


def _sync_streams():
    """Forwards everything written to fds 1 and 2 so far."""
    for f in _outs + [f for f in (sys.stdout, sys.stderr) if f not in _outs]:
        try:
            f.flush()
        except Exception:
            pass
    if _state.forked:
        return
    with _olock:
        _send_held()
        for p in _pumps:
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


def _is_dataframe(obj):
    t = type(obj)
    return t.__module__.startswith("pandas") and t.__name__ == "DataFrame" and hasattr(obj, "iloc")


def _md_cell(v, width):
    s = str(v).replace("\r", " ").replace("\n", " ").replace("|", "\\|")
    if width and len(s) > width:
        s = s[: max(width - 1, 1)] + "\u2026"
    return s


def _frame_markdown(df):
    """A data frame as a markdown table, under a line giving its shape and
    saying which rows and columns were left out (pandas' display options
    decide how many are shown, as they do for its own repr)."""
    import pandas as pd

    def opt(name, default):
        try:
            v = pd.get_option(name)
        except Exception:
            return default
        return default if v is None or v <= 0 else v

    max_rows, min_rows = opt("display.max_rows", 60), opt("display.min_rows", 10)
    max_cols, width = opt("display.max_columns", 20), opt("display.max_colwidth", 50)
    nrows, ncols = df.shape
    rows, cols = list(range(nrows)), list(range(ncols))
    row_gap = col_gap = None
    if nrows > max_rows:
        h = max(min(min_rows, max_rows) // 2, 1)
        rows, row_gap = list(range(h)) + list(range(nrows - h, nrows)), h
    if ncols > max_cols:
        h = max(max_cols // 2, 1)
        cols, col_gap = list(range(h)) + list(range(ncols - h, ncols)), h

    def name(v):
        if isinstance(v, tuple):
            return " / ".join(str(x) for x in v)
        return str(v)

    index_name = " / ".join("" if n is None else str(n) for n in df.index.names) if any(n is not None for n in df.index.names) else ""
    head = [_md_cell(index_name, width)]
    for j, c in enumerate(cols):
        if col_gap is not None and j == col_gap:
            head.append("\u2026")
        head.append(_md_cell(name(df.columns[c]), width))
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for i, r in enumerate(rows):
        if row_gap is not None and i == row_gap:
            out.append("| " + " | ".join(["\u2026"] * len(head)) + " |")
        line = [_md_cell(name(df.index[r]), width)]
        for j, c in enumerate(cols):
            if col_gap is not None and j == col_gap:
                line.append("\u2026")
            line.append(_md_cell(df.iat[r, c], width))
        out.append("| " + " | ".join(line) + " |")
    shape = "DataFrame: %d row%s x %d column%s" % (nrows, "" if nrows == 1 else "s", ncols, "" if ncols == 1 else "s")
    left = []
    if row_gap is not None:
        left.append("the first and last %d rows (rows %d-%d left out)" % (row_gap, row_gap + 1, nrows - row_gap))
    if col_gap is not None:
        left.append("the first and last %d columns (columns %d-%d left out)" % (col_gap, col_gap + 1, ncols - col_gap))
    if left:
        shape += "; shown: " + ", ".join(left)
    if nrows == 0 or ncols == 0:
        return shape + "\ncolumns: " + ", ".join(name(c) for c in df.columns) if ncols else shape
    return shape + "\n" + "\n".join(out)


def _label(artist):
    lab = artist.get_label() if hasattr(artist, "get_label") else None
    if not lab or str(lab).startswith("_"):
        return "(no label)"
    return '"%s"' % lab


def _span(values):
    try:
        import numpy as np

        a = np.asarray(values, dtype=float).ravel()
        a = a[np.isfinite(a)]
        if a.size == 0:
            return ""
        return "%g..%g" % (a.min(), a.max())
    except Exception:
        return ""


def _describe_figure(fig):
    """A figure in words, for a reader who cannot see the PNG: its title,
    each axes' title, axis labels and ranges, and each series by kind and
    label with its size."""
    w, h = fig.get_size_inches() * fig.dpi
    axes = fig.get_axes()
    head = "Figure: %dx%d px, %d axes" % (round(w), round(h), len(axes))
    sup = getattr(fig, "_suptitle", None)
    if sup is not None and sup.get_text():
        head += ', title "%s"' % sup.get_text()
    lines = [head]
    for i, ax in enumerate(axes[:20], 1):
        parts = []
        title = " ".join(t for t in (ax.get_title("left"), ax.get_title(), ax.get_title("right")) if t)
        if title:
            parts.append('title "%s"' % title)
        for axis, label, lim in (("x", ax.get_xlabel(), ax.get_xlim()), ("y", ax.get_ylabel(), ax.get_ylim())):
            parts.append('%s "%s" %g..%g' % (axis, label, lim[0], lim[1]) if label else "%s %g..%g" % (axis, lim[0], lim[1]))
        lines.append("axes %d: %s" % (i, "; ".join(parts)))
        series = []
        for ln in ax.get_lines():
            xs, ys = ln.get_xdata(), ln.get_ydata()
            series.append("line %s: %d points, x %s, y %s" % (_label(ln), len(ys), _span(xs), _span(ys)))
        bar_patches = set()
        for c in getattr(ax, "containers", []):
            if type(c).__name__ == "BarContainer":
                patches = list(c.patches)
                bar_patches.update(id(p) for p in patches)
                vals = [p.get_height() if getattr(c, "orientation", "vertical") == "vertical" else p.get_width() for p in patches]
                shown = ", ".join("%g" % v for v in vals[:12]) + (", ..." if len(vals) > 12 else "")
                ticks = [t.get_text() for t in (ax.get_xticklabels() if getattr(c, "orientation", "vertical") == "vertical" else ax.get_yticklabels())]
                cats = ", ".join(t for t in ticks[:12] if t)
                series.append("bars %s: %d bars, values %s%s" % (_label(c), len(vals), shown, (" (ticks: %s)" % cats) if cats else ""))
        for coll in ax.collections:
            kind = type(coll).__name__
            if kind == "PathCollection":
                series.append("scatter %s: %d points, x %s, y %s" % (_label(coll), len(coll.get_offsets()), _span(coll.get_offsets()[:, 0]) if len(coll.get_offsets()) else "", _span(coll.get_offsets()[:, 1]) if len(coll.get_offsets()) else ""))
            else:
                series.append("%s %s" % (kind, _label(coll)))
        for im in ax.images:
            arr = im.get_array()
            series.append("image %s" % ("x".join(str(n) for n in arr.shape[:2]) if arr is not None else ""))
        for p in ax.patches:
            if id(p) not in bar_patches and type(p).__name__ == "Wedge":
                series.append("wedge %s" % _label(p))
        leg = ax.get_legend()
        if leg is not None:
            series.append("legend: " + ", ".join('"%s"' % t.get_text() for t in leg.get_texts()))
        if len(series) > 30:
            series = series[:30] + ["... %d more series" % (len(series) - 30)]
        lines.extend("  " + s for s in series)
    if len(axes) > 20:
        lines.append("... %d more axes" % (len(axes) - 20))
    return "\n".join(lines)


def _bundle(obj):
    import base64  # here: most kernels never show an image

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
        data["text/plain"] = _plain(obj)
    except Exception as e:
        data["text/plain"] = "<%s object; repr failed: %r>" % (type(obj).__name__, e)
    # A data frame reads as a markdown table with its shape; a figure as a
    # description of what it plots (its PNG is for a reader who can see).
    try:
        if _is_dataframe(obj):
            data["text/plain"] = _frame_markdown(obj)
        elif _is_figure(obj):
            data["text/plain"] = _describe_figure(obj)
    except Exception:
        pass
    # A Markdown object reads best as its markdown; an object whose repr says
    # nothing (<IPython.core.display.HTML object>) as its HTML source.
    f = getattr(type(obj), "_repr_markdown_", None)
    if f is not None:
        try:
            md = f(obj)
            if isinstance(md, str) and md:
                data["text/plain"] = md
        except Exception:
            pass
    elif "text/html" in data and _DEFAULT_REPR.match(data["text/plain"]):
        data["text/plain"] = data["text/html"]
    # Bound the texts here, so a huge repr never makes a huge frame; the host
    # cuts again on a rune boundary and says so.
    for key in ("text/plain", "text/html"):
        v = data.get(key)
        if v is not None and len(v) > _state.max_text:
            data[key] = v[: _state.max_text]
            what = "HTML" if key == "text/html" else "text"
            note = (note + "; " if note else "") + "%s cut: %d of %d characters shown" % (what, _state.max_text, len(v))
    if note:
        data["note"] = note
    return data


def display(*objs):
    """Shows each object as rich output (text, HTML table, image)."""
    for obj in objs:
        if _state.captured is not None:
            _state.captured.append(obj)
            continue
        data = _bundle(obj)
        with _Critical():
            _sync_streams()  # what was printed before shows before the display
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


_DEFAULT_REPR = __import__("re").compile(r"^<\S+ object( at 0x[0-9a-f]+)?>$")


def _ipython_display_module(mod):
    """Fills mod as a stand-in for IPython.display where IPython is missing."""

    class _Repr:
        def __init__(self, data=None, url=None, filename=None, **kw):
            if data is None and filename:
                with open(filename, "rb" if self._binary else "r") as f:
                    data = f.read()
            self.data = data

        _binary = False

    class HTML(_Repr):
        def _repr_html_(self):
            return self.data

    class Markdown(_Repr):
        def _repr_markdown_(self):
            return self.data

    class Image(_Repr):
        _binary = True

        def _repr_png_(self):
            return self.data

    class JSON(_Repr):
        def __repr__(self):
            return json.dumps(self.data, indent=2, default=repr)

    class Pretty(_Repr):
        def __repr__(self):
            return str(self.data)

    def clear_output(wait=False):
        pass

    for k, v in {"display": display, "HTML": HTML, "Markdown": Markdown, "Image": Image, "JSON": JSON,
                 "Pretty": Pretty, "clear_output": clear_output}.items():
        setattr(mod, k, v)


class _IPythonDisplayHook:
    """IPython.display in a cell: IPython's own display() outside an IPython
    shell only prints a repr, so ours replaces it; where IPython is not
    installed, a small stand-in module provides display, HTML, Markdown,
    Image, JSON and clear_output."""

    def find_spec(self, name, path, target=None):
        if name not in ("IPython", "IPython.display", "IPython.core.display_functions"):
            return None
        import importlib.machinery
        import importlib.util

        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            if name == "IPython":
                return spec
            return _set_after_load(spec, "display", display)
        if spec is not None or name == "IPython.core.display_functions":
            return spec

        class _Loader:
            def create_module(self, spec):
                return None

            def exec_module(self, module):
                if module.__name__ == "IPython":
                    module.__path__ = []  # a package: IPython.display is found by the hook
                else:
                    _ipython_display_module(module)

        return importlib.util.spec_from_loader(name, _Loader(), is_package=(name == "IPython"))


class _PyplotHook:
    """Replaces pyplot.show with ours as soon as pyplot is imported."""

    def find_spec(self, name, path, target=None):
        if name != "matplotlib.pyplot":
            return None
        import importlib.machinery

        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        return _set_after_load(spec, "show", _show)


def _set_after_load(spec, attr, value):
    """Makes spec's loader set the module's attr to value once the module
    has run, and returns spec."""
    orig = spec.loader.exec_module

    def exec_module(module):
        orig(module)
        setattr(module, attr, value)

    spec.loader.exec_module = exec_module
    return spec


# ---- the bridge ----------------------------------------------------------


class ToolError(Exception):
    """A tool called from a cell failed or was refused."""


class ToolResult(str):
    """The text of a tool's result (a str); .structured holds its structured
    output (dicts and lists, None when the tool has none); .text is the text
    as a plain str."""

    structured = None

    @property
    def text(self):
        return str.__str__(self)


def tool(name, args=None, **kwargs):
    """Calls one of the run's tools, as the model would, under the same approvals.

    r = tool("read", {"path": "a.py"}) or tool("read", path="a.py").
    r is the tool's text, a str; r.structured is its structured output as
    plain dicts and lists (None when the tool has none), for example
    tool("ast_grep", {"pattern": "print($A)"}).structured["matches"];
    r.text is the text as a plain str. A failed or refused call raises
    ToolError with the tool's message.
    """
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


_NAME = __import__("re").compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _expand(s, depth=2):
    """Expands {expr} and $name in a shell line from the calling cell's
    variables, as IPython does: a name the cell does not define is left to the
    shell ($HOME), $$ is a literal $."""
    if "{" not in s and "$" not in s:
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
        if c == "$":
            if s[i + 1:i + 2] == "$":
                out.append("$")
                i += 2
                continue
            m = _NAME.match(s, i + 1)
            if m and (m.group(0) in l or m.group(0) in g):
                name = m.group(0)
                out.append(str(l[name] if name in l else g[name]))
                i = m.end()
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


def _externally_managed():
    """Whether this interpreter refuses pip installs (PEP 668): not a venv, and
    its stdlib directory holds an EXTERNALLY-MANAGED marker."""
    import sysconfig

    if sys.prefix != sys.base_prefix:
        return False
    return os.path.isfile(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED"))


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
        return SList(r.stdout.splitlines())

    def magic(self, name, args):
        args = _expand(args)
        return getattr(self, "m_" + name)(args)

    def cell(self, name, args, body, line=0):
        args = _expand(args)
        f = getattr(self, "c_" + name)
        if line:
            return f(args, body, line)
        return f(args, body)

    def pinfo(self, name, detail):
        """obj? and obj??: what the object is, its signature and docstring."""
        return _pinfo(name, detail, sys._getframe(1))

    def m_cd(self, args):
        path = os.path.expanduser(args.strip().strip("'\"") or "~")
        if path == "-":
            if _state.oldpwd is None:
                raise ValueError("%cd -: no previous directory yet")
            path = _state.oldpwd
        here = os.getcwd()
        os.chdir(path)
        _state.oldpwd = here
        print(os.getcwd())

    def m_pinfo(self, args):
        return _pinfo(args.strip(), 1, sys._getframe(2))

    def m_pinfo2(self, args):
        return _pinfo(args.strip(), 2, sys._getframe(2))

    def m_prun(self, args):
        return _profiled(args, "<prun>", 0)

    def c_prun(self, args, body, line=0):
        return _profiled(body, _state.cell_file, line)

    def c_markdown(self, args, body):
        display(_Markdown(body))

    c_md = c_markdown

    def c_perl(self, args, body):
        return self.c_script("perl " + args, body)

    def c_ruby(self, args, body):
        return self.c_script("ruby " + args, body)

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
            msg = "pip exited with status %d; see its output above" % r.returncode
            if argv[:1] == ["install"] and _externally_managed() and "--break-system-packages" not in argv:
                msg += (
                    "; %s is externally managed (PEP 668), so pip will not install into it: create a virtual"
                    " environment in the working directory (!%s -m venv --system-site-packages .venv keeps the"
                    " packages this python has), then run the next cell with reset: true: the kernel runs"
                    " .venv/bin/python" % (sys.executable, sys.executable)
                )
            raise RuntimeError(msg)
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
            raise _script_error(r.returncode, "bash", body)

    c_sh = c_bash

    def c_file(self, args, body):
        return self.c_writefile(args, body)

    def c_script(self, args, body):
        import shlex
        import subprocess

        argv = shlex.split(args)
        if not argv:
            raise ValueError("%%script needs a program, e.g. %%script bash")
        r = subprocess.run(argv, input=body, text=True)
        if r.returncode != 0:
            raise _script_error(r.returncode, argv[0], body)

    def c_python3(self, args, body):
        return self.c_script(sys.executable + " " + args, body)

    c_python = c_python3

    def m_time(self, args):
        return _timed(args, "<time>", 0)

    def c_time(self, args, body, line=0):
        return _timed(body, _state.cell_file, line)

    def m_env(self, args):
        args = args.strip()
        if not args:
            return dict(os.environ)
        if "=" in args or " " in args:
            sep = "=" if "=" in args and (" " not in args or args.index("=") < args.index(" ")) else " "
            k, v = args.split(sep, 1)
            k, v = k.strip(), v.strip()
            os.environ[k] = v
            print("env: %s=%s" % (k, v))
            return None
        if args not in os.environ:
            raise KeyError("environment variable %s is not set" % args)
        return os.environ[args]

    def m_set_env(self, args):
        return self.m_env(args)

    def m_matplotlib(self, args):
        # Figures come back as images whatever the backend name; the kernel
        # renders with Agg. Nothing to switch.
        return None

    def m_config(self, args):
        if args.strip().startswith("InlineBackend."):
            return None  # inline figure settings: figures come back as PNG anyway
        raise ValueError("%%config %s: only InlineBackend settings are accepted (and have no effect here)" % args)

    def m_load_ext(self, args):
        for name in args.split():
            if name == "autoreload":
                continue  # %autoreload is built in
            mod = __import__(name, fromlist=["_"])
            load = getattr(mod, "load_ipython_extension", None)
            if load is None:
                raise ImportError("%s is not an IPython extension (no load_ipython_extension)" % name)
            raise RuntimeError("%s is an IPython extension and needs IPython; this kernel is not IPython: import %s and use it directly" % (name, name))

    m_reload_ext = m_load_ext

    def m_autoreload(self, args):
        mode = args.strip() or "now"
        if mode in ("0", "off"):
            _state.autoreload = False
        elif mode in ("now",):
            _autoreload(force=True)
        else:
            _state.autoreload = True
            _autoreload(force=False)

    def m_aimport(self, args):
        _state.autoreload = True

    def m_who(self, args):
        names = _user_names()
        print("  ".join(names) if names else "Interactive namespace is empty.")

    def m_whos(self, args):
        ns = sys.modules["__main__"].__dict__
        names = _user_names()
        if not names:
            print("Interactive namespace is empty.")
            return
        rows = [(n, type(ns[n]).__name__, _short(ns[n])) for n in names]
        w1 = max(8, max(len(r[0]) for r in rows))
        w2 = max(4, max(len(r[1]) for r in rows))
        print("%-*s   %-*s   %s" % (w1, "Variable", w2, "Type", "Data/Info"))
        print("-" * (w1 + w2 + 20))
        for r in rows:
            print("%-*s   %-*s   %s" % (w1, r[0], w2, r[1], r[2]))

    def m_history(self, args):
        """%history [-n] [-l N] [RANGES]: the cells run in this kernel, as
        written (RANGES: 4, 2-5; -l N: the last N; -n: with their numbers)."""
        import shlex

        nums, last, picked = False, None, []
        toks = shlex.split(args)
        i = 0
        while i < len(toks):
            t = toks[i]
            if t == "-n":
                nums = True
            elif t == "-l":
                last = 10
                if i + 1 < len(toks) and toks[i + 1].isdigit():
                    last = int(toks[i + 1])
                    i += 1
            elif t.replace("-", "", 1).isdigit() and not t.startswith("-"):
                a, _, b = t.partition("-")
                picked.extend(range(int(a), int(b or a) + 1))
            else:
                raise ValueError("%%history: unsupported argument %r: use -n, -l N, or cell numbers such as 3 or 2-5" % t)
            i += 1
        hist = _state.history
        n = list(range(1, len(hist) + 1))
        if picked:
            n = [k for k in picked if 1 <= k <= len(hist)]
        if last is not None:
            n = n[-last:] if last else []
        width = len(str(n[-1])) if n else 1
        for k in n:
            text = hist[k - 1].expandtabs(4).rstrip()
            if nums:
                print("%s:%s" % (str(k).rjust(width), "\n" if "\n" in text else " "), end="")
            print(text)

    def m_hist(self, args):
        return self.m_history(args)

    def m_tb(self, args):
        """%tb: the traceback of the last cell that failed."""
        if not _state.last_tb:
            print("No traceback available to show.")
            return
        print(_state.last_tb, file=sys.stderr)

    def m_reset(self, args):
        ns = sys.modules["__main__"].__dict__
        for n in _user_names(all_=True):
            del ns[n]

    def m_run(self, args):
        import runpy
        import shlex

        argv = shlex.split(args)
        if not argv:
            raise ValueError("%run needs a script: %run script.py [args]")
        opts = []
        while argv and argv[0].startswith("-") and argv[0] != "-m":
            opts.append(argv.pop(0))
        ns = sys.modules["__main__"].__dict__
        saved = sys.argv
        try:
            if argv and argv[0] == "-m":
                sys.argv = argv[1:]
                out = runpy.run_module(argv[1], run_name="__main__", alter_sys=False)
            else:
                sys.argv = argv
                out = runpy.run_path(argv[0], run_name="__main__")
        finally:
            sys.argv = saved
        for k, v in out.items():
            if not k.startswith("__"):
                ns[k] = v

    def m_sx(self, args):
        return self.getoutput(args)

    m_system = m_sx

    def c_writefile(self, args, body):
        import shlex

        argv = shlex.split(args)
        append = "-a" in argv or "--append" in argv
        paths = [a for a in argv if a not in ("-a", "--append")]
        if len(paths) != 1:
            raise ValueError("%%writefile needs one file name: %%writefile [-a] path")
        path = os.path.expanduser(paths[0])
        exists = os.path.exists(path)
        if append:
            print("Appending to %s" % path)
        else:
            print("%s %s" % ("Overwriting" if exists else "Writing", path))
        if not body.endswith("\n"):
            body += "\n"
        with open(path, "a" if append else "w", encoding="utf-8") as f:
            f.write(body)

    def c_html(self, args, body):
        display(_HTML(body))

    def c_capture(self, args, body, line=0):
        opts = args.split()
        names = [a for a in opts if not a.startswith("-")]
        cap = _Captured()
        import tempfile

        _sync_streams()
        saved = []
        files = {}
        for fd, name in ((1, "stdout"), (2, "stderr")):
            if "--no-" + name in opts:
                continue
            f = tempfile.TemporaryFile()
            saved.append((fd, os.dup(fd)))
            os.dup2(f.fileno(), fd)
            files[name] = f
        prev = _state.captured
        if "--no-display" not in opts:
            _state.captured = cap.outputs
        prev_fd = _state.fd_capture
        _state.fd_capture = True
        try:
            _run_body(body, _state.cell_file, line)
        finally:
            for st in (sys.stdout, sys.stderr):
                try:
                    st.flush()
                except Exception:
                    pass
            _state.fd_capture = prev_fd
            for fd, old in saved:
                os.dup2(old, fd)
                os.close(old)
            _state.captured = prev
            for name, f in files.items():
                f.seek(0)
                setattr(cap, name, f.read().decode("utf-8", "replace"))
                f.close()
        if names:
            sys.modules["__main__"].__dict__[names[0]] = cap


class SList(list):
    """The lines of x = !cmd, as IPython's SList: .s, .n, .l, .p, .grep()."""

    @property
    def s(self):
        return " ".join(self)

    @property
    def n(self):
        return "\n".join(self)

    @property
    def l(self):  # noqa: E743 (IPython's name)
        return list(self)

    @property
    def p(self):
        import pathlib

        return [pathlib.Path(x) for x in self if os.path.exists(x)]

    def grep(self, pattern, prune=False):
        import re

        rx = re.compile(pattern) if isinstance(pattern, str) else None
        keep = (lambda x: bool(rx.search(x))) if rx else pattern
        return SList([x for x in self if bool(keep(x)) != bool(prune)])

    def fields(self, *idx):
        rows = [x.split() for x in self]
        if not idx:
            return SList(" ".join(r) for r in rows)
        return SList(" ".join(r[i] for i in idx if -len(r) <= i < len(r)) for r in rows)


class _HTML:
    def __init__(self, html):
        self.html = html

    def _repr_html_(self):
        return self.html

    def __repr__(self):
        return self.html


class _Markdown:
    def __init__(self, text):
        self.text = text

    def _repr_markdown_(self):
        return self.text

    def __repr__(self):
        return self.text


def _profiled(src, filename, line):
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    try:
        _run_body(src, filename, line)  # as IPython's %prun: stats, no value
    finally:
        prof.disable()
        st = pstats.Stats(prof, stream=sys.stdout)
        st.sort_stats("tottime").print_stats(25)


class _Captured:
    """What %%capture caught: .stdout, .stderr, .outputs; show() replays them."""

    def __init__(self):
        self.stdout = ""
        self.stderr = ""
        self.outputs = []

    def show(self):
        sys.stdout.write(self.stdout)
        sys.stderr.write(self.stderr)
        for o in self.outputs:
            display(o)

    __call__ = show

    def __repr__(self):
        return "<CapturedIO: %d bytes of stdout, %d of stderr, %d outputs>" % (len(self.stdout), len(self.stderr), len(self.outputs))


_INJECTED = ("display", "tool", "ToolError", "__tether__", "input", "In", "Out", "exit", "quit", "get_ipython")


def _user_names(all_=False):
    ns = sys.modules["__main__"].__dict__
    out = []
    for n, v in ns.items():
        if n.startswith("_") or n in _INJECTED:
            continue
        if not all_ and isinstance(v, types.ModuleType):
            continue
        out.append(n)
    return sorted(out)


def _script_error(status, program, body):
    """The error of a failed %%bash or %%script cell: a CalledProcessError,
    as IPython raises, that says which program failed with what status."""
    import subprocess

    class ScriptError(subprocess.CalledProcessError):
        def __str__(self):
            return "%s exited with status %d" % (program, self.returncode)

    ScriptError.__name__ = ScriptError.__qualname__ = "CalledProcessError"
    ScriptError.__module__ = "subprocess"
    return ScriptError(status, body)


_CONTAINERS = (list, tuple, dict, set, frozenset)


def _plain(obj):
    """The text an echo shows: repr, except that a built-in container too
    wide for 79 columns is laid out one item a line, as IPython prints it."""
    r = repr(obj)
    if type(obj) in _CONTAINERS and (len(r) > 79 or "\n" in r) and len(r) < (1 << 20):
        try:
            return _pretty().pformat(obj)
        except Exception:
            return r
    return r


def _pretty():
    """A pprint printer that, like IPython's, never splits a long string or
    bytes value into implicitly concatenated pieces."""
    import pprint

    class Pretty(pprint.PrettyPrinter):
        _dispatch = {k: v for k, v in getattr(pprint.PrettyPrinter, "_dispatch", {}).items()
                     if k not in (str.__repr__, bytes.__repr__, bytearray.__repr__)}

    return Pretty(width=79, sort_dicts=False)


def _short(v):
    try:
        r = repr(v)
    except Exception:
        return "<repr failed>"
    r = " ".join(r.split())
    return r if len(r) <= 60 else r[:57] + "..."


# Top-level await, as IPython allows it: a cell whose code awaits compiles to
# a coroutine, run to completion on the kernel's own event loop.
_AWAIT = getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)
# inspect.CO_COROUTINE: importing inspect (with dis and opcode) for this one
# flag would cost every kernel about 200 KiB.
_CO_COROUTINE = 0x80
_loop = [None]


def _run_code(co, ns):
    if not co.co_flags & _CO_COROUTINE:
        return eval(co, ns)
    import asyncio

    if _loop[0] is None or _loop[0].is_closed():
        _loop[0] = asyncio.new_event_loop()
    return _loop[0].run_until_complete(eval(co, ns))


def _run_body(body, filename, line):
    """Runs Python source as part of the cell (line: the cell line it starts
    on, so errors point there); returns the last expression's value."""
    ns = sys.modules["__main__"].__dict__
    tree = compile("\n" * line + body, filename, "exec", ast.PyCF_ONLY_AST | _AWAIT)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body.pop()
    _run_code(compile(tree, filename, "exec", _AWAIT), ns)
    if last is not None:
        return _run_code(compile(ast.Expression(last.value), filename, "eval", _AWAIT), ns)
    return None


def _cpu():
    try:
        import resource

        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime, r.ru_stime
    except Exception:
        t = os.times()
        return t.user, t.system


def _timed(src, filename, line):
    import time

    (u0, s0), w0 = _cpu(), time.perf_counter()
    try:
        return _run_body(src, filename, line)
    finally:
        (u1, s1), w1 = _cpu(), time.perf_counter()
        u, s_ = u1 - u0, s1 - s0
        print("CPU times: user %s, sys: %s, total: %s" % (_fmt_time(u), _fmt_time(s_), _fmt_time(u + s_)))
        print("Wall time: %s" % _fmt_time(w1 - w0))


def _pinfo(name, detail, frame):
    import inspect

    try:
        obj = eval(name, frame.f_globals, frame.f_locals)
    except Exception:
        print("Object `%s` not found." % name)
        return None
    lines = []
    try:
        lines.append("Signature: %s%s" % (name, inspect.signature(obj)))
    except (TypeError, ValueError):
        pass
    if not callable(obj) or isinstance(obj, (int, float, str, bytes, list, dict, tuple, set)):
        lines.append("Value:     %s" % _short(obj))
    doc = inspect.getdoc(obj)
    if doc and (detail < 2 or not _source_of(obj)):
        lines.append("Docstring:\n" + doc if "\n" in doc else "Docstring: " + doc)
    f = None
    try:
        f = inspect.getsourcefile(obj) or inspect.getfile(obj)
    except TypeError:
        pass
    if f:
        lines.append("File:      %s" % f)
    if detail >= 2:
        src = _source_of(obj)
        if src:
            lines.append("Source:\n" + src.rstrip("\n"))
    lines.append("Type:      %s" % type(obj).__name__)
    print("\n".join(lines))
    return None


def _source_of(obj):
    import inspect

    try:
        return inspect.getsource(obj)
    except Exception:
        return ""


def _autoreload(force):
    """Reloads modules whose source file changed since they were loaded
    (%autoreload), the ones outside the standard library and site-packages."""
    import importlib
    import sysconfig

    skip = tuple(p for p in {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")} if p)
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None)
        if not f or name == "__main__" or f.startswith(skip) or "-packages" in f or not f.endswith(".py"):
            continue
        try:
            mtime = os.stat(f).st_mtime
        except OSError:
            continue
        seen = _state.mtimes.get(name)
        _state.mtimes[name] = mtime
        if force or (seen is not None and mtime != seen):
            try:
                importlib.reload(mod)
            except Exception as e:
                sys.stderr.write("[autoreload of %s failed: %s: %s]\n" % (name, type(e).__name__, e))
                continue
            _state.mtimes[name] = os.stat(f).st_mtime


_magics = _Magics()


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
    opts = {"n": 0, "r": 7, "q": False, "o": False}
    rest = []
    i = 0
    while i < len(words):
        w = words[i]
        if w in ("-n", "-r") and i + 1 < len(words):
            opts[w[1]] = int(words[i + 1])
            i += 2
            continue
        if w in ("-q", "-o", "-qo", "-oq"):
            for c in w[1:]:
                opts[c] = True
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
    all_runs = t.repeat(repeat=max(1, opts["r"]), number=number)
    result = _TimeitResult(number, all_runs)
    if not opts["q"]:
        print(result.summary())
    return result if opts["o"] else None


class _TimeitResult:
    """What %timeit -o returns, with the attributes of IPython's TimeitResult."""

    def __init__(self, loops, all_runs):
        import statistics

        self.loops = loops
        self.repeat = len(all_runs)
        self.all_runs = list(all_runs)
        self.timings = [x / loops for x in all_runs]
        self.best = min(self.timings)
        self.worst = max(self.timings)
        self.average = statistics.mean(self.timings)
        self.stdev = statistics.pstdev(self.timings) if len(self.timings) > 1 else 0.0
        self.compile_time = 0.0

    def summary(self):
        return "%s ± %s per loop (mean ± std. dev. of %d runs, %d loops each)" % (
            _fmt_time(self.average), _fmt_time(self.stdev), self.repeat, self.loops)

    def __repr__(self):
        return "<TimeitResult : %s>" % self.summary()


# ---- running cells ---------------------------------------------------------


def _input(prompt=""):
    """input() in a cell: there is no terminal to read from."""
    if prompt:
        sys.stdout.write(str(prompt))
        sys.stdout.flush()
    raise EOFError("input() has nothing to read: a cell runs without a terminal. Put the value in the code, "
                   "or ask the user with tool('ask_user', {'question': ...})")


class _Shell:
    """get_ipython() for code converted from notebooks (nbconvert writes
    get_ipython().run_line_magic('matplotlib', 'inline')): the idioms this
    kernel supports, called the way IPython's shell is."""

    def _known(self, kind, name):
        if not hasattr(_Magics, kind + name):
            raise ValueError("get_ipython(): %s%s is not an idiom this kernel supports; %%lsmagic lists them" % ("%" if kind == "m_" else "%%", name))

    def run_line_magic(self, name, line, _stack_depth=1):
        self._known("m_", name)
        return getattr(_magics, "m_" + name)(_expand(line))

    def magic(self, line):
        name, _, rest = line.lstrip("%").partition(" ")
        return self.run_line_magic(name, rest)

    def run_cell_magic(self, name, line, cell):
        self._known("c_", name)
        return _magics.cell(name, _expand(line), cell)

    def system(self, cmd):
        return _magics.system(_expand(cmd))

    def getoutput(self, cmd):
        return _magics.getoutput(_expand(cmd))

    @property
    def user_ns(self):
        return sys.modules["__main__"].__dict__


_shell = _Shell()


def _main_module():
    mod = types.ModuleType("__main__")
    mod.__dict__.update({
        "__builtins__": builtins,
        "display": display,
        "tool": tool,
        "ToolError": ToolError,
        "__tether__": _magics,
        "input": _input,
        "get_ipython": lambda: _shell,
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
    import traceback  # here: a kernel whose cells all succeed never needs it

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
    te = traceback.TracebackException(type(e), e, tb)
    # The driver's own frames (an IPython idiom's helper) say nothing about
    # the cell: leave them out.
    te.stack = traceback.StackSummary.from_list([f for f in te.stack if f.filename != _DRIVER_FILE])
    text = "".join(te.format())
    msg = str(e)
    if isinstance(e, KeyboardInterrupt):
        name, msg = "KeyboardInterrupt", "interrupted"
    if isinstance(e, ModuleNotFoundError) and e.name:
        top = e.name.split(".")[0]
        if top not in sys.builtin_module_names:
            msg += " in this kernel's python (%s): %%pip install %s, or give tether an interpreter that has it (--python, or a .venv in the working directory)" % (
                sys.executable,
                _PIP_NAMES.get(top, top),
            )
    return {"name": name, "message": msg, "traceback": text, "line": line}


# Modules whose distribution on PyPI is named otherwise.
_PIP_NAMES = {"sklearn": "scikit-learn", "cv2": "opencv-python", "PIL": "pillow", "yaml": "pyyaml", "bs4": "beautifulsoup4", "dateutil": "python-dateutil"}


def _run_cell(req, ns):
    cid = req["id"]
    code = req.get("code") or ""
    _state.cell_id = cid
    _state.max_image = int(req.get("max_image") or (1 << 20))
    _state.max_text = int(req.get("max_text") or (32 << 10))
    _state.emitted_figures = set()
    _last_send[0] = 0.0  # a cell's first line goes out at once
    filename = "<cell-%d>" % cid
    _state.cell_file = filename
    _state.history.append(req.get("source") or code)
    if getattr(sys.stdin, "closed", True):
        # exit() and quit() close sys.stdin before raising SystemExit; later
        # cells (help(), input()) still need one.
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
    source = req.get("source") or code
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    if _state.autoreload:
        _autoreload(force=False)
    error = None
    # between = the line of the statement the driver is about to run between
    # the cell's body and its last expression: an interrupt landing in that
    # gap has no frame of the cell, and belongs to that line.
    between = 0
    try:
        try:
            _state.in_cell = True
            tree = compile(code, filename, "exec", ast.PyCF_ONLY_AST | _AWAIT)
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = tree.body.pop()
            _run_code(compile(tree, filename, "exec", _AWAIT), ns)
            if last is not None:
                between = last.lineno
                value = _run_code(compile(ast.Expression(last.value), filename, "eval", _AWAIT), ns)
                if value is not None and not _suppressed(code):
                    ns["_"] = value
                    data = _bundle(value)
                    with _Critical():
                        _sync_streams()
                        _send({"op": "result", "data": data})
            _flush_figures()
        finally:
            _state.in_cell = False
            _state.pending_interrupt = False
    except BaseException as e:  # SystemExit and KeyboardInterrupt included
        error = _error_of(e, filename)
        if error and not error.get("line") and between:
            error["line"] = between
        if error and error.get("traceback"):
            _state.last_tb = error["traceback"].rstrip("\n")
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


# How long the kernel waits, idle after a cell, before it trims its heap.
_TRIM_IDLE_SECONDS = 0.5
_malloc_trim = [None]  # glibc's malloc_trim once looked up; False: there is none


def _trim_heap():
    """Gives the C heap's free pages back to the system (glibc's
    malloc_trim(0)), once the kernel has sat idle after a cell: what parsing,
    compiling and running a cell freed otherwise stays in the process, about
    600 KiB of a small kernel. Only when idle, as it walks the whole heap: a
    large fragmented one takes a good part of a second."""
    if _malloc_trim[0] is None:
        try:
            import ctypes

            _malloc_trim[0] = ctypes.CDLL(None).malloc_trim
        except Exception:  # not glibc, or no ctypes: nothing to trim with
            _malloc_trim[0] = False
    if _malloc_trim[0]:
        try:
            _malloc_trim[0](0)
        except Exception:
            _malloc_trim[0] = False


def _cap_nproc(more):
    """Sets RLIMIT_NPROC (soft and hard) to the tasks the user has now plus
    more, when tether could not give the kernel a pids cgroup. The limit
    counts every process and thread of the real user, so it is set above
    what the user already runs. Returns the limit set (0: none) and, when it
    is not enforced or could not be set, why."""
    if more <= 0:
        return 0, ""
    try:
        import resource

        uid = os.getuid()
        tasks = 0
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                if os.stat("/proc/" + d).st_uid == uid:
                    tasks += len(os.listdir("/proc/%s/task" % d))
            except OSError:
                pass
        limit = tasks + more
        _, hard = resource.getrlimit(resource.RLIMIT_NPROC)
        if hard != resource.RLIM_INFINITY and hard < limit:
            limit = hard
        resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
    except Exception as e:
        return 0, "setrlimit(RLIMIT_NPROC) failed: %r" % (e,)
    if os.getuid() == 0:
        return limit, "set to %d but not enforced: the kernel runs as root, which Linux exempts" % limit
    try:
        with open("/proc/self/status") as f:
            eff = next(int(l.split()[1], 16) for l in f if l.startswith("CapEff:"))
        if eff & (1 << 21 | 1 << 24):
            return limit, "set to %d but not enforced: the kernel has CAP_SYS_ADMIN or CAP_SYS_RESOURCE, which Linux exempts" % limit
    except (OSError, StopIteration, ValueError):
        pass
    return limit, ""


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
    _raws.extend((_OrderedRaw(1, "stdout"), _OrderedRaw(2, "stderr")))
    os.register_at_fork(after_in_child=_after_fork_in_child)
    _outs.extend(_Out(r, encoding="utf-8", errors="backslashreplace", line_buffering=True) for r in _raws)
    sys.stdout, sys.stderr = _outs
    threading.Thread(target=_tick, daemon=True, name="tether-tick").start()
    # The address-space cap comes on the command line (it reaches the
    # interpreter through an enclosure's command prefix too); the cell sees
    # sys.argv as plain `python -c` leaves it. Soft and hard limit alike, so
    # the cell cannot raise it again; a lower hard limit already in place
    # stays.
    limit, cap_error, nproc = 0, "", 0
    for a in sys.argv[1:]:
        if a.startswith("--tether-rlimit-as="):
            limit = int(a.split("=", 1)[1])
        elif a.startswith("--tether-rlimit-nproc="):
            nproc = int(a.split("=", 1)[1])
    del sys.argv[1:]
    nproc, nproc_note = _cap_nproc(nproc)
    if limit > 0:
        try:
            import resource

            _, hard = resource.getrlimit(resource.RLIMIT_AS)
            if hard != resource.RLIM_INFINITY and hard < limit:
                limit = hard
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except Exception as e:
            limit, cap_error = 0, "setrlimit(RLIMIT_AS) failed: %r" % (e,)
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.meta_path.insert(0, _PyplotHook())
    sys.meta_path.insert(0, _IPythonDisplayHook())
    signal.signal(signal.SIGINT, _on_sigint)
    mod = _main_module()
    threading.Thread(target=_reader, args=(fin,), daemon=True, name="tether-reader").start()
    _send({"op": "ready", "python": sys.version.split()[0], "executable": sys.executable, "pid": os.getpid(), "rlimit_as": limit, "cap_error": cap_error,
           "rlimit_nproc": nproc, "nproc_note": nproc_note})
    trimmed = True
    while True:
        try:
            req = _requests.get(timeout=None if trimmed else _TRIM_IDLE_SECONDS)
        except queue.Empty:
            _trim_heap()
            trimmed = True
            continue
        op = req.get("op")
        if op == "shutdown":
            break
        if op != "exec":
            continue
        trimmed = False
        try:
            error = _run_cell(req, mod.__dict__)
        except BaseException as e:  # an interrupt that landed in the driver itself
            error = {"name": type(e).__name__, "message": str(e) or "interrupted", "traceback": "", "line": 0}
        _sync_streams()
        _send({"op": "done", "id": req["id"], "error": error})
    _sync_streams()
    sys.stdout.flush()
    os._exit(0)


def _zygote():
    """A zygote (python -c boot --tether-zygote): the driver compiled and its
    modules imported once, it forks a kernel per request on the socket at fd
    3 (a JSON request: the child's ForkSpec as "spec" and its command-line
    arguments as "args"; descriptors: the spec's trees, the child's socket
    to tether, then the kernel's frame input, frame output and stderr) and
    answers each with the child's pid. It runs no cell and starts no thread
    (a process must have one thread to enter a user namespace, and a fork
    copies only the calling one). It exits when tether closes the socket."""
    import socket

    import gc

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children reaped by the kernel
    z = socket.socket(fileno=3)
    del sys.argv[1:]
    # What the zygote holds now is every kernel's: out of the collector's
    # sight, so that a collection in a kernel does not write to (and copy)
    # every page of it.
    gc.freeze()
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(z, 1 << 20, 64)
        except InterruptedError:
            continue
        if not msg:
            os._exit(0)
        pid = os.fork() if len(fds) >= 4 else -1
        if pid == 0:
            z.close()
            _forked(json.loads(msg), fds)
        for fd in fds:
            os.close(fd)
        z.sendall(b"%d\n" % pid)


def _forked(req, fds):
    """A child of the zygote: confined (tether_fork_child), the frame channel
    and stderr on fds 0, 1 and 2 as a started kernel has them, then the
    driver's main. A failure to confine is told on the child's socket and
    ends it before anything else runs."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    trees, ctl, io_fds = fds[:-4], fds[-4], fds[-3:]
    try:
        tether_fork_child(req["spec"], trees, ctl, keep=io_fds)
    except BaseException as e:
        try:
            os.write(ctl, ("error %s: %s\n" % (type(e).__name__, e)).encode("utf-8", "backslashreplace"))
        finally:
            os._exit(1)
    for target, fd in enumerate(io_fds):
        os.dup2(fd, target)
        os.close(fd)
    sys.argv[1:] = req.get("args") or []
    main()


if "--tether-zygote" in sys.argv:
    _zygote()
else:
    main()
