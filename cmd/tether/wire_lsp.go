package main

import "context"
import "crypto/sha256"
import "encoding/json"
import "flag"
import "fmt"
import "os"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/tools"

// The language-server family: a supervisor for the run's working directory,
// shared by the runs (a host's sessions) on the same workspace unless
// --share-lsp=false.
func init() {
	var (
		enabled bool
		share   bool
		servers string
		format  bool
		pool    = lsp.NewPool()
	)
	addWiring(familyWiring{
		name: "lsp",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&enabled, "lsp", true, "offer the lsp, lsp_rename and lsp_check tools and diagnostics on write (language servers start lazily)")
			fs.BoolVar(&share, "share-lsp", true, "with --http: sessions on the same workspace share its language servers (one process per language; what a session shows a server unsaved stays its own); false gives each session its own")
			fs.BoolVar(&format, "format-on-write", false, "format each file tether's writers write (write, edit, apply_patch, resolve, lsp_rename, rename_file) with its language server, before diagnostics on write; the result says what was formatted, by which server, or why not (a server row's format_on_write overrides it)")
			fs.StringVar(&servers, "lsp-servers", "", "JSON file with more language servers (a list of {name, language, binaries, args, extensions, root_markers, checker, position_encoding, ...})")
		},
		wire: func(ctx context.Context, cfg *tools.Config, env wireEnv) (func(), error) {
			if !enabled || cfg.WorkDir == "" {
				return nil, nil
			}
			opts := []lsp.Option{lsp.WithPython(pythonPath)}
			config := "python=" + pythonPath
			if format {
				opts = append(opts, lsp.WithFormatOnWrite(true))
				config += " format-on-write"
			}
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
				config += fmt.Sprintf(" %x", sha256.Sum256(b))
			}
			if share && env.Host {
				sv, release, _, err := pool.Get(cfg.WorkDir, config, opts...)
				if err != nil {
					return nil, err
				}
				cfg.LSP = sv
				return release, nil
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
