package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/tetherhq/tether/bridges/lsp"
	"github.com/tetherhq/tether/tools"
)

// The language-server family: a supervisor for the run's working directory.
func init() {
	var (
		enabled bool
		servers string
	)
	addWiring(familyWiring{
		name: "lsp",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&enabled, "lsp", true, "offer the lsp, lsp_rename and lsp_check tools and diagnostics on write (language servers start lazily)")
			fs.StringVar(&servers, "lsp-servers", "", "JSON file with more language servers (a list of {name, language, binaries, args, extensions, root_markers, checker, position_encoding, ...})")
		},
		wire: func(ctx context.Context, cfg *tools.Config, env wireEnv) (func(), error) {
			if !enabled || cfg.WorkDir == "" {
				return nil, nil
			}
			var opts []lsp.Option
			if servers != "" {
				b, err := os.ReadFile(servers)
				if err != nil {
					return nil, fmt.Errorf("lsp: --lsp-servers: %w", err)
				}
				var extra []lsp.Server
				if err := json.Unmarshal(b, &extra); err != nil {
					return nil, fmt.Errorf("lsp: --lsp-servers %s is not a JSON list of servers: %w", servers, err)
				}
				opts = append(opts, lsp.WithServers(extra...))
			}
			sv, err := lsp.New(cfg.WorkDir, opts...)
			if err != nil {
				return nil, err
			}
			cfg.LSP = sv
			return func() { sv.Close() }, nil
		},
	})
}
