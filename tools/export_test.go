package tools

// Hooks for the external tests.

var TruncateText = truncateText

// ArtifactDir is the run's artifacts directory, or "" before the first write.
func ArtifactDir(r *Run) string {
	r.arts.mu.Lock()
	defer r.arts.mu.Unlock()
	return r.arts.dir
}
