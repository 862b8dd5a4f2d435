package lsp

import "errors"
import "fmt"
import "path/filepath"
import "sync"

// Pool hands the sessions of one host the same Supervisor for the same
// workspace and configuration, so that they share one server process per
// language: what a session shows a server without writing it stays its
// own (View), and the servers are closed when the last session releases
// them. A Pool never shares across workspaces: each workspace's servers
// are sandboxed to it. It is safe for concurrent use.
type Pool struct {
	mu    sync.Mutex
	byKey map[string]*pooled
}

type pooled struct {
	sv   *Supervisor
	refs int
}

// NewPool returns an empty Pool.
func NewPool() *Pool { return &Pool{byKey: map[string]*pooled{}} }

// Get returns the Supervisor for workdir shared by the sessions that ask
// with the same config (a string naming the options, such as a digest of
// the server table given; sessions with different configs get different
// supervisors), creating it with opts for the first, and the function that
// gives it back: the last give-back closes it. shared is false for the
// session that created it.
func (p *Pool) Get(workdir, config string, opts ...Option) (sv *Supervisor, release func(), shared bool, err error) {
	if workdir == "" {
		return nil, nil, false, errors.New("lsp: pool: no workspace given")
	}
	real, err := filepath.EvalSymlinks(workdir)
	if err != nil {
		return nil, nil, false, fmt.Errorf("lsp: pool: workspace: %w", err)
	}
	if real, err = filepath.Abs(real); err != nil {
		return nil, nil, false, fmt.Errorf("lsp: pool: workspace: %w", err)
	}
	key := real + "\x00" + config
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.byKey[key]
	if e == nil {
		s, err := New(real, opts...)
		if err != nil {
			return nil, nil, false, err
		}
		s.pooled.Store(true)
		e = &pooled{sv: s}
		p.byKey[key] = e
	} else {
		shared = true
	}
	e.refs++
	e.sv.sessions.Store(int32(e.refs))
	var once sync.Once
	return e.sv, func() {
		once.Do(func() {
			p.mu.Lock()
			e.refs--
			e.sv.sessions.Store(int32(e.refs))
			last := e.refs == 0
			if last {
				delete(p.byKey, key)
			}
			p.mu.Unlock()
			if last {
				e.sv.close()
			}
		})
	}, shared, nil
}

// Len returns how many supervisors the pool holds (one per workspace and
// config in use).
func (p *Pool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.byKey)
}
