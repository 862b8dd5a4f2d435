package search

import "context"
import "errors"
import "fmt"
import "sort"
import "strings"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"

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

// resolveLanguage returns the language to search paths with: lang when given;
// else the language of a single file; else, for directories, the one language
// their files are written in, or the one language of several that the pattern
// parses in. Several it parses in is a *LanguagesError; anything else is an
// error that names the candidates.
func (s *Searcher) resolveLanguage(ctx context.Context, f *files, lang, pattern string, paths []string, gl *globs) (*grammars.Language, error) {
	if lang != "" {
		return lookupLang(lang)
	}
	if len(paths) == 1 {
		if fi, err := f.stat(paths[0]); err == nil && !fi.IsDir() {
			if l, ok := s.pathLang(f, paths[0]); ok {
				return l, nil
			}
			return nil, fmt.Errorf("search: no language for %s: its extension is not a known grammar's; pass language", paths[0])
		}
	}
	counts := map[*grammars.Language]int{}
	missing := 0
	for _, p := range paths {
		var sk Skips
		// notebooks count as the language of their cells
		found, err := walkHosts(ctx, f, p, anyLanguage, &sk, gl, map[string]*grammars.Language{}, nil)
		if err != nil {
			if skipMissing(err, p, len(paths), &missing, &sk) {
				continue
			}
			return nil, fmt.Errorf("search: cannot search %s: %w", p, err)
		}
		for _, file := range found {
			if l, ok := s.pathLang(f, file); ok {
				counts[l]++
			}
		}
	}
	if len(counts) == 0 {
		return nil, fmt.Errorf("search: no source file of a shipped grammar under %s (hidden directories and ignored files aside): check the path, or pass language", strings.Join(paths, ", "))
	}
	langs := make([]*grammars.Language, 0, len(counts))
	for l := range counts {
		langs = append(langs, l)
	}
	sort.Slice(langs, func(i, j int) bool {
		if counts[langs[i]] != counts[langs[j]] {
			return counts[langs[i]] > counts[langs[j]]
		}
		return langs[i].ID < langs[j].ID
	})
	if len(langs) == 1 {
		return langs[0], nil
	}
	var parses []*grammars.Language
	var held []string
	for _, l := range langs {
		held = append(held, fmt.Sprintf("%s (%d %s)", l.ID, counts[l], plural(counts[l], "file", "files")))
		if _, err := matcher.Compile(ctx, s.parser, l, pattern); err == nil {
			parses = append(parses, l)
		} else if !errors.Is(err, matcher.ErrUnparseable) {
			return nil, err
		}
	}
	if len(parses) > 1 {
		// A language whose grammar takes any text (markdown's: every text
		// is a paragraph) parses every pattern; it counts only when no
		// language with a syntax of its own does.
		var strict []*grammars.Language
		for _, l := range parses {
			if !takesAnyText[l.ID] {
				strict = append(strict, l)
			}
		}
		if len(strict) > 0 {
			parses = strict
		}
	}
	if len(parses) == 1 {
		return parses[0], nil
	}
	if len(parses) == 0 {
		return nil, fmt.Errorf("%w in any language found under %s: %s; check its syntax, or pass language", matcher.ErrUnparseable, strings.Join(paths, ", "), strings.Join(held, ", "))
	}
	found := make([]LangCount, len(langs))
	for i, l := range langs {
		found[i] = LangCount{Language: l.ID, Files: counts[l]}
	}
	ids := make([]string, len(parses))
	for i, l := range parses {
		ids[i] = l.ID
	}
	return nil, &LanguagesError{Paths: paths, Found: found, Parses: ids}
}

// takesAnyText are the languages whose grammar parses any text: in
// markdown every text is at least a paragraph. (YAML takes most text as a
// plain scalar too, but a pattern there still has a syntax to check.)
var takesAnyText = map[string]bool{"markdown": true}
