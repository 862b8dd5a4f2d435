package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
)

// paths resolves a's path and paths to the real paths to search, each
// confined to the working directory (default: the working directory).
func (s *structural) paths(tool string, a grepQuery) ([]string, error) {
	names := slices.Clone(a.Paths)
	if a.Path != "" {
		names = append([]string{a.Path}, names...)
	}
	if len(names) == 0 {
		names = []string{"."}
	}
	real := make([]string, 0, len(names))
	for _, p := range names {
		if p == "" {
			return nil, fmt.Errorf("tools: %s: paths has an empty entry; give files or directories relative to the working directory", tool)
		}
		r, _, err := s.run.root.Resolve(p)
		if err != nil {
			return nil, err
		}
		// the search reaches it through the root again (Config.Root); this
		// only says early that it is missing
		f, _, err := s.run.root.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("tools: %s: path %q does not exist; give a file or directory in the working directory", tool, p)
		}
		if err != nil {
			return nil, err
		}
		f.Close()
		if !slices.Contains(real, r) {
			real = append(real, r)
		}
	}
	return real, nil
}
