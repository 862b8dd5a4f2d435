package tools_test

import "context"
import "encoding/json"
import "slices"
import "testing"

import "github.com/tetherhq/tether/tools"

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

// call calls the tool name of r as the model would, with args as JSON: a
// string is taken as the JSON text itself, anything else is marshalled.
func call(t testing.TB, r *tools.Run, name string, args any) (*tools.Result, error) {
	t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	return r.Call(context.Background(), name, json.RawMessage(raw), tools.FromModel)
}

// callResult is call that fails the test on an error (not on an error
// result, which it returns).
func callResult(t testing.TB, r *tools.Run, name string, args any) *tools.Result {
	t.Helper()
	res, err := call(t, r, name, args)
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return res
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

// structured returns res's structured output as a T (the tool's typed
// output, tools.Typed), failing the test when it is anything else.
func structured[T any](t testing.TB, res *tools.Result) T {
	t.Helper()
	v, ok := res.Structured.(T)
	if !ok {
		var want T
		t.Fatalf("structured output is %T, want %T; the text:\n%s", res.Structured, want, res.AllText())
	}
	return v
}
