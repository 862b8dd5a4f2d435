package search

import "context"
import "fmt"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher/rule"
import "github.com/tetherhq/tether/search/inject"
import "github.com/tetherhq/tether/search/store"

// Chunk is the byte range [Start, End) of a file.
type Chunk struct {
	Start, End int
	// Member: the chunk is a run of class members, parsed wrapped in a
	// class of its own (chunkjs.go).
	Member bool `json:",omitempty"`
	// Statements: the chunk is a run of statements, parsed wrapped in a
	// function (Go, chunkgo.go; TypeScript and JavaScript, chunkjsstmt.go)
	// or an if block (Python, chunkpy.go) of its own.
	Statements bool `json:",omitempty"`
}

// Need is one file a query's prefilter lets through and what of it the
// query parses.
type Need struct {
	Path string
	// Size is the file's length in bytes.
	Size int
	// Chunks are the byte ranges the query parses, in order: the whole
	// file, or, where it parses in chunks (chunk.go), the runs of adjacent
	// top-level declarations, or of a class's members (Chunk.Member), or
	// the statements every match is one of (Chunk.Statements), that hold
	// every token the pattern needs.
	// In a host file, the regions of the query's language (a markdown
	// fence, an HTML <script>, a project's injection) that hold every
	// token, in host file offsets.
	Chunks []Chunk
	// Host is the file's language when it is a host file searched for
	// the code it embeds: it is parsed whole as Host to list its regions,
	// then each of Chunks as the query's language. "": a file of the
	// query's language.
	Host string
}

// Needs returns the files a search for q must parse, or take from the
// store, and the chunks of each it needs, in walk order: the files the
// prefilter lets through (they hold the pattern's tokens, and the node kinds
// the store knows of them do not rule them out). It reads and hashes files
// but parses none and stores nothing, and it cuts files as a search would
// in an empty store (Config.WholeFiles and Config.WholeWhileRoom parse
// them whole), so it says what a search must parse at least. Files a
// search could not search (unreadable, binary, over the size cap) are left
// out, and so are files cut in chunks none of which holds every token (a
// match lies within one). Host files that may embed the query's language
// (q.Injections too) are parsed, as their regions are found in their
// trees, but their trees are not stored; a host file is needed when one of
// its regions is (Need.Host). Jupyter notebooks are not listed: their
// cells are decoded, no byte range of the file. A rewrite needs the same
// as its search.
func (s *Searcher) Needs(ctx context.Context, q Query) ([]Need, error) {
	p, err := s.prepare(ctx, q, nil)
	if err != nil {
		return nil, err
	}
	defer p.fsys.close()
	c := &p.compiled
	var tokens []string
	if c.rule != nil {
		tokens = c.rule.Tokens()
	} else {
		tokens = c.pat.Tokens()
	}
	cuts := splitters[c.lang.ID] != nil && !s.whole && !s.wholeRoom && c.pat != nil && c.pat.WithinDeclaration()
	var needs []Need
	runners := map[*rule.Rule]*rule.Runner{}
	for _, f := range p.files {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("search: cancelled: %w", err)
		}
		src, fi, err := s.read(p.fsys, f)
		if err != nil || fi.Size() > s.maxSize || int64(len(src)) > s.maxSize || looksBinary(src) || !hasTokens(src, tokens) {
			continue
		}
		if host := p.hostOf[f]; isNotebook(host) {
			// a notebook's cells are decoded, no byte range of the file:
			// not listed
			continue
		} else if host != nil {
			cs, err := s.hostChunks(ctx, host, c, src, tokens, q.Injections, runners)
			if err != nil {
				return nil, fmt.Errorf("search: %s: %w", f, err)
			}
			if len(cs) > 0 {
				needs = append(needs, Need{Path: f, Size: len(src), Chunks: cs, Host: host.ID})
			}
			continue
		}
		if c.kinds != nil && s.cache.RuledOut(c.kinds, store.KeyOf(s.partition, c.lang, src)) {
			continue
		}
		n := Need{Path: f, Size: len(src), Chunks: []Chunk{{Start: 0, End: len(src)}}}
		if cuts {
			if cs := chunkCuts(c.lang.ID, c.pat, src); len(cs) > 1 {
				n.Chunks = tokenChunks(src, cs, tokens)
			}
		}
		if len(n.Chunks) > 0 { // none: the tokens are in no one declaration
			needs = append(needs, n)
		}
	}
	return needs, nil
}

// hostChunks returns the regions of c's language in the host file src (of
// language host) a search parses: those it lists (inject.HostRegions) that
// regionNeeded keeps. The host is parsed to list them, or its tree taken
// from the store; a parsed tree is not stored.
func (s *Searcher) hostChunks(ctx context.Context, host *grammars.Language, c *compiled, src []byte, tokens []string, injs []inject.Injection, runners map[*rule.Rule]*rule.Runner) ([]Chunk, error) {
	if !inject.MayHold(host.ID, c.lang.ID, injs, src) {
		return nil, nil
	}
	ht := s.cache.Get(store.KeyOf(s.partition, host, src))
	if ht == nil {
		var err error
		if ht, err = store.Parse(ctx, s.parser, host, src); err != nil {
			return nil, err
		}
	}
	rs, _, err := inject.HostRegions(ctx, ht, host.ID, c.lang.ID, injs, runners)
	if err != nil {
		return nil, err
	}
	var cs []Chunk
	for _, r := range rs {
		// what a search parses of the region: a template expression is
		// wrapped
		if _, ok := s.regionNeeded(c.kinds, tokens, c.lang, r.Text(src)); ok {
			cs = append(cs, Chunk{Start: r.Start, End: r.End})
		}
	}
	return cs, nil
}

// tokenChunks returns the chunks of src (cut at starts) that hold every
// token, adjacent ones merged into one, so that fewer, larger parses do the
// same work.
func tokenChunks(src []byte, cuts []cut, tokens []string) []Chunk {
	var cs []Chunk
	for k, c := range cuts {
		start, end := c.at, len(src)
		if k+1 < len(cuts) {
			end = cuts[k+1].at
		}
		if c.skip || !hasTokens(src[start:end], tokens) {
			continue
		}
		// runs of statements are never joined: each is parsed in a block
		// of its own indentation
		if n := len(cs); n > 0 && cs[n-1].End == start && cs[n-1].Member == c.member && !cs[n-1].Statements && !c.stmt {
			cs[n-1].End = end
			continue
		}
		cs = append(cs, Chunk{Start: start, End: end, Member: c.member, Statements: c.stmt})
	}
	return cs
}
