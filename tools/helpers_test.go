package tools_test

import (
	"context"
	"slices"
	"testing"

	"github.com/tetherhq/tether/tools"
)

// startRun starts a run with cfg, closed when the test ends.
func startRun(t testing.TB, cfg tools.Config) *tools.Run {
	t.Helper()
	run, err := tools.NewRun(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	return run
}

// toolNames lists the names of the tools run lists, in its order.
func toolNames(run *tools.Run) []string {
	var names []string
	for _, tl := range run.List() {
		names = append(names, tl.Name)
	}
	return names
}

// hasTool reports whether run lists the tool name.
func hasTool(run *tools.Run, name string) bool { return slices.Contains(toolNames(run), name) }
