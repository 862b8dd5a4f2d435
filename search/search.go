package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetherhq/tether/engine"
	"github.com/tetherhq/tether/internal/fsutil"
	"github.com/tetherhq/tether/matcher"
	"github.com/tetherhq/tether/matcher/rule"
	"github.com/tetherhq/tether/search/inject"
	"github.com/tetherhq/tether/search/store"
)

// Defaults for a Searcher.
const (
	// DefaultMaxResults is how many matches a query returns when it sets none.
	DefaultMaxResults = 50
	// DefaultMaxFileSize is the size cap above which files are skipped. It
	// takes large bundles, as ast-grep does, while a whole parse stays
	// within the engine's memory cap (RATIONALE.md); a file that still
	// needs more is reported as an error that names it.
	DefaultMaxFileSize = 16 << 20
	// MaxMatchText is the default bound of a match's Text and Lines and of
	// each capture's text (Config.MaxText).
	MaxMatchText = 2000
)

// Config configures a Searcher. The zero value uses every core, the default
// size cap and a new cache with the default budget.
type Config struct {
	// Workers is how many files are parsed and matched at once (default GOMAXPROCS).
	Workers int
	// MaxFileSize skips larger files (default DefaultMaxFileSize).
	MaxFileSize int64
	// Cache keeps parsed trees across queries and searchers (default: the
	// process's store.SharedCache).
	Cache *store.Cache
	// WholeFiles turns chunked parsing off: every file that passes the token
	// prefilter is parsed whole (see chunk.go). Results are the same.
	WholeFiles bool
	// WholeWhileRoom parses every file that passes the token prefilter
	// whole while the store is below nine tenths of its budget, and in
	// chunks after: a whole-file tree serves every later pattern, a chunk
	// mostly the pattern that chose it. Results are the same. It makes the
	// first query with a common token much slower; a process that runs
	// WarmUp does better without it, as the warm-up parses whole, next, the
	// files a query parsed in chunks (RATIONALE.md).
	WholeWhileRoom bool
	// Partition, when set, keeps this searcher's trees apart from those of
	// searchers of another partition in the same Cache and its disk tier: a
	// tree is served only to the partition that stored it, so neither a
	// search's speed nor the store's counters (CacheStats, Result.CacheHits)
	// tell one partition, such as a host's tenant, what content another
	// parsed. The memory budget stays one.
	Partition string
	// MaxText bounds a match's Text and Lines and each capture's text, in
	// bytes (default MaxMatchText; Match.Cut says when one was cut). A
	// negative value keeps them whole, as `ast-grep --json` prints them.
	MaxText int
	// Root, when set, is the workspace directory every search is confined
	// to: the walk and every read go through it (os.Root), so a directory
	// swapped for a symbolic link that leads out during a search is refused,
	// not read, and paths outside it are refused. Its symbolic links are
	// resolved once, by NewSearcher. Without it paths are used as they are,
	// for a caller whose user names the paths.
	Root string
}

// Searcher runs structural searches with one parser. It is safe for
// concurrent use; its trees are cached across queries.
type Searcher struct {
	// testHookRead, when set by a test, is told of every file a search reads.
	testHookRead func(path string)
	// testHookListed, when set by a test, is called once a warm-up has
	// listed its files.
	testHookListed func()
	// testHookNow, when set by a test, is the clock a file's read is timed
	// by for the stat memo (store.Cache.Remember).
	testHookNow func() time.Time
	parser      matcher.Parser
	cache       *store.Cache
	workers     int
	maxSize     int64
	whole       bool
	wholeRoom   bool
	maxText     int
	root        *fsutil.Root
	rootErr     error // why Config.Root cannot be used
	partition   string
	warm        *store.Warmer
}

// NewSearcher returns a Searcher that parses with p.
func NewSearcher(p matcher.Parser, cfg Config) *Searcher {
	s := &Searcher{parser: p, cache: cfg.Cache, workers: cfg.Workers, maxSize: cfg.MaxFileSize, whole: cfg.WholeFiles, wholeRoom: cfg.WholeWhileRoom, maxText: cfg.MaxText, partition: cfg.Partition}
	if cfg.Root != "" {
		if s.root, s.rootErr = fsutil.NewRoot(cfg.Root); s.rootErr != nil {
			s.rootErr = fmt.Errorf("search: cannot confine searches to the workspace: %w", s.rootErr)
		}
	}
	if s.cache == nil {
		s.cache = store.SharedCache()
	}
	s.warm = store.NewWarmer()
	if s.workers <= 0 {
		s.workers = runtime.GOMAXPROCS(0)
	}
	if s.maxSize <= 0 {
		s.maxSize = DefaultMaxFileSize
	}
	if s.maxText == 0 {
		s.maxText = MaxMatchText
	}
	return s
}

