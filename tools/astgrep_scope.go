package tools

import "context"
import "errors"
import "fmt"
import "io/fs"
import "slices"

import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/inject"

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

// sgconfigNames are the names of an ast-grep project's config, in the order
// tether ast-grep looks for them.
var sgconfigNames = []string{"sgconfig.yml", "sgconfig.yaml"}

// injections registers the customLanguages and reads the
// languageInjections of the working directory's
// sgconfig.yml (or sgconfig.yaml), as tether ast-grep reads the project's
// config in the directory it runs in, so that ast_grep and ast_edit search
// the regions they name too (CSS in styled-components templates, ...).
// None: nil.
func (s *structural) injections(ctx context.Context, tool string) ([]inject.Injection, error) {
	data, name, err := s.projectConfig(tool)
	if data == nil || err != nil {
		return nil, err
	}
	injs, err := search.ParseInjections(ctx, s.run.cfg.Search.Parser, data, name)
	if err != nil {
		return nil, fmt.Errorf("tools: %s: the project's languageInjections: %w", tool, err)
	}
	return injs, nil
}

// projectConfig reads the working directory's sgconfig.yml (or
// sgconfig.yaml) and registers its customLanguages, which a call, the
// config's injections and ast_tree may name; it returns the file's text
// and name, or nil when there is none. The file is workspace content: it
// and the modules it names are read through the root, and a link that
// leads outside the working directory is refused, not followed. It is read
// on every call, so an edit to it applies to the next one.
func (s *structural) projectConfig(tool string) ([]byte, string, error) {
	for _, name := range sgconfigNames {
		data, err := s.run.root.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, "", fmt.Errorf("tools: %s: the project's %s (read for its customLanguages and languageInjections): %w; make it a regular file inside the working directory, or remove it", tool, name, err)
		}
		if _, err := search.ParseCustomLanguages(data, name, s.run.root.ReadFile); err != nil {
			return nil, "", fmt.Errorf("tools: %s: the project's customLanguages: %w", tool, err)
		}
		return data, name, nil
	}
	return nil, "", nil
}
