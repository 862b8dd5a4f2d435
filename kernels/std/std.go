// Package std assembles tether's standard kernel factory, and is the one
// place that chooses how each language runs: Python as an external
// interpreter over pipes (kernels/python), JavaScript as goja (kernels/js) in
// a child process of its own (kernels/jsproc), so that a kernel's heap cap
// measures that kernel's heap alone.
//
// std imports the kernel packages only: never tools or anything above it.
package std

import "fmt"
import "os"

import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/js"
import "github.com/tetherhq/tether/kernels/jsproc"
import "github.com/tetherhq/tether/kernels/python"

// NewFactory returns a factory for Python and JavaScript kernels with the
// given defaults (idle budget, output bounds, configured python, ...).
//
// Each JavaScript kernel runs in a child process started with jsChild: a
// binary that hands jsproc.Subcommand to jsproc.Main, as tether's own does
// (SelfJSChild). With jsChild nil it runs in this process instead, for a
// program that cannot start itself as the child (a test binary, an
// embedder): its heap cap then measures the whole process's Go heap, so
// another kernel's cell or the run's own work can get a cell stopped.
func NewFactory(defaults kernels.Config, jsChild []string) *kernels.Factory {
	jsKernel := js.New
	if len(jsChild) > 0 {
		jsKernel = jsproc.Constructor(jsChild, nil)
	}
	return kernels.NewFactory(defaults, map[kernels.Language]kernels.Constructor{
		kernels.Python:     python.New,
		kernels.JavaScript: jsKernel,
	})
}

// SelfJSChild returns the command line that starts this program's own
// binary as a JavaScript kernel child: for a program whose main hands
// jsproc.Subcommand to jsproc.Main first thing, as tether's does.
func SelfJSChild() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("kernels: cannot find this program's own binary to run JavaScript kernels in: %w", err)
	}
	return []string{exe, jsproc.Subcommand}, nil
}
