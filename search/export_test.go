package search

// SetNoHints leaves out what Result.NoMatch needs, to time what it costs.
func SetNoHints(s *Searcher, off bool) { s.testHookNoHints = off }
