// Command precompile compiles every embedded grammar module into wazero's
// compilation cache (the user cache dir's tether/wazero), so tests and the
// first tether run start warm. It is optional: without it each module is
// compiled on its first use and cached then. A second run finds everything
// cached and costs about a second.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/tetherhq/tether/engine"
	"github.com/tetherhq/tether/grammars"
)

func main() {
	start := time.Now()
	ctx := context.Background()
	e, err := engine.New(ctx, engine.NewConfig())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer e.Close(ctx)
	if err := e.Precompile(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "engine: %d grammar modules compiled for wazero (cached) in %.1fs\n", len(grammars.All()), time.Since(start).Seconds())
}
