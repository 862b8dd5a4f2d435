package tools

import "github.com/tetherhq/tether/search"

// Hooks for the external tests.

var TruncateText = truncateText

// ArtifactDir is the run's artifacts directory, or "" before the first write.
func ArtifactDir(r *Run) string {
	r.arts.mu.Lock()
	defer r.arts.mu.Unlock()
	return r.arts.dir
}

// Wrap adds mw to the tool name of r, as a family adds its wrappers.
func Wrap(r *Run, name string, mw func(next Handler) Handler) { r.reg.Wrap(name, mw) }

// Stage stages p in r's stager (as a tool that stages deletions does) and
// returns its edit id.
func Stage(r *Run, p *search.Plan) string { return r.stager().Stage(p) }
