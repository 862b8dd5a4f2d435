package search

import "context"
import "errors"
import "fmt"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"

// SnippetPath names the source Snippet matches in its matches.
const SnippetPath = "snippet"

// MaxSnippet bounds the source Snippet takes.
const MaxSnippet = 256 << 10

// Snippet runs q's pattern or rule over src, source given as text rather
// than files (q's paths and globs are not used), as a search would over a
// file of it: its matches are named SnippetPath, and a pattern that
// matches nothing gets its NoMatch. It returns src's tree too. q's
// Language is needed unless the rule's configuration names one.
func (s *Searcher) Snippet(ctx context.Context, q Query, src []byte) (*Result, *engine.Tree, error) {
	if len(src) > MaxSnippet {
		return nil, nil, fmt.Errorf("search: the snippet is %d bytes, over the %d KiB a snippet may be: search a file instead", len(src), MaxSnippet>>10)
	}
	var c compiled
	var err error
	switch {
	case q.Rule != nil:
		var given *grammars.Language
		if q.Language != "" {
			if given, err = lookupLang(q.Language); err != nil {
				return nil, nil, err
			}
		} else if m, ok := q.Rule.(map[string]any); !ok || m["language"] == nil {
			return nil, nil, errors.New("search: a rule needs a language: pass language, or give the rule a language key (go, python, typescript, ...)")
		}
		if c.rule, err = compileQueryRule(ctx, s.parser, given, q.Rule, nil); err != nil {
			return nil, nil, err
		}
		if c.lang = c.rule.Grammar(); given != nil {
			c.lang = given
		}
	default:
		if q.Language == "" {
			return nil, nil, errors.New("search: a snippet needs its language: pass language (go, python, typescript, ...)")
		}
		if c.lang, err = lookupLang(q.Language); err != nil {
			return nil, nil, err
		}
		if c.pat, err = CompileQuery(ctx, s.parser, c.lang, q); err != nil {
			return nil, nil, err
		}
	}
	tree, err := s.parser.Parse(ctx, c.lang, src)
	if err != nil {
		return nil, nil, fmt.Errorf("search: parsing the snippet: %w", err)
	}
	j := &fileJob{path: SnippetPath, parsed: true}
	j.noteBroken(tree, base{})
	if err := s.collect(ctx, c.worker(nil, false), c.lang, j, tree, base{}, q.MaxResults); err != nil {
		return nil, nil, err
	}
	res := &Result{Pattern: c.pat, Rule: c.rule}
	jobs := []*fileJob{j}
	res.tally(jobs, q.MaxResults)
	res.noteNoMatch(jobs)
	return res, tree, nil
}