// Cache returns the searcher's tree cache.
func (s *Searcher) Cache() *store.Cache { return s.cache }

// now is the time a file's read is timed by for the stat memo.
func (s *Searcher) now() time.Time {
	if s.testHookNow != nil {
		return s.testHookNow()
	}
	return time.Now()
}

// Query is one structural search.
type Query struct {
	// Pattern is the code shape to find, with metavariables.
	Pattern string
	// Language is a grammar id; when empty it is inferred from the extension
	// of a single file, or for directories from the one language their files
	// are in (or the one of several the pattern parses in).
	Language string
	// Selector, when set, is the kind of the node of Pattern that is
	// matched, Pattern being the code around it (matcher.CompileSelector), as
	// ast-grep's --selector.
	Selector string
	// Paths are files or directories to search (default ".").
	Paths []string
	// MaxResults bounds the returned matches; 0 means no limit. The total is
	// counted regardless.
	MaxResults int
	// Globs include (GLOB) or exclude (!GLOB) files and directories under
	// the Paths, as ast-grep's --globs: gitignore-style globs relative to
	// the working directory, the later winning, beating ignore files and
	// the hidden rule; given any include, only files an include matches
	// are searched. A path named in Paths is searched whatever they say.
	Globs []string
	// Rule, when set, is matched instead of Pattern: an ast-grep rule
	// object, or a whole rule configuration (rule with constraints, utils,
	// transform, fix, rewriters), as decoded from JSON or YAML. Its
	// language is Language, else the configuration's language key, else
	// the extension of a single file. A rewrite uses the rule's fix, or
	// the rewrite template given when the rule has none.
	Rule any
	// IncludeErrors lets a rewrite change files whose tree has a syntax
	// error; without it they are left out of the plan and named in
	// Plan.LeftOut. A search reports their matches either way.
	IncludeErrors bool
	// Injections are a project's languageInjections (Project.Injections,
	// LoadInjections): more host languages and regions than the
	// grammars' own (package inject).
	Injections []inject.Injection
	// Progress, when set, is told how many of the files to search are done
	// (when the first is, at most every progressEvery after, and when the
	// last is), from the goroutines that search them, in increasing order.
	Progress func(done, total int)
	// OnMatches, when set, is handed each file's matches (of a search, not
	// a rewrite) in the order Result.Matches lists them, as soon as that
	// file and every one before it are searched, and the search keeps
	// none: Result.Matches stays empty, Result.Handed counts what was
	// handed on (at most MaxResults when set), Total still counts every
	// match. The matches waiting for a file before them to be searched are
	// bounded, so a search's memory does not grow with the number of
	// matches. An error it returns stops the search, which returns it.
	OnMatches func(ms []Match) error
}

// progressEvery is how often Query.Progress is told at most.
const progressEvery = 250 * time.Millisecond

// progress counts the files a search has done for Query.Progress.
type progress struct {
	fn    func(done, total int)
	total int
	mu    sync.Mutex
	done  int
	last  time.Time
}

// step counts one file done and tells fn when it is due. The count is
// taken under the lock that orders the calls to fn: counted apart, a
// worker that took the first count and was descheduled before telling it
// found the last one told already and dropped its own, so a fast search
// reported only its end.
func (p *progress) step() {
	if p.fn == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	n := p.done
	if n != 1 && n != p.total && time.Since(p.last) < progressEvery {
		return
	}
	p.last = time.Now()
	p.fn(n, p.total)
}

// Position is a 1-based line and 1-based byte column.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Span is where a match or capture lies: 1-based positions and byte offsets
// (end exclusive).
type Span struct {
	Start     Position `json:"start"`
	End       Position `json:"end"`
	StartByte int      `json:"startByte"`
	EndByte   int      `json:"endByte"`
}

// Part is one node of a $$$ capture.
type Part struct {
	Text string `json:"text"`
	Span Span   `json:"span"`
}

// Binding is what one metavariable captured.
type Binding struct {
	Name  string `json:"name"`
	Multi bool   `json:"multi,omitempty"`
	Text  string `json:"text"`
	// Span is the capture's extent; an empty $$$ capture has a zero Span.
	Span Span `json:"span"`
	// Parts are a $$$ capture's nodes, separators included, as ast-grep lists them.
	Parts []Part `json:"parts,omitempty"`
}

