package python

import (
	"strconv"
	"strings"
	"sync"
)

// The driver is compiled by the interpreter one top-level definition at a
// time: compiling its whole source in one piece leaves the parser's peak in
// the interpreter's heap for the kernel's life (about 5 MiB of private
// memory of an 11 MiB kernel; in pieces, about 1 MiB), and a host runs a
// kernel per session. `python -c driverBoot CHUNK... driverEnd ARGS...`:
// each CHUNK is "LINE:SOURCE", SOURCE starting at line LINE of driver.py
// (tracebacks of the driver keep their line numbers), and driverBoot takes
// them off sys.argv before running them, so the driver sees only ARGS.
const driverBoot = `import sys
_tether_end = sys.argv.index("` + driverEnd + `")
_tether_chunks = sys.argv[1:_tether_end]
del sys.argv[1:_tether_end + 1]
while _tether_chunks:
    _tether_line, _, _tether_src = _tether_chunks.pop(0).partition(":")
    exec(compile("\n" * (int(_tether_line) - 1) + _tether_src, "<string>", "exec"))
`

// driverEnd ends the driver's chunks on its command line.
const driverEnd = "--tether-driver-end"

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
