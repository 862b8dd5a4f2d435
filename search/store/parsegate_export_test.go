package store

// Hooks for the external tests of parsegate.go.

// SetParseBudget gives the process's parses a budget of n source bytes at
// once, counting their peak from zero; restore puts the budget back and
// returns that peak.
func SetParseBudget(n int64) (restore func() (peak int64)) {
	g := newByteGate(n)
	old := parses.Swap(g)
	return func() int64 {
		parses.Store(old)
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.peak
	}
}