// Match is one place a pattern matched.
type Match struct {
	Path     string `json:"file"`
	Language string `json:"language"`
	Span     Span   `json:"span"`
	// Text is the matched source, cut at Config.MaxText bytes (Cut says so).
	Text string `json:"text"`
	// Lines are the whole source lines the match spans, cut like Text.
	Lines string `json:"lines"`
	// Cut says that Text, Lines or the text of a capture was cut.
	Cut      bool      `json:"cut,omitempty"`
	Bindings []Binding `json:"bindings,omitempty"`
	// Context names the reading of the pattern that matched ("type",
	// "member"), when the pattern has several (matcher.Pattern.Contexts).
	Context string `json:"context,omitempty"`
	// Replacement is the text a rewrite puts in place of the match; nil when
	// there was no rewrite or an enclosing match's replacement won.
	Replacement *string `json:"replacement,omitempty"`
}

// FileError is a file that could not be searched.
type FileError struct {
	Path string `json:"file"`
	Err  string `json:"error"`
}

// Result is the outcome of a search. Total counts every match even when
// Matches is cut at MaxResults; Searched counts the files looked at (read and
// either parsed or ruled out by the token prefilter), so "no matches in N
// files" is distinct from files that could not be searched (Errors).
type Result struct {
	Pattern *matcher.Pattern `json:"-"`
	// Rule is the compiled rule of a query with Rule (Pattern is nil then).
	Rule    *rule.Rule `json:"-"`
	Matches []Match    `json:"matches"`
	Total   int        `json:"total"`
	// Handed counts the matches handed to Query.OnMatches.
	Handed int `json:"handed,omitempty"`
	// handedFiles counts the files whose matches were handed on.
	handedFiles int
	Searched    int `json:"searched"`
	Parsed      int `json:"parsed"`
	Prefiltered int `json:"prefiltered"`
	// KindSkipped counts the files among Prefiltered whose node kinds, as the
	// tree store knew them, lack what the pattern needs (store/kinds.go).
	KindSkipped int   `json:"kindSkipped,omitempty"`
	CacheHits   int   `json:"cacheHits"`
	Skipped     Skips `json:"skipped"`
	// SizeCap is the size above which files were skipped (Skipped.Large).
	SizeCap int64       `json:"sizeCap,omitempty"`
	Errors  []FileError `json:"errors,omitempty"`
	// BrokenCount counts the searched files whose tree has a syntax error
	// (an ERROR or MISSING node); Broken names the first MaxBrokenListed
	// with the line of their first error. A file parsed in chunks is
	// known broken when a chunk that holds the pattern's tokens is, or,
	// in a rewrite, when it has a replacement.
	BrokenCount int          `json:"syntaxErrorFiles,omitempty"`
	Broken      []BrokenFile `json:"syntaxErrors,omitempty"`
	// RegionsCutCount counts the host files that embed more regions of the
	// language than inject.MaxRegionsPerFile (only the first were searched);
	// RegionsCut names the first MaxBrokenListed.
	RegionsCutCount int          `json:"regionsCutFiles,omitempty"`
	RegionsCut      []RegionsCut `json:"regionsCut,omitempty"`
	// inferred: the query's language was not given but inferred
	inferred bool
}

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
	// injs are the query's injections, runners their rules' runners
	injs    []inject.Injection
	runners map[*rule.Rule]*rule.Runner
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
	lang      string // the language of edits' file (not set for a host file's regions)
	parsed    bool
	cacheHit  bool
	prefilter bool
	kindSkip  bool
	unread
	// brokenLine is the 1-based line of the file's first syntax error, 0
	// when none was seen
	brokenLine int
	// host is the file's language when it is a host file searched for its
	// regions of the query's language (host.go), "" otherwise; regions
	// of them were searched, of regionsTotal
	host                  string
	regions, regionsTotal int
	// none: the host file holds no region of the language (not counted)
	none bool
}

// anyLanguage, as walk's language, keeps every file of a shipped grammar.
const anyLanguage = "*"

