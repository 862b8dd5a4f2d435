package matcher

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tetherhq/tether/grammars"
)

// extLang maps file extensions to language ids, from the grammars table.
var extLang = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, l := range grammars.All() {
		for _, e := range l.Extensions {
			m[e] = l.ID
		}
	}
	return m
})

// langForPath returns the language id of a file by its extension, "" if none.
func langForPath(path string) string {
	return extLang()[strings.ToLower(filepath.Ext(path))]
}

// canonicalLang resolves a language id or alias ("py", "ts") to its id.
func canonicalLang(id string) (string, error) {
	l, ok := grammars.Lookup(id)
	if !ok {
		return "", fmt.Errorf("matcher: unknown language %q: use one of %s", id, strings.Join(grammars.IDs(), ", "))
	}
	return l.ID, nil
}
