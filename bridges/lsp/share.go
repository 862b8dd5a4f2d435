package lsp

import "context"
import "errors"
import "fmt"
import "sync"

// A Supervisor can serve several sessions at once (a host's sessions on
// one workspace share it through a Pool). What one session shows a server
// without writing it (ShowContent) must not be seen by another's query, so
// showing happens inside a view, which is exclusive: queries wait while a
// view is held, and a view waits for the queries in flight. The holder's
// own queries (made with the context View returns) run inside it.

// viewGate is a readers-writer lock whose holders are known by context:
// a query nested in a query, or made under the held view, does not wait.
type viewGate struct {
	mu      sync.Mutex
	readers int
	owner   *viewToken
	writers int           // views waiting: new queries wait behind them
	changed chan struct{} // closed and replaced on every release
}

// viewToken marks a context as holding s's view; undos are those of the
// content shown under it, run at release if not before.
type viewToken struct {
	s     *Supervisor
	mu    sync.Mutex
	undos []func()
}

// onRelease adds undo to what release runs.
func (t *viewToken) onRelease(undo func()) {
	t.mu.Lock()
	t.undos = append(t.undos, undo)
	t.mu.Unlock()
}

// readToken marks a context as inside one of s's queries.
type readToken struct{ s *Supervisor }

type viewKey struct{}

type readKey struct{}

// waitCh returns the channel closed at the next release; g.mu held.
func (g *viewGate) waitCh() chan struct{} {
	if g.changed == nil {
		g.changed = make(chan struct{})
	}
	return g.changed
}

// wake tells the waiters something was released; g.mu held.
func (g *viewGate) wake() {
	if g.changed != nil {
		close(g.changed)
		g.changed = nil
	}
}

// heldView returns the view ctx holds on s, nil when none.
func (s *Supervisor) heldView(ctx context.Context) *viewToken {
	t, _ := ctx.Value(viewKey{}).(*viewToken)
	if t == nil || t.s != s {
		return nil
	}
	s.gate.mu.Lock()
	defer s.gate.mu.Unlock()
	if s.gate.owner != t {
		return nil
	}
	return t
}

// reading enters a query: it waits while another session holds a view and
// returns the context the query runs with and the function ending it.
func (s *Supervisor) reading(ctx context.Context) (context.Context, func(), error) {
	if t, _ := ctx.Value(readKey{}).(*readToken); t != nil && t.s == s {
		return ctx, func() {}, nil
	}
	if s.heldView(ctx) != nil {
		return ctx, func() {}, nil
	}
	g := &s.gate
	for {
		g.mu.Lock()
		if g.owner == nil && g.writers == 0 {
			g.readers++
			g.mu.Unlock()
			var once sync.Once
			return context.WithValue(ctx, readKey{}, &readToken{s}), func() {
				once.Do(func() {
					g.mu.Lock()
					g.readers--
					g.wake()
					g.mu.Unlock()
				})
			}, nil
		}
		ch := g.waitCh()
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx, func() {}, fmt.Errorf("lsp: gave up waiting for another session's view of the workspace to end: %w", ctx.Err())
		}
	}
}

// View waits for the queries in flight to end and holds the workspace's
// servers for the caller until release: ShowContent needs it, and queries
// made with the returned context see what was shown while other sessions'
// queries wait. Call release when done, whatever happened (it is
// idempotent); hold it briefly.
func (s *Supervisor) View(ctx context.Context) (context.Context, func(), error) {
	if s.heldView(ctx) != nil {
		return ctx, func() {}, nil
	}
	if t, _ := ctx.Value(readKey{}).(*readToken); t != nil && t.s == s {
		return ctx, func() {}, errors.New("lsp: a view cannot be taken inside a query; take it before")
	}
	g := &s.gate
	g.mu.Lock()
	g.writers++
	for g.owner != nil || g.readers > 0 {
		ch := g.waitCh()
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			g.mu.Lock()
			g.writers--
			g.wake()
			g.mu.Unlock()
			return ctx, func() {}, fmt.Errorf("lsp: gave up waiting for other sessions' queries to end before showing content: %w", ctx.Err())
		}
		g.mu.Lock()
	}
	g.writers--
	t := &viewToken{s: s}
	g.owner = t
	g.mu.Unlock()
	var once sync.Once
	return context.WithValue(ctx, viewKey{}, t), func() {
		once.Do(func() {
			t.mu.Lock()
			undos := t.undos
			t.undos = nil
			t.mu.Unlock()
			for _, u := range undos {
				u()
			}
			g.mu.Lock()
			if g.owner == t {
				g.owner = nil
			}
			g.wake()
			g.mu.Unlock()
		})
	}, nil
}
