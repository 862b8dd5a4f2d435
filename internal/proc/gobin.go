package proc

import "os"
import "path/filepath"

// GoBinDirs lists the directories `go install` puts binaries in, where a peer
// installed with it (dlv, gopls) is found when it is not on PATH: $GOBIN when
// set, then the bin directory of each $GOPATH entry ($HOME/go by default).
func GoBinDirs() []string {
	var dirs []string
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		dirs = append(dirs, gobin)
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if home, err := os.UserHomeDir(); err == nil {
			gopath = filepath.Join(home, "go")
		}
	}
	for _, gp := range filepath.SplitList(gopath) {
		dirs = append(dirs, filepath.Join(gp, "bin"))
	}
	return dirs
}
