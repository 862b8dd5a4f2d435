package main

import "context"
import "flag"
import "fmt"
import "strconv"
import "strings"
import "time"

import "github.com/tetherhq/tether/internal/bytesize"
import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/js"
import "github.com/tetherhq/tether/kernels/python"
import "github.com/tetherhq/tether/kernels/std"
import "github.com/tetherhq/tether/tools"

// sizeFlag is a byte size flag read by bytesize.Parse ("512MiB", "off").
type sizeFlag struct {
	n     int64
	noOff bool // "off" is refused
}

func (f *sizeFlag) String() string { return bytesize.Format(f.n) }

func (f *sizeFlag) Set(s string) error {
	n, err := bytesize.Parse(s)
	if err != nil {
		return err
	}
	if n <= 0 && f.noOff {
		return fmt.Errorf("kernels: the JavaScript heap cap cannot be off or zero: give a size such as %s", bytesize.Format(js.DefaultMemoryLimit))
	}
	if n == 0 {
		n = -1 // a cap of nothing is no cap
	}
	f.n = n
	return nil
}

// countFlag is a count flag that takes "off" for no cap.
type countFlag struct{ n int }

func (f *countFlag) String() string {
	if f.n < 0 {
		return "off"
	}
	return strconv.Itoa(f.n)
}

func (f *countFlag) Set(s string) error {
	if s == "off" {
		f.n = -1
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return fmt.Errorf("%q is not a process count: give a number such as %d, or off", s, python.DefaultProcessLimit)
	}
	f.n = n
	return nil
}

// pythonPath is --python: the interpreter eval runs, and the one pyright
// resolves imports against, where the project has no venv of its own.
var pythonPath string

// The eval family: a kernel factory for Python and JavaScript cells.
func init() {
	var (
		enabled    bool
		idle       time.Duration
		maxTimeout time.Duration
		enclosure  string
		jsMemory   = sizeFlag{n: js.DefaultMemoryLimit, noOff: true}
		pyMemory   = sizeFlag{n: python.DefaultAddressSpaceLimit}
		pyProcs    = countFlag{n: python.DefaultProcessLimit}
		pyZygote   bool
	)
	addWiring(familyWiring{
		name: "eval",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&enabled, "eval", true, "offer eval and notebook_run (persistent Python and JavaScript kernels; exec tier); notebook and notebook_edit stay")
			fs.StringVar(&pythonPath, "python", "", "python interpreter for eval when the workdir has no .venv/bin/python or venv/bin/python (default python3 from PATH); pyright resolves imports against it too")
			fs.StringVar(&enclosure, "enclosure", "", "run the Python kernel inside the conversation's enclosure through this command prefix, split on spaces (e.g. 'docker exec -i -w /work c1'); default: on the host")
			fs.DurationVar(&idle, "eval-idle", kernels.DefaultIdleTimeout, "idle budget of an eval cell: how long it may go without output (time waiting on tool() does not count)")
			fs.DurationVar(&maxTimeout, "eval-max-timeout", tools.DefaultEvalMaxTimeout, "longest timeout an eval call may ask for; a larger one is clamped to it and the result says so")
			fs.Var(&jsMemory, "eval-js-memory", "heap cap of a JavaScript eval cell: the `size` (512MiB, 2GiB) the heap may grow by while it runs before the cell is stopped")
			fs.Var(&pyMemory, "eval-python-memory", "address-space cap (RLIMIT_AS) of the Python eval kernel and what it starts, a `size` (8GiB, 16GiB) or off: an allocation past it is a MemoryError")
			fs.BoolVar(&pyZygote, "eval-python-zygote", true, "fork Python eval kernels from one shared interpreter that loaded the driver once (about half the memory and start of an interpreter each), each child confined as the sandbox's launcher would confine it; false: an interpreter per kernel. Only where the sandbox has namespaces, a filesystem view and Landlock, and without --enclosure")
			fs.Var(&pyProcs, "eval-python-procs", "process cap of the Python eval kernel: the `count` of processes and threads it and what it starts may have at once, or off; a fork past it fails in the cell (EAGAIN). A pids cgroup of its own when tether can make one, else RLIMIT_NPROC above the user's count; the first result says which")
		},
		wire: func(ctx context.Context, cfg *tools.Config, env wireEnv) (func(), error) {
			if enabled {
				if maxTimeout <= 0 {
					return nil, fmt.Errorf("--eval-max-timeout must be a positive duration such as %s (got %s)", tools.DefaultEvalMaxTimeout, maxTimeout)
				}
				// Every command runs JavaScript kernels in children of this
				// binary (main dispatches jsproc.Subcommand), as std chooses.
				jsChild, err := std.SelfJSChild()
				if err != nil {
					return nil, err
				}
				cfg.Eval.Kernels = std.NewFactory(kernels.Config{Python: pythonPath, IdleTimeout: idle, MemoryLimit: jsMemory.n, AddressSpaceLimit: pyMemory.n, ProcessLimit: pyProcs.n, NoZygote: !pyZygote}, jsChild)
				cfg.Eval.MaxTimeout = maxTimeout
				if prefix := strings.Fields(enclosure); len(prefix) > 0 {
					cfg.Eval.Enclosure = func(string) []string { return prefix }
				}
			}
			return nil, nil
		},
	})
}
