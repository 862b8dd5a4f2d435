package search

import "bytes"
import "context"
import "fmt"
import "io/fs"
import "slices"
import "strings"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/matcher/rule"
import "github.com/tetherhq/tether/search/inject"
import "github.com/tetherhq/tether/search/store"

// worker is one search goroutine's state.
type worker struct {
	m   *matcher.Matcher
	pat *matcher.Pattern
	// rule matches instead of m and pat for a query with a rule; fix says
	// its fixes are wanted (a rewrite)
	rule *rule.Runner
	fix  bool
	// tokens are the literal tokens every match holds (the prefilter)
	tokens []string
	// kinds rules out files by their stored kind sets; nil: none
	kinds *store.KindFilter
	// tmpl is the rewrite's template; nil for a search
	tmpl *matcher.Template
	// hostTxt hands out the text and lines of the file being searched to
	// the matches of all its chunks and regions (hostText)
	hostTxt *sourceText
	// injs are the query's injections, runners their rules' runners
	injs    []inject.Injection
	runners map[*rule.Rule]*rule.Runner
}

// worker returns one search goroutine's state for the compiled query,
// with the query's injections; rewrite says its replacements are wanted.
func (c *compiled) worker(injs []inject.Injection, rewrite bool) *worker {
	w := &worker{kinds: c.kinds, tmpl: c.tmpl, injs: injs, runners: map[*rule.Rule]*rule.Runner{}}
	if c.rule != nil {
		w.rule, w.fix, w.tokens = rule.NewRunner(c.rule), rewrite, c.rule.Tokens()
	} else {
		w.m, w.pat, w.tokens = matcher.NewMatcher(c.pat), c.pat, c.pat.Tokens()
	}
	return w
}

// fileJob is the per-file work of a search or rewrite.
type fileJob struct {
	path string
	// filled by the worker
	src       []byte
	matches   []Match
	count     int
	held      int64 // the memory matches hold (heldBytes)
	edits     []matcher.Edit
	lang      *grammars.Language // the language of edits' file (not set for a host file's regions)
	parsed    bool
	cacheHit  bool
	prefilter bool
	kindSkip  bool
	unread
	// brokenLine is the 1-based line of the file's first syntax error, 0
	// when none was seen
	brokenLine int
	// host is the file's language when it is a host file searched for its
	// regions of the query's language (host.go), nil otherwise; regions
	// of them were searched, of regionsTotal
	host                  *grammars.Language
	regions, regionsTotal int
	// none: the host file holds no region of the language (not counted)
	none bool
	// cells are the code cells of a notebook (host notebookHost) with a
	// rewrite's edits; brokenCell is the cell of brokenLine
	cells      []*cellJob
	brokenCell *Cell
	// tried counts the nodes of the pattern's root kind matched against,
	// near is the nearest miss among them (NoMatch)
	tried int
	near  *NearMiss
}