// resolveLanguage returns the language to search paths with: lang when given;
// else the language of a single file; else, for directories, the one language
// their files are written in, or the one language of several that the pattern
// parses in. Several it parses in is a *LanguagesError; anything else is an
// error that names the candidates.
func (s *Searcher) resolveLanguage(ctx context.Context, f *files, lang, pattern string, paths []string, gl *globs) (string, error) {
	if lang != "" {
		return canonicalLang(lang)
	}
	if len(paths) == 1 {
		if fi, err := f.stat(paths[0]); err == nil && !fi.IsDir() {
			if l := langForPath(paths[0]); l != "" {
				return l, nil
			}
			return "", fmt.Errorf("search: no language for %s: its extension is not a known grammar's; pass language", paths[0])
		}
	}
	counts := map[string]int{}
	for _, p := range paths {
		var sk Skips
		found, err := walk(ctx, f, p, anyLanguage, &sk, gl)
		if err != nil {
			return "", fmt.Errorf("search: cannot search %s: %w", p, err)
		}
		for _, file := range found {
			counts[langForPath(file)]++
		}
	}
	if len(counts) == 0 {
		return "", fmt.Errorf("search: no source file of a shipped grammar under %s (hidden directories and ignored files aside): check the path, or pass language", strings.Join(paths, ", "))
	}
	langs := make([]string, 0, len(counts))
	for l := range counts {
		langs = append(langs, l)
	}
	sort.Slice(langs, func(i, j int) bool {
		if counts[langs[i]] != counts[langs[j]] {
			return counts[langs[i]] > counts[langs[j]]
		}
		return langs[i] < langs[j]
	})
	if len(langs) == 1 {
		return langs[0], nil
	}
	var parses, held []string
	for _, l := range langs {
		held = append(held, fmt.Sprintf("%s (%d %s)", l, counts[l], plural(counts[l], "file", "files")))
		if _, err := matcher.Compile(ctx, s.parser, l, pattern); err == nil {
			parses = append(parses, l)
		} else if !errors.Is(err, matcher.ErrUnparseable) {
			return "", err
		}
	}
	if len(parses) > 1 {
		// A language whose grammar takes any text (markdown's: every text
		// is a paragraph) parses every pattern; it counts only when no
		// language with a syntax of its own does.
		var strict []string
		for _, l := range parses {
			if !takesAnyText[l] {
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
		return "", fmt.Errorf("%w in any language found under %s: %s; check its syntax, or pass language", matcher.ErrUnparseable, strings.Join(paths, ", "), strings.Join(held, ", "))
	}
	found := make([]LangCount, len(langs))
	for i, l := range langs {
		found[i] = LangCount{Language: l, Files: counts[l]}
	}
	return "", &LanguagesError{Paths: paths, Found: found, Parses: parses}
}

// Search compiles q.Pattern and runs it over q.Paths.
func (s *Searcher) Search(ctx context.Context, q Query) (*Result, error) {
	res, _, err := s.run(ctx, q, nil)
	return res, err
}

// run is the shared walk, prefilter, parse and match loop; with a rewrite
// template it also computes each file's replacements.
func (s *Searcher) run(ctx context.Context, q Query, rewrite *string) (*Result, []*fileJob, error) {
	s.warm.BeginQuery()
	defer s.warm.EndQuery()
	paths := q.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	gl, err := s.compileGlobs(q.Globs)
	if err != nil {
		return nil, nil, err
	}
	if s.rootErr != nil {
		return nil, nil, s.rootErr
	}
	fsys, err := openFiles(s.root)
	if err != nil {
		return nil, nil, err
	}
	defer fsys.close()
	c, err := s.compile(ctx, fsys, q, paths, gl, rewrite)
	if err != nil {
		return nil, nil, err
	}
	lang, pat, rl, tmpl, kinds := c.lang, c.pat, c.rule, c.tmpl, c.kinds
	res := &Result{Pattern: pat, Rule: rl, SizeCap: s.maxSize, inferred: q.Language == "" && rl == nil}
	hostOf := map[string]string{}
	files, err := s.walkAll(ctx, fsys, paths, lang, &res.Skipped, gl, hostOf, inject.HostsOf(q.Injections, lang))
	if err != nil {
		return nil, nil, err
	}
	jobs := make([]*fileJob, len(files))
	for i, f := range files {
		jobs[i] = &fileJob{path: f, host: hostOf[f]}
	}
	perFile := q.MaxResults
	prog := &progress{fn: q.Progress, total: len(jobs)}
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := min(s.workers, len(jobs))
	// a worker that runs out of the matching budget stops the others
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var stream *streamer
	if q.OnMatches != nil {
		if rewrite != nil {
			return nil, nil, errors.New("search: OnMatches is for a search: a rewrite's plan holds its matches")
		}
		stream = newStreamer(q.OnMatches, jobs, q.MaxResults)
		defer context.AfterFunc(ctx, stream.cancel)()
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{kinds: kinds, tmpl: tmpl, injs: q.Injections, runners: map[*rule.Rule]*rule.Runner{}}
			if rl != nil {
				w.rule, w.fix, w.tokens = rule.NewRunner(rl), rewrite != nil, rl.Tokens()
			} else {
				w.m, w.pat, w.tokens = matcher.NewMatcher(pat), pat, pat.Tokens()
			}
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) || ctx.Err() != nil {
					return
				}
				if stream != nil && !stream.wait(ctx, i) {
					return
				}
				if err := s.doFile(ctx, fsys, w, lang, jobs[i], perFile); err != nil {
					stop(err)
					return
				}
				if stream != nil {
					if err := stream.finish(i); err != nil {
						stop(err)
						return
					}
				}
				prog.step()
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		if errors.Is(err, matcher.ErrTooExpensive) {
			return nil, nil, err
		}
		if e, ok := isEmitError(err); ok {
			return nil, nil, e
		}
		return nil, nil, fmt.Errorf("search: cancelled: %w", err)
	}
	for _, j := range jobs {
		if j.tally(j.path, &res.Skipped, &res.Errors) || j.none {
			continue
		}
		res.Searched++
		if j.prefilter {
			res.Prefiltered++
		}
		if j.kindSkip {
			res.KindSkipped++
		}
		if j.parsed {
			res.Parsed++
		}
		if j.cacheHit {
			res.CacheHits++
		}
		if j.brokenLine != 0 {
			res.addBroken(j.path, j.brokenLine)
		}
		if j.regionsTotal > j.regions {
			res.RegionsCutCount++
			if len(res.RegionsCut) < MaxBrokenListed {
				res.RegionsCut = append(res.RegionsCut, RegionsCut{Path: j.path, Regions: j.regionsTotal, Searched: j.regions})
			}
		}
		res.Total += j.count
		for _, mt := range j.matches { // none when streamed
			if q.MaxResults > 0 && len(res.Matches) >= q.MaxResults {
				break
			}
			res.Matches = append(res.Matches, mt)
		}
	}
	if stream != nil {
		res.Handed, res.handedFiles = stream.handed, stream.handedFiles
	}
	return res, jobs, nil
}

// compiled is a query made ready to run: its language, its pattern or
// rule, a rewrite's template, and the kind filter of what it needs.
type compiled struct {
	lang  string
	pat   *matcher.Pattern
	rule  *rule.Rule
	tmpl  *matcher.Template
	kinds *store.KindFilter
}

// compile resolves q's language and compiles its pattern or rule (and the
// rewrite template when rewrite is set).
func (s *Searcher) compile(ctx context.Context, fsys *files, q Query, paths []string, gl *globs, rewrite *string) (compiled, error) {
	var c compiled
	var err error
	if q.Rule != nil {
		if q.Pattern != "" || q.Selector != "" {
			return c, errors.New("search: give a pattern or a rule, not both")
		}
		if c.lang, err = s.ruleLanguage(fsys, q, paths); err != nil {
			return c, err
		}
		if c.rule, err = compileQueryRule(ctx, s.parser, c.lang, q.Rule, rewrite); err != nil {
			return c, err
		}
		c.kinds = store.NewKindFilter(ctx, s.parser, [][][]string{{c.rule.Kinds()}}, c.lang)
		return c, nil
	}
	if c.lang, err = s.resolveLanguage(ctx, fsys, q.Language, q.Pattern, paths, gl); err != nil {
		return c, err
	}
	if c.pat, err = CompileQuery(ctx, s.parser, c.lang, q); err != nil {
		return c, err
	}
	if rewrite != nil {
		c.tmpl = matcher.NewTemplate(c.pat, *rewrite)
	}
	c.kinds = store.NewKindFilter(ctx, s.parser, c.pat.NeededKinds(), c.lang)
	return c, nil
}

// walkAll returns the files of lang under paths, each once, in walk order;
// given hosts (not nil), also the host files that may embed lang, recorded
// in hosts with their own language (walkHosts).
func (s *Searcher) walkAll(ctx context.Context, fsys *files, paths []string, lang string, skips *Skips, gl *globs, hosts map[string]string, extra []string) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	for _, p := range paths {
		fs, err := walkHosts(ctx, fsys, p, lang, skips, gl, hosts, extra)
		if err != nil {
			return nil, fmt.Errorf("search: cannot search %s: %w", p, err)
		}
		for _, f := range fs {
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	return files, nil
}

// doFile reads, prefilters, parses (or takes from the cache) and matches one
// file. A file that cannot be searched is recorded in j; the error returned
// stops the whole search (the context is done, or the pattern is too
// expensive).
func (s *Searcher) doFile(ctx context.Context, fsys *files, w *worker, lang string, j *fileJob, limit int) error {
	if j.host != "" {
		return s.doHost(ctx, fsys, w, lang, j, limit)
	}
	// a file as it was when its tree went into the store is neither read
	// nor hashed (the store's stat memo), and one whose kinds rule it out is not read
	// even when its tree is gone; a rewrite always reads what it changes
	if !w.rewrites() {
		if key, ok := s.unchanged(fsys, j.path, lang); ok {
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
	s.cache.Remember(j.path, lang, fi, at, key)
	if s.cache.RuledOut(w.kinds, key) {
		j.prefilter, j.kindSkip = true, true
		return nil
	}
	// a whole-file tree another pattern, run or process left in the store
	// beats parsing chunks
	whole := s.whole || s.wholeRoom && s.cache.Roomy()
	if !whole && w.pat != nil && w.pat.WithinDeclaration() && !s.cache.Holds(key) {
		if split := splitters[lang]; split != nil {
			if starts := split(src); len(starts) > 1 {
				if done, err := s.doChunks(ctx, w, lang, j, src, starts, limit); done || err != nil {
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
// it is as it was when last read (a file never read is not stat'ed).
func (s *Searcher) unchanged(fsys *files, path, lang string) (store.Key, bool) {
	return s.cache.Unchanged(path, lang, func() (fs.FileInfo, error) { return fsys.stat(path) })
}

// read reads the file at path for a search, within the size cap.
func (s *Searcher) read(fsys *files, path string) ([]byte, fs.FileInfo, error) {
	if s.testHookRead != nil {
		s.testHookRead(path)
	}
	return fsys.readFile(path, s.maxSize)
}

// unread says why a file's content was not matched: skip is "binary" or
// "too large" (with its size), or err is why it could not be read.
type unread struct {
	skip string
	size int64
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
func (s *Searcher) wholeTree(ctx context.Context, lang string, key store.Key, src []byte) (*engine.Tree, bool, error) {
	return s.cache.WholeTree(ctx, s.parser, lang, key, src)
}

// base locates a chunk's or a region's tree in its file: byte offset,
// zero-based line, and the byte column of its first line (a region may
// start within a line); host, for a region, is the whole file's source.
type base struct {
	off, line, col int
	host           []byte
	// lo, hi bound the matches reported, in the tree's own offsets (hi 0:
	// no bound): a wrapped region's wrapper is no part of the host file
	lo, hi int
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
func (s *Searcher) doChunks(ctx context.Context, w *worker, lang string, j *fileJob, src []byte, starts []int, limit int) (bool, error) {
	type part struct {
		tree *engine.Tree
		b    base
	}
	var parts []part
	hits := 0
	line := 0
	prev := 0
	for _, rg := range tokenChunks(src, starts, w.tokens) {
		start := rg.Start
		chunk := src[start:rg.End]
		line += bytes.Count(src[prev:start], []byte{'\n'})
		prev = start
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
		parts = append(parts, part{tree: t, b: base{off: start, line: line}})
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

// collect matches in one tree (a file or a chunk of it at b) and records the
// matches, their count and, for a rewrite, the replacements. It fails when
// the context is done or matching runs out of its budget (a
// *matcher.BudgetError naming the place).
func (s *Searcher) collect(ctx context.Context, w *worker, lang string, j *fileJob, tree *engine.Tree, b base, limit int) error {
	if w.rule != nil {
		return s.collectRule(ctx, w, lang, j, tree, b, limit)
	}
	raws, err := w.m.Find(ctx, tree)
	if be := (*matcher.BudgetError)(nil); errors.As(err, &be) {
		be.Path = j.path
		be.At.Row += uint32(b.line)
		return be
	}
	if err != nil {
		return err
	}
	if b.hi != 0 {
		raws = slices.DeleteFunc(raws, func(m matcher.Match) bool { return !b.keeps(m.Nodes[0], m.Nodes[len(m.Nodes)-1]) })
	}
	j.count += len(raws)
	first := len(j.matches)
	txt := &sourceText{src: tree.Source(), max: s.maxText}
	for i := range raws {
		if limit > 0 && len(j.matches) >= limit {
			break
		}
		j.matches = append(j.matches, toMatch(j.path, lang, &raws[i], b, txt))
		j.held += heldBytes(&j.matches[len(j.matches)-1], txt.shared())
	}
	j.held += txt.size()
	if w.tmpl == nil {
		return nil
	}
	edits := w.tmpl.Edits(tree.Source(), raws)
	if j.host == "" {
		j.lang = lang
	}
	for k := range edits {
		edits[k].Start += b.off
		edits[k].End += b.off
	}
	j.edits = append(j.edits, edits...)
	type span struct{ start, end int }
	applied := make(map[span]string, len(edits))
	for _, e := range edits {
		if _, dup := applied[span{e.Start, e.End}]; !dup {
			applied[span{e.Start, e.End}] = e.Text
		}
	}
	for k := first; k < len(j.matches); k++ {
		mt := &j.matches[k]
		if txt, ok := applied[span{mt.Span.StartByte, mt.Span.EndByte}]; ok {
			mt.Replacement = &txt
		} else {
			// a match inside one that is replaced: its own replacement is
			// still reported (ast-grep's JSON has one for every match), though
			// only the outermost is applied
			txt := w.tmpl.Expand(tree.Source(), &raws[k-first])
			mt.Replacement = &txt
		}
	}
	return nil
}

// collectRule is collect for a rule: its matches, and for a rewrite each
// match's fix; of fixes that overlap the first (outermost) is applied, as
// for a pattern's rewrite.
func (s *Searcher) collectRule(ctx context.Context, w *worker, lang string, j *fileJob, tree *engine.Tree, b base, limit int) error {
	rms, err := w.rule.Find(ctx, tree)
	if err != nil {
		return fmt.Errorf("search: %s: %w", j.path, err)
	}
	if b.hi != 0 {
		rms = slices.DeleteFunc(rms, func(m rule.Match) bool { return !b.keeps(m.Nodes[0], m.Nodes[len(m.Nodes)-1]) })
	}
	j.count += len(rms)
	last := -1
	txt := &sourceText{src: tree.Source(), max: s.maxText}
	defer func() { j.held += txt.size() }()
	for i := range rms {
		m := &rms[i]
		// the secondary capture is for a scan's labels, not a search's
		// captures
		caps := m.Captures[:0:0]
		for _, c := range m.Captures {
			if c.Name != rule.Secondary {
				caps = append(caps, c)
			}
		}
		raw := m.Match
		raw.Captures = caps
		var mt Match
		keep := limit <= 0 || len(j.matches) < limit
		if keep {
			mt = toMatch(j.path, lang, &raw, b, txt)
		}
		if w.fix {
			if e, ok := w.rule.Fix(m); ok {
				if keep {
					txt := e.Text
					mt.Replacement = &txt
				}
				if e.Start >= last {
					e.Start += b.off
					e.End += b.off
					j.edits = append(j.edits, e)
					last = e.End - b.off
				}
			}
		}
		if keep {
			j.matches = append(j.matches, mt)
			j.held += heldBytes(&mt, txt.shared())
		}
	}
	return nil
}

// ruleLanguage returns the language of a query with a rule: its
// Language, the rule configuration's language key, or the extension of a
// single file.
func (s *Searcher) ruleLanguage(f *files, q Query, paths []string) (string, error) {
	lang := q.Language
	if lang == "" {
		if m, ok := q.Rule.(map[string]any); ok {
			lang, _ = m["language"].(string)
		}
	}
	if lang != "" {
		return canonicalLang(lang)
	}
	if len(paths) == 1 {
		if fi, err := f.stat(paths[0]); err == nil && !fi.IsDir() {
			if l := langForPath(paths[0]); l != "" {
				return l, nil
			}
		}
	}
	return "", errors.New("search: a rule needs a language: pass language, or give the rule a language key (go, python, typescript, ...)")
}

// compileQueryRule compiles a query's rule; for a rewrite whose template
// is given (not empty), the template is the rule's fix, which it must not
// have already.
func compileQueryRule(ctx context.Context, p matcher.Parser, lang string, v any, rewrite *string) (*rule.Rule, error) {
	if rewrite != nil && *rewrite != "" {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: rule must be an object", rule.ErrInvalid)
		}
		if _, cfg := m["rule"]; !cfg {
			m = map[string]any{"rule": m}
		}
		if _, has := m["fix"]; has {
			return nil, fmt.Errorf("%w: the rule has a fix and a rewrite is given too: give one of them", rule.ErrInvalid)
		}
		c := make(map[string]any, len(m)+1)
		for k, x := range m {
			c[k] = x
		}
		c["fix"] = *rewrite
		v = c
	}
	r, err := rule.Compile(ctx, p, lang, v, rule.Options{})
	if err != nil {
		return nil, err
	}
	if rewrite != nil && !r.HasFix {
		return nil, fmt.Errorf("%w: a rewrite with a rule needs the rule's fix or a rewrite template", rule.ErrInvalid)
	}
	return r, nil
}

// looksBinary reports a NUL byte in the first 8 KiB, as git does.
func looksBinary(src []byte) bool {
	return bytes.IndexByte(src[:min(len(src), 8000)], 0) >= 0
}

func pos(p engine.Point) Position { return Position{Line: int(p.Row) + 1, Column: int(p.Column) + 1} }

func nodeSpan(a, b engine.Node, at base) Span {
	sp := Span{
		Start: pos(a.Range().StartPoint), End: pos(b.Range().EndPoint),
		StartByte: int(a.StartByte()) + at.off, EndByte: int(b.EndByte()) + at.off,
	}
	if at.col != 0 {
		if sp.Start.Line == 1 {
			sp.Start.Column += at.col
		}
		if sp.End.Line == 1 {
			sp.End.Column += at.col
		}
	}
	sp.Start.Line += at.line
	sp.End.Line += at.line
	return sp
}

// bound cuts s at max bytes (on a character boundary); max < 0 keeps it whole.
func bound(s []byte, max int) (string, bool) {
	if max < 0 || len(s) <= max {
		return string(s), false
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return string(s[:cut]), true
}

// toMatch reports a match found in a tree, a file or a chunk of it at at,
// with its text and captures as txt (the tree's source) hands them out.
func toMatch(path, lang string, r *matcher.Match, at base, txt *sourceText) Match {
	first, last := r.Nodes[0], r.Nodes[len(r.Nodes)-1]
	m := Match{Path: path, Language: lang, Span: nodeSpan(first, last, at), Context: r.Reading}
	var cut1, cut2 bool
	ms, me := int(first.StartByte()), int(last.EndByte())
	m.Text, cut1 = txt.text(ms, me)
	if at.host != nil {
		// a region's lines are the host file's
		ht := txt.hostText(at.host)
		ls, le := ht.lines(ms+at.off, me+at.off)
		m.Lines, cut2 = ht.text(ls, le)
	} else {
		ls, le := txt.lines(ms, me)
		m.Lines, cut2 = txt.text(ls, le)
	}
	m.Cut = cut1 || cut2
	for _, b := range r.Captures {
		bd := Binding{Name: b.Name, Multi: b.Multi}
		if len(b.Nodes) > 0 {
			bd.Span = nodeSpan(b.Nodes[0], b.Nodes[len(b.Nodes)-1], at)
			var cut bool
			bd.Text, cut = txt.text(captureSpan(b.Nodes))
			m.Cut = m.Cut || cut
		}
		if b.Multi {
			bd.Parts = []Part{}
			for _, n := range b.Nodes {
				pt, cut := txt.text(int(n.StartByte()), int(n.EndByte()))
				m.Cut = m.Cut || cut
				bd.Parts = append(bd.Parts, Part{Text: pt, Span: nodeSpan(n, n, at)})
			}
		}
		m.Bindings = append(m.Bindings, bd)
	}
	sort.Slice(m.Bindings, func(i, j int) bool { return m.Bindings[i].Name < m.Bindings[j].Name })
	return m
}

// captureSpan returns the byte range a capture's nodes span, from the first
// to the last, or over all of them when they are out of order (as
// matcher.Capture.Text takes it).
func captureSpan(ns []engine.Node) (int, int) {
	start, end := ns[0].StartByte(), ns[len(ns)-1].EndByte()
	if start > end {
		for _, n := range ns {
			start, end = min(start, n.StartByte()), max(end, n.EndByte())
		}
	}
	return int(start), int(end)
}

// takesAnyText are the languages whose grammar parses any text: in
// markdown every text is at least a paragraph. (YAML takes most text as a
// plain scalar too, but a pattern there still has a syntax to check.)
var takesAnyText = map[string]bool{"markdown": true}
