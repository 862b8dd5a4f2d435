package main

import (
	"context"
	"flag"
	"time"

	"github.com/tetherhq/tether/bridges/dap"
	"github.com/tetherhq/tether/tools"
)

// The debug family: a debug-session supervisor for the run's conversation.
func init() {
	var (
		enabled bool
		ttl     time.Duration
	)
	addWiring(familyWiring{
		name: "debug",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&enabled, "debug", true, "offer the debug tool (delve, debugpy, lldb-dap sessions; exec tier)")
			fs.DurationVar(&ttl, "debug-ttl", 30*time.Minute, "fixed lifetime of a debug session")
		},
		wire: func(ctx context.Context, cfg *tools.Config, env wireEnv) (func(), error) {
			if !enabled {
				return nil, nil
			}
			sv := dap.NewSupervisor(dap.Config{TTL: ttl})
			cfg.Debug = sv
			return func() { sv.Close() }, nil
		},
	})
}