// doFile reads, prefilters, parses (or takes from the cache) and matches one
// file. A file that cannot be searched is recorded in j; the error returned
// stops the whole search (the context is done, or the pattern is too
// expensive).
func (s *Searcher) doFile(ctx context.Context, fsys *files, w *worker, lang *grammars.Language, j *fileJob, limit int) error {
	if isNotebook(j.host) {
		return s.doNotebook(ctx, fsys, w, lang, j, limit)
	}
	if j.host != nil {
		return s.doHost(ctx, fsys, w, lang, j, limit)
	}
	// a file as it was when its tree went into the store is neither read
	// nor hashed (the store's stat memo), and one whose kinds rule it out is not read
	// even when its tree is gone; a rewrite always reads what it changes
	if !w.rewrites() {
		if key, ok := s.unchanged(fsys, j.path, lang.Key()); ok {
			if s.cache.RuledOut(w.kinds, key) {
				j.prefilter, j.kindSkip = true, true
				return nil
			}
			if tree := s.cache.Held(key); tree != nil {
				if !hasTokens(tree.Source(), w.tokens) {
					j.prefilter = true
					return nil
				}
				j.parsed, j.cacheHit = true, true
				j.noteBroken(tree, base{})
				return s.collect(ctx, w, lang, j, tree, base{}, limit)
			}
		}
	}
	// one open: the size, the time and the content are the same file's
	at := s.now()
	src, fi, ok := s.readText(fsys, j.path, &j.unread)
	if !ok {
		return nil
	}
	if !hasTokens(src, w.tokens) {
		j.prefilter = true
		return nil
	}
	key := store.KeyOf(s.partition, lang, src)
	s.cache.Remember(j.path, lang.Key(), fi, at, key)
	if s.cache.RuledOut(w.kinds, key) {
		j.prefilter, j.kindSkip = true, true
		return nil
	}
	// a whole-file tree another pattern, run or process left in the store
	// beats parsing chunks
	whole := s.whole || s.wholeRoom && s.cache.Roomy()
	if !whole && w.pat != nil && w.pat.WithinDeclaration() && !s.cache.Holds(key) {
		if splitters[lang.ID] != nil {
			if cuts := chunkCuts(lang.ID, w.pat, src); len(cuts) > 1 {
				if done, err := s.doChunks(ctx, w, lang, j, src, cuts, limit); done || err != nil {
					if err != nil {
						return err
					}
					if w.tmpl != nil && len(j.edits) > 0 {
						// a rewrite must know whether any chunk of the
						// file it changes is broken, not only those parsed
						tree, _, err := s.wholeTree(ctx, lang, key, src)
						if err != nil {
							j.err = err
							return nil
						}
						j.noteBroken(tree, base{})
						return nil
					}
					s.warm.Want(j.path) // whole, for the next pattern
					return nil
				}
			}
		}
	}
	tree, hit, err := s.wholeTree(ctx, lang, key, src)
	if err != nil {
		j.err = err
		return nil
	}
	j.parsed, j.cacheHit = true, hit
	j.noteBroken(tree, base{})
	if err := s.collect(ctx, w, lang, j, tree, base{}, limit); err != nil {
		return err
	}
	if w.rewrites() {
		j.src = src
	}
	return nil
}

// rewrites says the worker computes replacements (a rewrite).
func (w *worker) rewrites() bool { return w.tmpl != nil || w.fix }

// unchanged returns the content key of the file at path when a stat says
// it is as it was when last read (a file never read is not stat'ed);
// memo is the stat memo's language (its id, or a host's and a region's).
func (s *Searcher) unchanged(fsys *files, path, memo string) (store.Key, bool) {
	return s.cache.Unchanged(path, memo, func() (fs.FileInfo, error) { return fsys.stat(path) })
}

// read reads the file at path for a search, within the size cap.
func (s *Searcher) read(fsys *files, path string) ([]byte, fs.FileInfo, error) {
	if s.testHookRead != nil {
		s.testHookRead(path)
	}
	return fsys.readFile(path, s.maxSize)
}

// unread says why a file's content was not matched: skip is "binary",
// "too large" (with its size) or "notebook" (a notebook not searched, why
// says why), or err is why it could not be read.
type unread struct {
	skip string
	size int64
	why  string
	err  error
}

// tally counts a file that was not matched (see unread) in skipped or
// errs, and reports whether it was one.
func (u *unread) tally(path string, skipped *Skips, errs *[]FileError) bool {
	switch {
	case u.skip == "binary":
		skipped.Binary++
		skipped.note(path, "binary")
	case u.skip == "too large":
		skipped.TooLarge++
		skipped.note(path, "over the size cap")
		if len(skipped.Large) < maxSkipExamples {
			skipped.Large = append(skipped.Large, fmt.Sprintf("%s (%s)", path, humanSize(u.size)))
		}
	case u.skip == "notebook":
		skipped.Notebooks++
		if len(skipped.NotebooksNamed) < maxSkipExamples {
			skipped.NotebooksNamed = append(skipped.NotebooksNamed, fmt.Sprintf("%s (%s)", path, u.why))
		}
	case u.err != nil:
		*errs = append(*errs, FileError{Path: path, Err: u.err.Error()})
	default:
		return false
	}
	return true
}

// readText reads the file at path, within the size cap, for a search or a
// scan. It returns false, with why in u, for a file that could not be
// read, is over the cap or looks binary (an empty file's src may be nil).
func (s *Searcher) readText(fsys *files, path string, u *unread) ([]byte, fs.FileInfo, bool) {
	src, fi, err := s.read(fsys, path)
	if err != nil {
		u.err = err
		return nil, nil, false
	}
	if fi.Size() > s.maxSize || int64(len(src)) > s.maxSize {
		u.skip, u.size = "too large", max(fi.Size(), int64(len(src)))
		return nil, nil, false
	}
	if looksBinary(src) {
		u.skip = "binary"
		return nil, nil, false
	}
	return src, fi, true
}

