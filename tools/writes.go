package tools

import "context"

import "github.com/tetherhq/tether/search"

// willWriteKey carries, in the context of a call of a tool that declares
// Writes, the function WillWrite calls.
type willWriteKey struct{}

// WillWrite tells the wrappers of a file-writing tool (Tool.Writes) which
// workspace-relative files the call is about to write, when the tool learns
// them only while it runs (a rename asks the server for its edit): call it
// after they are known and before any is written, so that their state
// before the write can be taken. Outside such a call it does nothing.
func WillWrite(ctx context.Context, paths []string) {
	if f, ok := ctx.Value(willWriteKey{}).(func([]string)); ok {
		f(paths)
	}
}

type willMoveKey struct{}

// WillMove tells diagnostics on write, before a tool applies plan, which
// moves files: the files that import one by either path, or mention a
// declaration plan changes, are diagnosed now, while the moved files are
// still where they were, as their baseline (after the move, what broke
// or was fixed in them is new or cleared).
func WillMove(ctx context.Context, plan *search.Plan) {
	if f, ok := ctx.Value(willMoveKey{}).(func(*search.Plan)); ok {
		f(plan)
	}
}

// withWillMove returns ctx with f as what WillMove calls.
func withWillMove(ctx context.Context, f func(*search.Plan)) context.Context {
	return context.WithValue(ctx, willMoveKey{}, f)
}

// withWillWrite returns ctx with f as what WillWrite calls.
func withWillWrite(ctx context.Context, f func([]string)) context.Context {
	return context.WithValue(ctx, willWriteKey{}, f)
}

// declaredWrites returns the files the call of the registry's tool name
// declares it will write (nil for a tool that declares none).
func declaredWrites(reg *registry, call *Call) []string {
	t, ok := reg.Lookup(call.Name)
	if !ok || t.Writes == nil {
		return nil
	}
	return t.Writes(call)
}
