package lsp

import "context"
import "fmt"

type noticeKey struct{}

// WithNotice returns a context under which the supervisor tells fn what a
// request waits for before it can be answered (a server being started), so
// that the caller can pass it on (as MCP progress) while it waits.
func WithNotice(ctx context.Context, fn func(message string)) context.Context {
	return context.WithValue(ctx, noticeKey{}, fn)
}

// notice tells ctx's WithNotice function, if any.
func notice(ctx context.Context, format string, args ...any) {
	if fn, _ := ctx.Value(noticeKey{}).(func(string)); fn != nil {
		fn(fmt.Sprintf(format, args...))
	}
}
