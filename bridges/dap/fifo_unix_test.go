//go:build unix

package dap_test

import "context"
import "errors"
import "path/filepath"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/fsutil"
import "github.com/tetherhq/tether/internal/testenv"

// TestNamedPipeSourceRefused: a named pipe the workspace made with a source
// file's or program's name is refused by breakpoints and launch with an
// error saying it is no regular file, instead of blocking the call for good
// on opening it (reading its lines, telling a native executable, reading a
// test file's tests: each a plain open, which waits for a writer and ignores
// the context and SIGTERM). Whatever the adapter, nothing is started.
func TestNamedPipeSourceRefused(t *testing.T) {
	t.Parallel()
	root := testenv.Workspace(t, map[string]string{"go.mod": "module calc\n\ngo 1.21\n", "calc.go": goCalc})
	for _, name := range []string{"main.go", "calc_test.go", "test_x.py", "prog"} {
		if err := syscall.Mkfifo(filepath.Join(root, name), 0o644); err != nil {
			t.Skipf("no named pipes here: %v", err)
		}
	}
	sv := dap.NewSupervisor(dap.Config{})
	t.Cleanup(func() { sv.Close() })
	for _, req := range []request{
		{Op: "breakpoints", File: "main.go", Lines: []int{1}},
		{Op: "breakpoints", File: "test_x.py", Lines: []int{1}},
		{Op: "launch", Program: "main.go"},
		{Op: "launch", Program: "calc_test.go"},
		{Op: "launch", Program: "calc_test.go", Test: "TestAdd"},
		{Op: "launch", Program: "calc_test.go", Adapter: "delve"},
		{Op: "launch", Program: "test_x.py"},
		{Op: "launch", Program: "test_x.py", Adapter: "debugpy"},
		{Op: "launch", Program: "prog"},
	} {
		testenv.Bounded(t, req.Op+" "+req.File+req.Program, func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			r, err := call(sv, ctx, "c1", root, req)
			if !errors.Is(err, fsutil.ErrNotRegular) {
				t.Errorf("%+v on a named pipe: %v, %v; want an error wrapping fsutil.ErrNotRegular", req, r, err)
			}
		})
	}
	if st, err := sv.Status("c1"); err != nil || st.Session != "" {
		t.Errorf("status after the refusals: %+v, %v; want no session", st, err)
	}
}
