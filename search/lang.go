package search

import "fmt"
import "strings"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/ipynb"
import "github.com/tetherhq/tether/search/inject"

// langForPath returns the language of a file by its name or extension
// (nil if none): where a file's language is inferred.
func langForPath(path string) *grammars.Language {
	l, _ := grammars.ForPath(path)
	return l
}

// lookupLang resolves a language id or alias ("py", "ts"), where a query's
// or a configuration's language name enters a search; the language is
// passed on from there.
func lookupLang(name string) (*grammars.Language, error) {
	l, ok := grammars.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("search: unknown language %q: use one of %s", name, strings.Join(grammars.IDs(), ", "))
	}
	return l, nil
}

// pathLang is the language a search of the single file path is in when
// none is given: its grammar's, or for a Jupyter notebook, whose code
// cells are searched, its kernel's (Python when it cannot be read or
// names none; the search then says why it was not searched).
func (s *Searcher) pathLang(fsys *files, path string) (*grammars.Language, bool) {
	if l, ok := grammars.ForPath(path); ok {
		return l, true
	}
	if !inject.IsNotebook(path) {
		return nil, false
	}
	if src, _, err := s.read(fsys, path); err == nil {
		if nb, err := ipynb.Parse(src); err == nil {
			if l, ok := grammars.Lookup(inject.NotebookKernel(nb)); ok {
				return l, true
			}
		}
	}
	return grammars.Lookup(inject.NotebookLanguage)
}
