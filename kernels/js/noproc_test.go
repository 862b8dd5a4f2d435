package js_test

import "os/exec"
import "strings"
import "testing"

import "github.com/tetherhq/tether/kernels"

// TestNoWayToStartProcesses: the JavaScript kernel is goja in tether's own
// process and needs no process cap: a cell has no require, process,
// child_process or other runtime's spawn, and the kernel's package does not
// link os/exec or tether's process starter at all, so nothing it runs can
// fork (its only way out is tool(), through the run's approval gate).
func TestNoWayToStartProcesses(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	if got := value(t, run(t, k, `[typeof require, typeof process, typeof Deno, typeof Bun, typeof importScripts, typeof WebAssembly].join(",")`)); got != `'undefined,undefined,undefined,undefined,undefined,undefined'` {
		t.Errorf("process-starting globals in a cell: %s", got)
	}
	if r := run(t, k, `import("child_process")`); r.Error == nil {
		t.Errorf("a dynamic import of child_process did not fail: %+v", r.Value)
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "os/exec" || strings.HasSuffix(dep, "/internal/proc") {
			t.Errorf("the JavaScript kernel links %s", dep)
		}
	}
}
