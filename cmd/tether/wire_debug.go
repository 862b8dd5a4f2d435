package main

import "context"
import "flag"
import "fmt"
import "os"
import "strings"
import "time"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/tools"

// The debug family: a debug-session supervisor for the run's conversation.
func init() {
	var (
		enabled  bool
		ttl      time.Duration
		adapters string
		procs    = countFlag{n: dap.DefaultProcessLimit}
		memory   = sizeFlag{n: dap.DefaultAddressSpaceLimit}
	)
	addWiring(familyWiring{
		name: "debug",
		flags: func(fs *flag.FlagSet) {
			// The adapters are named from the table itself, so the help
			// cannot leave one out.
			builtin := dap.DefaultAdapters()
			fs.BoolVar(&enabled, "debug", true, "offer the debug tool (exec tier), ops "+strings.Join(tools.DebugOps(), ", ")+
				"; debug sessions with "+dap.DescribeSupport(builtin)+"; breakpoint kinds (condition, hit_condition, log_message, "+
				"function, exception filters) as each adapter's capabilities allow; docs/tools.md has the adapter table")
			fs.DurationVar(&ttl, "debug-ttl", dap.DefaultTTL, "fixed lifetime of a debug session")
			fs.Var(&procs, "debug-procs", "process cap of a debug session: the `count` of processes and threads its adapter, the program and what it starts may have at once, or off; a fork past it fails in the program (EAGAIN). A pids cgroup of its own when tether can make one; the launch or attach result says which")
			fs.Var(&memory, "debug-memory", "address-space cap (RLIMIT_AS) of each process of a debug session (the adapter, the program and what it starts), a `size` (8GiB, 16GiB) or off: an allocation past it fails in the program. Set by the sandbox's launcher; the launch or attach result says which")
			fs.StringVar(&adapters, "debug-adapters", "", "JSON file of extra debug adapters, a list of {id, markers, extensions, commands, launch, "+
				"attach (by host and port: ${host}, ${port}), attach_pid (by pid: ${pid}), transport (stdio, dial-in, tcp: the command listens on ${port}), "+
				"address (host:port of a running TCP adapter), ops, ...}; "+
				"an entry with a built-in id ("+strings.Join(dap.AdapterIDs(builtin), ", ")+") replaces that adapter")
		},
		wire: func(ctx context.Context, cfg *tools.Config, env wireEnv) (func(), error) {
			if !enabled {
				return nil, nil
			}
			table := dap.DefaultAdapters()
			if adapters != "" {
				f, err := os.Open(adapters)
				if err != nil {
					return nil, fmt.Errorf("--debug-adapters: %w", err)
				}
				extra, err := dap.LoadAdapters(f)
				f.Close()
				if err != nil {
					return nil, fmt.Errorf("--debug-adapters %s: %w", adapters, err)
				}
				table = dap.MergeAdapters(table, extra)
			}
			sv := dap.NewSupervisor(dap.Config{Adapters: table, TTL: ttl, ProcessLimit: procs.n, AddressSpaceLimit: memory.n})
			cfg.Debug = sv
			return func() { sv.Close() }, nil
		},
	})
}
