//go:build unix

package dap

import "errors"
import "math"
import "path/filepath"
import "syscall"
import "testing"

import "github.com/tetherhq/tether/internal/fsutil"
import "github.com/tetherhq/tether/internal/testenv"

// TestNamedPipeReadsNeverBlock: the dap helpers that open a workspace file
// (counting a source's lines, planning a _test.go file's tests, showing a
// frame's source line, telling a native or Go executable) return at once on
// a named pipe, which a plain open waits on for a writer; the front door
// refuses pipes too, but a pipe can be swapped in after its check, and a
// frame's source is named by the debuggee.
func TestNamedPipeReadsNeverBlock(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "calc_test.go")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	var delve Adapter
	for _, a := range DefaultAdapters() {
		if a.TestRunner == "go" {
			delve = a
		}
	}
	testenv.Bounded(t, "planTests", func() {
		if _, err := planTests(delve, dir, pipe, "", nil); !errors.Is(err, fsutil.ErrNotRegular) {
			t.Errorf("planTests on a named pipe: %v, want an error wrapping fsutil.ErrNotRegular", err)
		}
	})
	ws, err := fsutil.NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	testenv.Bounded(t, "fileLines", func() {
		if n := fileLines(ws, pipe); n != math.MaxInt {
			t.Errorf("fileLines on a named pipe = %d, want MaxInt (unknown)", n)
		}
	})
	testenv.Bounded(t, "sourceLine", func() {
		if l, _ := (&session{ws: ws}).sourceLine(pipe, 1); l != "" {
			t.Errorf("sourceLine on a named pipe = %q, want \"\"", l)
		}
	})
	testenv.Bounded(t, "isNative", func() {
		if isNative(pipe) || isGoBinary(pipe) {
			t.Error("a named pipe was taken for an executable")
		}
	})
}
