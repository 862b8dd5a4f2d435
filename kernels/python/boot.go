package python

import "encoding/binary"
import "strconv"
import "strings"
import "sync"

// The driver is compiled by the interpreter one top-level definition at a
// time: compiling its whole source in one piece leaves the parser's peak in
// the interpreter's heap for the kernel's life (about 5 MiB of private
// memory of an 11 MiB kernel; in pieces, about 1 MiB), and a host runs a
// kernel per session. The pieces come on stdin, not the command line: an
// interpreter keeps its command line for its whole life, several times
// over (the process's own copy, wide-character copies in its configuration,
// sys.argv and sys.orig_argv), about 1.4 MiB of private memory for the
// driver's 64 KiB. `python -c driverBoot ARGS...` reads one frame from fd 0
// before anything else (driverFrame: a 4-byte big-endian length, then the
// chunks joined by NUL bytes), each chunk "LINE:SOURCE", SOURCE starting at
// line LINE of driver.py (tracebacks of the driver keep their line
// numbers), and runs them in order; the driver then reads its own frames
// from the same fd. A short read means the host went away: exit quietly,
// as the driver does at end of input.
const driverBoot = `import os
def _tether_take(n):
    b = b""
    while len(b) < n:
        c = os.read(0, n - len(b))
        if not c:
            os._exit(0)
        b += c
    return b
_tether_chunks = _tether_take(int.from_bytes(_tether_take(4), "big")).decode("utf-8").split("\0")
del _tether_take
while _tether_chunks:
    _tether_line, _, _tether_src = _tether_chunks.pop(0).partition(":")
    exec(compile("\n" * (int(_tether_line) - 1) + _tether_src, "<string>", "exec"))
`

// driverFrame is what the host writes to a new interpreter's stdin before
// any other frame: driverChunks as driverBoot reads them.
var driverFrame = sync.OnceValue(func() []byte {
	body := strings.Join(driverChunks(), "\x00")
	b := make([]byte, 4, 4+len(body))
	binary.BigEndian.PutUint32(b, uint32(len(body)))
	return append(b, body...)
})

// driverChunks splits driverSource before each top-level def, class or
// decorator line (a decorator stays with what it decorates).
var driverChunks = sync.OnceValue(func() []string {
	return splitTopLevel(driverSource)
})

func splitTopLevel(src string) []string {
	lines := strings.SplitAfter(src, "\n")
	var out []string
	start, prevDecorator := 0, false
	for i, l := range lines {
		top := strings.HasPrefix(l, "def ") || strings.HasPrefix(l, "class ") || strings.HasPrefix(l, "@")
		if top && !prevDecorator && i > start {
			out = append(out, strconv.Itoa(start+1)+":"+strings.Join(lines[start:i], ""))
			start = i
		}
		if strings.TrimSpace(l) != "" {
			prevDecorator = strings.HasPrefix(l, "@")
		}
	}
	if start < len(lines) {
		out = append(out, strconv.Itoa(start+1)+":"+strings.Join(lines[start:], ""))
	}
	return out
}
