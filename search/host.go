package search

import "context"
import "fmt"
import "slices"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher/rule"
import "github.com/tetherhq/tether/search/inject"
import "github.com/tetherhq/tether/search/store"

// Embedded languages (package inject). A query of language L searches the
// files of L and the host files that may embed L; in a host file it parses
// the host, lists its regions of L from the host's tree (inject), parses
// each region as L (through the same tree store as files, keyed by the
// region's content) and reports the matches in the host file's
// coordinates. A rewrite edits the host file at those offsets.

// noRegions is the stat memo's key for a host file that holds no region of
// a language (as the memo's language, host ">" language).
var noRegions = store.Key{}

// RegionsCut is a host file that embeds more regions of the query's
// language than inject.MaxRegionsPerFile: only the first were searched.
type RegionsCut struct {
	Path     string `json:"file"`
	Regions  int    `json:"regions"`
	Searched int    `json:"searched"`
}

// doHost searches the regions of lang in the host file j (of language
// j.host): the host is parsed (or taken from the store), its regions of
// lang listed, and each region that holds the pattern's tokens parsed as
// lang and matched, its matches placed in the host file.
func (s *Searcher) doHost(ctx context.Context, fsys *files, w *worker, lang *grammars.Language, j *fileJob, limit int) error {
	// a host file without a region of lang is no file of lang: it is not
	// counted, and while it is as it was it is not read again
	memoLang := j.host.Key() + ">" + lang.Key()
	// a project's injections find regions the grammar's own look and the
	// memo know nothing of
	custom := inject.Injects(j.host.ID, lang.ID, w.injs)
	if custom {
		memoLang = ""
	}
	if key, ok := s.unchanged(fsys, j.path, memoLang); ok && key == noRegions && !custom {
		j.none = true
		return nil
	}
	at := s.now()
	src, fi, ok := s.readText(fsys, j.path, &j.unread)
	if !ok {
		if j.skip == "binary" {
			// a binary file embeds no code: it is no file of lang
			j.skip, j.none = "", true
		}
		return nil
	}
	if !inject.MayHold(j.host.ID, lang.ID, w.injs, src) {
		s.cache.Remember(j.path, memoLang, fi, at, noRegions)
		j.none = true
		return nil
	}
	// the host's text holds every region's: a file without the tokens
	// has no region with them
	if !hasTokens(src, w.tokens) {
		j.prefilter = true
		return nil
	}
	hkey := store.KeyOf(s.partition, j.host, src)
	s.cache.Remember(j.path, j.host.Key(), fi, at, hkey)
	ht, hit, err := s.wholeTree(ctx, j.host, hkey, src)
	if err != nil {
		j.err = err
		return nil
	}
	rs, total, err := inject.HostRegions(ctx, ht, j.host.ID, lang.ID, w.injs, w.runners)
	if err != nil {
		return fmt.Errorf("search: %s: %w", j.path, err)
	}
	if total == 0 {
		if !custom {
			s.cache.Remember(j.path, memoLang, fi, at, noRegions)
		}
		j.none = true
		return nil
	}
	j.regions, j.regionsTotal = len(rs), total
	hits, parsed := 0, 0
	for _, r := range rs {
		if err := ctx.Err(); err != nil {
			return err
		}
		rsrc, b := regionText(r, src)
		key, ok := s.regionNeeded(w.kinds, w.tokens, lang, rsrc)
		if !ok {
			continue
		}
		t, rhit, err := s.wholeTree(ctx, lang, key, rsrc)
		if err != nil {
			j.err = fmt.Errorf("the %s at line %d: %w", lang.ID, r.Line+1, err)
			return nil
		}
		parsed++
		if rhit {
			hits++
		}
		j.noteBroken(t, b)
		if err := s.collect(ctx, w, lang, j, t, b, limit); err != nil {
			return err
		}
	}
	if parsed == 0 {
		j.prefilter = true
		return nil
	}
	// regions found in a host tree with an error may be cut wrong
	j.noteBroken(ht, base{})
	j.parsed, j.cacheHit = true, hit && hits == parsed
	if w.rewrites() {
		j.src = src
	}
	return nil
}

// regionNeeded reports whether a region's text rsrc, in lang, must be
// parsed: it holds every token, and its kind set, as the store knows it,
// does not rule it out (the kind sets are keyed by the region's own
// language and content, never the host's); key is its tree's key.
func (s *Searcher) regionNeeded(kinds *store.KindFilter, tokens []string, lang *grammars.Language, rsrc []byte) (store.Key, bool) {
	if !hasTokens(rsrc, tokens) {
		return store.Key{}, false
	}
	key := store.KeyOf(s.partition, lang, rsrc)
	return key, !s.cache.RuledOut(kinds, key)
}

