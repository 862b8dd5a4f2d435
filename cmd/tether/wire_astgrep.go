package main

import "context"
import "flag"
import "sync"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/search/store"
import "github.com/tetherhq/tether/server"
import "github.com/tetherhq/tether/tools"

// sharedEngine is the engine of every run of `tether serve --http`, closed by
// closeSharedEngine when the host exits.
var sharedEngine struct {
	once sync.Once
	e    *engine.Engine
	err  error
}

func closeSharedEngine() {
	if sharedEngine.e != nil {
		sharedEngine.e.Close(context.Background())
	}
}

// The structural family: the tree-sitter engine behind ast_grep, ast_edit and resolve.
func init() {
	var enabled, shareTrees bool
	var trees treeCacheFlags
	addWiring(familyWiring{
		name: "astgrep",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&enabled, "ast-grep", true, "offer ast_grep (read), ast_edit and resolve (write): structural search and staged rewrites")
			trees.register(fs, store.DefaultCacheBudget)
			fs.BoolVar(&shareTrees, "share-trees", false, "with --http: let every principal's searches share parsed trees (by default each token or JWT subject shares its own among its workspaces; shared across them, how fast a search is and /metrics' tree-store counters tell one tenant what content another's workspace holds)")
		},
		wire: func(ctx context.Context, cfg *tools.Config, env wireEnv) (func(), error) {
			if !enabled {
				return nil, nil
			}
			if env.Host {
				// One engine and tree store for every session of the host.
				sharedEngine.once.Do(func() {
					sharedEngine.e, sharedEngine.err = engine.New(context.Background(), engine.NewConfig())
					trees.apply(env.Stderr)
					trees.applyMemoryLimit()
				})
				if sharedEngine.err != nil {
					return nil, sharedEngine.err
				}
				cfg.Search.Parser, cfg.Search.WarmUp = sharedEngine.e, true
				if !shareTrees {
					// One store and budget, each principal's trees its own:
					// the workspaces one principal's sessions reach it may
					// all open, so sharing among them tells it nothing new;
					// a run without one keeps its workspace's apart.
					cfg.Search.Partition = "w:" + cfg.WorkDir
					if p := server.RunPrincipal(ctx); p != "" {
						cfg.Search.Partition = "p:" + p
					}
				}
				return nil, nil
			}
			e, err := engine.New(ctx, engine.NewConfig())
			if err != nil {
				return nil, err
			}
			cfg.Search.Parser = e
			cfg.Search.WarmUp = env.Serve
			trees.apply(env.Stderr)
			if env.Serve {
				trees.applyMemoryLimit()
			}
			return func() {
				trees.settle()
				e.Close(context.Background())
			}, nil
		},
	})
}
