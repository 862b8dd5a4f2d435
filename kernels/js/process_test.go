package js_test

import "os"
import "os/exec"
import "testing"

import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/js"
import "github.com/tetherhq/tether/kernels/jsproc"

// envMode chooses the kernel this test binary's suite runs against: unset,
// the in-process one; "process", the same kernel in a child process
// (kernels/jsproc), whose child is this binary again with "child".
const envMode = "TETHER_JS_TEST_KERNEL"

// constructor is the kernel the suite runs against.
var constructor kernels.Constructor = js.New

func TestMain(m *testing.M) {
	switch os.Getenv(envMode) {
	case "child":
		os.Exit(jsproc.Main())
	case "process":
		constructor = jsproc.Constructor([]string{os.Args[0]}, []string{envMode + "=child"})
	}
	os.Exit(m.Run())
}

// TestOutOfProcess runs this package's whole suite again against the
// out-of-process kernel (tether serve --http's): output, timers, the idle
// budget, the heap cap, error wording and the bridge behave the same there.
// The clock tests drive the parent's clock, which the child uses through
// the protocol. The heap figures TestMemoryCapCoversStrings reads are the
// test process's, which the child's cells do not move, so there it checks
// the stop and its wording only.
func TestOutOfProcess(t *testing.T) {
	if os.Getenv(envMode) != "" {
		t.Skip("this is the out-of-process run")
	}
	args := []string{"-test.count=1", "-test.skip=^TestOutOfProcess$"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), envMode+"=process")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the suite against the out-of-process kernel: %v\n%s", err, out)
	}
}