// wholeTree returns a whole file's tree (key is store.KeyOf(s.partition,
// lang, src)) from the store, its disk tier, or a parse, and keeps the
// file's kind set.
func (s *Searcher) wholeTree(ctx context.Context, lang *grammars.Language, key store.Key, src []byte) (*engine.Tree, bool, error) {
	return s.cache.WholeTree(ctx, s.parser, lang, key, src)
}

// base locates a chunk's or a region's tree in its file: byte offset,
// zero-based line, and the byte column of its first line (a region may
// start within a line); host, for a region, is the whole file's source.
type base struct {
	off, line, col int
	host           []byte
	// cell is the notebook cell whose source the tree is: matches are
	// placed in the cell, and a rewrite's edits kept with it
	cell *cellJob
	// lo, hi bound the matches reported, in the tree's own offsets (hi 0:
	// no bound): a wrapped region's wrapper is no part of the host file
	lo, hi int
}

// inCell is the notebook cell of a tree at b, nil outside notebooks.
func (b base) inCell() *Cell {
	if b.cell == nil {
		return nil
	}
	c := b.cell.Cell
	return &c
}

// edits is where the edits of a tree at b go: the file's, or the cell's.
func (b base) edits(j *fileJob) *[]matcher.Edit {
	if b.cell != nil {
		return &b.cell.edits
	}
	return &j.edits
}

// keeps reports whether a match of the tree's nodes a through b lies
// within the bounds.
func (b base) keeps(first, last engine.Node) bool {
	return b.hi == 0 || int(first.StartByte()) >= b.lo && int(last.EndByte()) <= b.hi
}

// doChunks parses only the chunks of src that hold every required token and
// matches in them. It returns false (having recorded nothing) when a chunk
// does not parse cleanly: the caller then parses the whole file. An error
// stops the search, as doFile's does.
func (s *Searcher) doChunks(ctx context.Context, w *worker, lang *grammars.Language, j *fileJob, src []byte, cuts []cut, limit int) (bool, error) {
	type part struct {
		tree *engine.Tree
		b    base
	}
	var parts []part
	hits := 0
	line := 0
	prev := 0
	for _, rg := range tokenChunks(src, cuts, w.tokens) {
		start := rg.Start
		chunk := src[start:rg.End]
		line += bytes.Count(src[prev:start], []byte{'\n'})
		prev = start
		b := base{off: start, line: line}
		if rg.Member || rg.Statements {
			// members wrapped in a class, statements in a function: the
			// wrapper's lines are no part of the file, and its nodes are
			// not reported
			wrap := memberWraps[lang.ID]
			if rg.Statements {
				wrap = stmtWraps[lang.ID]
			}
			chunk = slices.Concat([]byte(wrap[0]), chunk, []byte(wrap[1]))
			b = base{off: start - len(wrap[0]), line: line - strings.Count(wrap[0], "\n"), host: src, lo: len(wrap[0]), hi: len(chunk) - len(wrap[1])}
		}
		ck := store.KeyOf(s.partition, lang, chunk)
		t, hit, err := s.cache.Tree(ctx, s.parser, lang, ck, chunk)
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if err == nil && len(chunk) == len(src) {
			s.cache.NoteKinds(ck, t) // the whole file's tree
		}
		if err != nil || t.HasError() {
			return false, nil
		}
		if hit {
			hits++
		}
		parts = append(parts, part{tree: t, b: b})
	}
	j.parsed = true
	j.cacheHit = hits == len(parts)
	for _, p := range parts {
		if err := s.collect(ctx, w, lang, j, p.tree, p.b, limit); err != nil {
			return true, err
		}
	}
	if w.tmpl != nil {
		j.src = src
	}
	return true, nil
}

func hasTokens(src []byte, tokens []string) bool {
	for _, tok := range tokens {
		if !bytes.Contains(src, []byte(tok)) {
			return false
		}
	}
	return true
}

// looksBinary reports a NUL byte in the first 8 KiB, as git does.
func looksBinary(src []byte) bool {
	return bytes.IndexByte(src[:min(len(src), 8000)], 0) >= 0
}
