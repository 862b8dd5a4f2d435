package main

import (
	"context"
	"flag"

	"github.com/tetherhq/tether/engine"
	"github.com/tetherhq/tether/tools"
)

// The structural family: the tree-sitter engine behind ast_grep, ast_edit and resolve.
func init() {
	var enabled bool
	var trees treeCacheFlags
	addWiring(familyWiring{
		name: "astgrep",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&enabled, "ast-grep", true, "offer ast_grep (read), ast_edit and resolve (write): structural search and staged rewrites")
			trees.register(fs)
		},
		wire: func(ctx context.Context, cfg *tools.Config, env wireEnv) (func(), error) {
			if !enabled {
				return nil, nil
			}
			e, err := engine.New(ctx, engine.NewConfig())
			if err != nil {
				return nil, err
			}
			cfg.Parser = e
			cfg.WarmUp = env.Serve
			trees.apply(env.Stderr)
			return func() { e.Close(context.Background()) }, nil
		},
	})
}
