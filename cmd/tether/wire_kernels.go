package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/tetherhq/tether/kernels"
	"github.com/tetherhq/tether/kernels/js"
	"github.com/tetherhq/tether/kernels/python"
	"github.com/tetherhq/tether/kernels/std"
	"github.com/tetherhq/tether/tools"
)

// sizeFlag is a byte size flag read by kernels.ParseSize ("512MiB", "off").
type sizeFlag struct {
	n     int64
	noOff bool // "off" is refused
}

func (f *sizeFlag) String() string { return kernels.FormatSize(f.n) }

func (f *sizeFlag) Set(s string) error {
	n, err := kernels.ParseSize(s)
	if err != nil {
		return err
	}
	if n <= 0 && f.noOff {
		return fmt.Errorf("kernels: the JavaScript heap cap cannot be off or zero: give a size such as %s", kernels.FormatSize(js.DefaultMemoryLimit))
	}
	if n == 0 {
		n = -1 // a cap of nothing is no cap
	}
	f.n = n
	return nil
}

// The eval family: a kernel factory for Python and JavaScript cells.
func init() {
	var (
		enabled    bool
		pythonPath string
		idle       time.Duration
		enclosure  string
		jsMemory   = sizeFlag{n: js.DefaultMemoryLimit, noOff: true}
		pyMemory   = sizeFlag{n: python.DefaultAddressSpaceLimit}
	)
	addWiring(familyWiring{
		name: "eval",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&enabled, "eval", true, "offer the eval tool (persistent Python and JavaScript kernels; exec tier)")
			fs.StringVar(&pythonPath, "python", "", "python interpreter for eval when the workdir has no .venv/bin/python or venv/bin/python (default python3 from PATH)")
			fs.StringVar(&enclosure, "enclosure", "", "run the Python kernel inside the conversation's enclosure through this command prefix, split on spaces (e.g. 'docker exec -i -w /work c1'); default: on the host")
			fs.DurationVar(&idle, "eval-idle", kernels.DefaultIdleTimeout, "idle budget of an eval cell: how long it may go without output (time waiting on tool() does not count)")
			fs.Var(&jsMemory, "eval-js-memory", "heap cap of a JavaScript eval cell: the `size` (512MiB, 2GiB) the heap may grow by while it runs before the cell is stopped")
			fs.Var(&pyMemory, "eval-python-memory", "address-space cap (RLIMIT_AS) of the Python eval kernel and what it starts, a `size` (8GiB, 16GiB) or off: an allocation past it is a MemoryError")
		},
		wire: func(ctx context.Context, cfg *tools.Config, env wireEnv) (func(), error) {
			if enabled {
				cfg.Kernels = std.NewFactory(kernels.Config{Python: pythonPath, IdleTimeout: idle, MemoryLimit: jsMemory.n, AddressSpaceLimit: pyMemory.n})
				if prefix := strings.Fields(enclosure); len(prefix) > 0 {
					cfg.Enclosure = func(string) []string { return prefix }
				}
			}
			return nil, nil
		},
	})
}
