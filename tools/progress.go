package tools

import "context"
import "fmt"

// ProgressFunc receives how far a call got: done of total (total 0: not
// known) and a message saying it in words; done below 0 is a step without
// a count (ReportStep), which the receiver numbers after what it sent. It
// may be called from several goroutines, and must not block for long.
type ProgressFunc func(done, total float64, message string)

type progressKey struct{}

// WithProgress returns a context whose calls report their progress to fn
// (an MCP server sends it as progress notifications).
func WithProgress(ctx context.Context, fn ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ReportProgress tells whoever made the call running under ctx how far it
// got; without a ProgressFunc (WithProgress) it does nothing.
func ReportProgress(ctx context.Context, done, total float64, message string) {
	if fn, ok := ctx.Value(progressKey{}).(ProgressFunc); ok && fn != nil {
		fn(done, total, message)
	}
}

// ReportStep tells whoever made the call running under ctx what it does or
// waits for now ("debug: launching main.go"), without a count.
func ReportStep(ctx context.Context, message string) {
	ReportProgress(ctx, -1, 0, message)
}

// filesProgress returns the search.Query.Progress of a call under ctx: the
// files searched of the total; nil when no one listens.
func filesProgress(ctx context.Context) func(done, total, found int) {
	if fn, _ := ctx.Value(progressKey{}).(ProgressFunc); fn == nil {
		return nil
	}
	return func(done, total, _ int) {
		ReportProgress(ctx, float64(done), float64(total), fmt.Sprintf("%d of %d files searched", done, total))
	}
}

// filesRuns numbers the files of searches a call runs one after another
// (ast_grep without a language: one per language) as one count, so that
// the call's progress keeps increasing: each search's files are counted on
// from the files of those before it, of a total that grows as each starts.
// Counted apart, every search started again at 1, below what was sent, and
// its reports were dropped until they passed the search before.
type filesRuns struct {
	fn         func(done, total, found int)
	base, last int // files of the searches before; the running one's total
}

// next returns the search.Query.Progress of the next search; nil when no
// one listens. The search before must have returned.
func (r *filesRuns) next() func(done, total, found int) {
	if r.fn == nil {
		return nil
	}
	r.base, r.last = r.base+r.last, 0
	base := r.base
	// a search calls its Progress one call at a time, and returns after
	// its last
	return func(done, total, found int) {
		r.last = total
		r.fn(base+done, base+total, found)
	}
}
