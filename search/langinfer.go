package search

import (
	"errors"
	"fmt"
	"strings"
)

// ErrSeveralLanguages is what a search without a language returns (wrapped
// in a *LanguagesError) when its directories hold files of several languages
// the pattern parses in.
var ErrSeveralLanguages = errors.New("search: several languages")

// LangCount is a language found under a search's paths and how many of its
// files are there.
type LangCount struct {
	Language string `json:"language"`
	Files    int    `json:"files"`
}

// LanguagesError says that the directories searched without a language hold
// files of several languages the pattern parses in: the caller asks for one,
// or searches each language in Parses. It matches ErrSeveralLanguages with
// errors.Is.
type LanguagesError struct {
	Paths []string
	// Found are the languages found under Paths with their file counts,
	// most files first.
	Found []LangCount
	// Parses are the languages of Found the pattern parses in, most files first.
	Parses []string
}

func (e *LanguagesError) Error() string {
	held := make([]string, len(e.Found))
	for i, c := range e.Found {
		held[i] = fmt.Sprintf("%s (%d %s)", c.Language, c.Files, plural(c.Files, "file", "files"))
	}
	return fmt.Sprintf("search: %s holds several languages, %s, and the pattern parses in %s: pass language (one search per language)",
		strings.Join(e.Paths, ", "), strings.Join(held, ", "), strings.Join(e.Parses, ", "))
}

// Is reports whether target is ErrSeveralLanguages.
func (e *LanguagesError) Is(target error) bool { return target == ErrSeveralLanguages }
