package tools

import "context"

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

// WillMove tells diagnostics on write, before a tool moves files, which
// (each from and to): the files that import one by either path are
// diagnosed now, while it is still where it was, as their baseline (after
// the move, what broke or was fixed in them is new or cleared).
func WillMove(ctx context.Context, moves [][2]string) {
	if f, ok := ctx.Value(willMoveKey{}).(func([][2]string)); ok {
		f(moves)
	}
}

// withWillMove returns ctx with f as what WillMove calls.
func withWillMove(ctx context.Context, f func([][2]string)) context.Context {
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
