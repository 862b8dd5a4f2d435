package main

import "context"
import "fmt"
import "os"
import "time"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"

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
