package main

import (
	"context"
	"flag"
	"strings"
	"time"

	"github.com/tetherhq/tether/kernels"
	"github.com/tetherhq/tether/kernels/std"
	"github.com/tetherhq/tether/tools"
)

// The eval family: a kernel factory for Python and JavaScript cells.
func init() {
	var (
		enabled   bool
		python    string
		idle      time.Duration
		enclosure string
	)
	addWiring(familyWiring{
		name: "eval",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&enabled, "eval", true, "offer the eval tool (persistent Python and JavaScript kernels; exec tier)")
			fs.StringVar(&python, "python", "", "python interpreter for eval when the workdir has no .venv/bin/python or venv/bin/python (default python3 from PATH)")
			fs.StringVar(&enclosure, "enclosure", "", "run the Python kernel inside the conversation's enclosure through this command prefix, split on spaces (e.g. 'docker exec -i -w /work c1'); default: on the host")
			fs.DurationVar(&idle, "eval-idle", kernels.DefaultIdleTimeout, "idle budget of an eval cell: how long it may go without output (time waiting on tool() does not count)")
		},
		wire: func(ctx context.Context, cfg *tools.Config, env wireEnv) (func(), error) {
			if enabled {
				cfg.Kernels = std.NewFactory(kernels.Config{Python: python, IdleTimeout: idle})
				if prefix := strings.Fields(enclosure); len(prefix) > 0 {
					cfg.Enclosure = func(string) []string { return prefix }
				}
			}
			return nil, nil
		},
	})
}