// embedded returns the languages with rules (keys of byLang) that files of
// hostLang may embed, sorted.
func embedded(hostLang string, byLang map[string][]*scanRule) []string {
	if !inject.IsHost(hostLang) {
		return nil
	}
	var out []string
	for l := range byLang {
		if inject.Embeds(hostLang, l) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// scanHost is scanFile for a host file: the rules of its own language (rs)
// on its tree, and those of each embedded language in inner on its
// regions of that language.
func (s *Searcher) scanHost(ctx context.Context, fsys *files, lang *grammars.Language, rs []*scanRule, inner []string, byLang map[string][]*scanRule, pick func([]*scanRule) []*scanRule, runners map[*rule.Rule]*rule.Runner, injs []inject.Injection, j *scanJob, fix bool) error {
	at := s.now()
	src, fi, ok := s.readText(fsys, j.path, &j.unread)
	if !ok {
		if j.skip == "binary" && len(rs) == 0 {
			// a binary file embeds no code, and no rule is for its own
			// language: it is not counted
			j.skip = ""
		}
		return nil
	}
	key := store.KeyOf(s.partition, lang, src)
	s.cache.Remember(j.path, lang.Key(), fi, at, key)
	withTokens := func(srs []*scanRule, text []byte) []*scanRule {
		var out []*scanRule
		for _, sr := range srs {
			if hasTokens(text, sr.r.Tokens()) {
				out = append(out, sr)
			}
		}
		return out
	}
	live := func(srs []*scanRule, k store.Key) []*scanRule {
		var out []*scanRule
		for _, sr := range srs {
			if !s.cache.RuledOut(sr.kinds, k) {
				out = append(out, sr)
			}
		}
		return out
	}
	custom, _ := injects(lang.ID, injs, byLang, nil)
	var mayInner []string
	for _, l := range inner {
		// the look at the bytes knows the grammar's regions, not a
		// project's injections
		if custom || inject.May(lang.ID, l, src) {
			mayInner = append(mayInner, l)
		}
	}
	if len(rs) > 0 {
		j.searched = true
	}
	if rs = live(withTokens(rs, src), key); len(rs) == 0 && len(mayInner) == 0 {
		j.prefiltered = j.searched
		return nil
	}
	tree, _, err := s.wholeTree(ctx, lang, key, src)
	if err != nil {
		j.searched = true
		j.err = err
		return nil
	}
	if len(rs) > 0 {
		j.parsed = true
		if err := s.runRules(ctx, j, tree, lang.ID, rs, runners, base{}, src, fix); err != nil {
			return err
		}
	}
	var extra []inject.Region
	if custom {
		if extra, err = inject.Find(ctx, tree, lang.ID, injs, runners); err != nil {
			return fmt.Errorf("search: %s: %w", j.path, err)
		}
	}
	for _, l := range mayInner {
		regions, total := inject.Regions(lang.ID, tree, l, inject.MaxRegionsPerFile)
		for _, r := range extra {
			if r.Lang == l {
				if total++; len(regions) < inject.MaxRegionsPerFile {
					regions = append(regions, r)
				}
			}
		}
		if total == 0 {
			continue
		}
		j.searched = true
		if total > len(regions) {
			j.regionsCut = append(j.regionsCut, RegionsCut{Path: j.path, Regions: total, Searched: len(regions)})
		}
		lrs := withTokens(pick(byLang[l]), src)
		// l has rules (inner), each compiled for the language l names
		rl := byLang[l][0].r.Grammar()
		for _, r := range regions {
			if err := ctx.Err(); err != nil {
				return err
			}
			rsrc, b := regionText(r, src)
			rk := store.KeyOf(s.partition, rl, rsrc)
			rrs := live(withTokens(lrs, rsrc), rk)
			if len(rrs) == 0 {
				continue
			}
			t, _, err := s.wholeTree(ctx, rl, rk, rsrc)
			if err != nil {
				j.err = fmt.Errorf("the %s at line %d: %w", l, r.Line+1, err)
				return nil
			}
			j.parsed = true
			if err := s.runRules(ctx, j, t, l, rrs, runners, b, src, fix); err != nil {
				return err
			}
		}
	}
	if j.searched && !j.parsed {
		j.prefiltered = true
	}
	return nil
}

// atFileStart is the base of a whole file's tree.
var atFileStart = base{}

// injects reports whether some injection of hostLang has regions of a
// language with rules in byLang, and adds those languages to langs.
func injects(hostLang string, injs []inject.Injection, byLang map[string][]*scanRule, langs []string) (bool, []string) {
	found := false
	for _, inj := range injs {
		if inj.Host != hostLang {
			continue
		}
		for _, l := range inj.Injected {
			if len(byLang[l]) > 0 {
				found = true
				if !slices.Contains(langs, l) {
					langs = append(langs, l)
				}
			}
		}
	}
	slices.Sort(langs)
	return found, langs
}

// regionText returns what is parsed of region r of host file src, and the
// base that maps the parsed text's positions to src's.
func regionText(r inject.Region, src []byte) ([]byte, base) {
	text := r.Text(src)
	if !r.Wrap {
		return text, base{off: r.Start, line: r.Line, col: r.Col, host: src}
	}
	return text, base{off: r.Start - 1, line: r.Line, col: r.Col - 1, host: src, lo: 1, hi: len(text) - 1}
}
