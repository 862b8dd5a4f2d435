package search

import (
	"fmt"
	"strings"

	"github.com/tetherhq/tether/grammars"
)

// langForPath returns the language id of a file by its extension, "" if none.
func langForPath(path string) string {
	if l, ok := grammars.ForPath(path); ok {
		return l.ID
	}
	return ""
}

// canonicalLang resolves a language id or alias ("py", "ts") to its id.
func canonicalLang(id string) (string, error) {
	l, ok := grammars.Lookup(id)
	if !ok {
		return "", fmt.Errorf("search: unknown language %q: use one of %s", id, strings.Join(grammars.IDs(), ", "))
	}
	return l.ID, nil
}
