package search

import "context"
import "errors"
import "fmt"
import iofs "io/fs"
import "runtime"
import "sync"
import "sync/atomic"
import "time"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/fsutil"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/matcher/rule"
import "github.com/tetherhq/tether/search/inject"
import "github.com/tetherhq/tether/search/store"

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
	// testHookNoHints, set by a benchmark, leaves out what NoMatch needs
	// of each file, to time what it costs.
	testHookNoHints bool
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
	// and how many matches they held (when the first is, at most every
	// progressEvery after, and when the last is), from the goroutines that
	// search them, in increasing order.
	Progress func(done, total, found int)
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

// progress counts the files a search or scan has done, and the matches
// or findings they held, for Query.Progress and ScanQuery.Progress.
type progress struct {
	fn    func(done, total, found int)
	total int
	mu    sync.Mutex
	done  int
	found int
	last  time.Time
}

// step counts one file done, which held found matches, and tells fn when
// it is due. The count is
// taken under the lock that orders the calls to fn: counted apart, a
// worker that took the first count and was descheduled before telling it
// found the last one told already and dropped its own, so a fast search
// reported only its end.
func (p *progress) step(found int) {
	if p.fn == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.found += found
	n := p.done
	if n != 1 && n != p.total && time.Since(p.last) < progressEvery {
		return
	}
	p.last = time.Now()
	p.fn(n, p.total, p.found)
}

// Search compiles q.Pattern and runs it over q.Paths.
func (s *Searcher) Search(ctx context.Context, q Query) (*Result, error) {
	res, _, err := s.run(ctx, q, nil)
	return res, err
}

// run is the shared walk, prefilter, parse and match loop; with a rewrite
// template it also computes each file's replacements. It returns the jobs
// with what each file gave.
func (s *Searcher) run(ctx context.Context, q Query, rewrite *string) (*Result, []*fileJob, error) {
	s.warm.BeginQuery()
	defer s.warm.EndQuery()
	p, err := s.prepare(ctx, q, rewrite)
	if err != nil {
		return nil, nil, err
	}
	defer p.fsys.close()
	if q.OnMatches != nil && rewrite != nil {
		return nil, nil, errors.New("search: OnMatches is for a search: a rewrite's plan holds its matches")
	}
	jobs := make([]*fileJob, len(p.files))
	for i, f := range p.files {
		jobs[i] = &fileJob{path: f, host: p.hostOf[f]}
	}
	stream, err := s.searchAll(ctx, q, p, jobs, rewrite != nil)
	if err != nil {
		return nil, nil, err
	}
	res := &Result{Pattern: p.pat, Rule: p.rule, SizeCap: s.maxSize, inferred: q.Language == "" && p.rule == nil, Skipped: p.skips}
	res.tally(jobs, q.MaxResults)
	if !s.testHookNoHints {
		res.noteNoMatch(jobs)
	}
	if stream != nil {
		res.Handed, res.handedFiles = stream.handed, stream.handedFiles
	}
	return res, jobs, nil
}

// prepared is a query made ready to search: the file system opened (close
// p.fsys), the query compiled, and the files to search walked.
type prepared struct {
	fsys *files
	compiled
	files []string
	// hostOf is the language of each host file searched for its regions
	// of the query's language (host.go)
	hostOf map[string]*grammars.Language
	// skips counts what the walk skipped
	skips Skips
}

// prepare opens the searcher's file system, compiles q (with a rewrite
// template when rewrite is set) and walks its paths.
func (s *Searcher) prepare(ctx context.Context, q Query, rewrite *string) (*prepared, error) {
	paths := q.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	gl, err := s.compileGlobs(q.Globs)
	if err != nil {
		return nil, err
	}
	if s.rootErr != nil {
		return nil, s.rootErr
	}
	fsys, err := openFiles(s.root)
	if err != nil {
		return nil, err
	}
	p := &prepared{fsys: fsys, hostOf: map[string]*grammars.Language{}}
	if p.compiled, err = s.compile(ctx, fsys, q, paths, gl, rewrite); err == nil {
		p.files, err = s.walkAll(ctx, fsys, paths, p.lang.ID, &p.skips, gl, p.hostOf, inject.HostsOf(q.Injections, p.lang.ID))
	}
	if err != nil {
		fsys.close()
		return nil, err
	}
	return p, nil
}

// searchAll searches the jobs on the searcher's workers, handing each
// file's matches on to q.OnMatches in order as they are done when it is
// set (the streamer returned counts what was handed on). A worker's error
// (the context is done, the pattern is too expensive, OnMatches failed)
// stops them all.
func (s *Searcher) searchAll(ctx context.Context, q Query, p *prepared, jobs []*fileJob, rewrite bool) (*streamer, error) {
	prog := &progress{fn: q.Progress, total: len(jobs)}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var stream *streamer
	if q.OnMatches != nil {
		stream = newStreamer(q.OnMatches, jobs, q.MaxResults)
		defer context.AfterFunc(ctx, stream.cancel)()
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(s.workers, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := p.worker(q.Injections, rewrite)
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) || ctx.Err() != nil {
					return
				}
				if stream != nil && !stream.wait(ctx, i) {
					return
				}
				if err := s.doFile(ctx, p.fsys, w, p.lang, jobs[i], q.MaxResults); err != nil {
					stop(err)
					return
				}
				if stream != nil {
					if err := stream.finish(i); err != nil {
						stop(err)
						return
					}
				}
				prog.step(jobs[i].count)
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		if errors.Is(err, matcher.ErrTooExpensive) {
			return nil, err
		}
		if e, ok := isEmitError(err); ok {
			return nil, e
		}
		return nil, fmt.Errorf("search: cancelled: %w", err)
	}
	return stream, nil
}

// compiled is a query made ready to run: its language, its pattern or
// rule, a rewrite's template, and the kind filter of what it needs.
type compiled struct {
	lang  *grammars.Language
	pat   *matcher.Pattern
	rule  *rule.Rule
	tmpl  *matcher.Template
	kinds *store.KindFilter
}

// compile resolves q's language, once: the language travels from here as
// a *grammars.Language. It compiles q's pattern or rule (and the rewrite
// template when rewrite is set).
func (s *Searcher) compile(ctx context.Context, fsys *files, q Query, paths []string, gl *globs, rewrite *string) (compiled, error) {
	var c compiled
	var err error
	if q.Rule != nil {
		if q.Pattern != "" || q.Selector != "" {
			return c, errors.New("search: give a pattern or a rule, not both")
		}
		given, err := s.ruleLanguage(fsys, q, paths)
		if err != nil {
			return c, err
		}
		if c.rule, err = compileQueryRule(ctx, s.parser, given, q.Rule, rewrite); err != nil {
			return c, err
		}
		// the query's language is searched even where the rule's
		// language key names another
		if c.lang = c.rule.Grammar(); q.Language != "" {
			c.lang = given
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
func (s *Searcher) walkAll(ctx context.Context, fsys *files, paths []string, lang string, skips *Skips, gl *globs, hosts map[string]*grammars.Language, extra []string) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	missing := 0
	for _, p := range paths {
		fs, err := walkHosts(ctx, fsys, p, lang, skips, gl, hosts, extra)
		if err != nil {
			if skipMissing(err, p, len(paths), &missing, skips) {
				continue
			}
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

// skipMissing reports whether the error err of walking p, one of n paths,
// skips it: one of several paths that does not exist is skipped and noted
// in skips, as ast-grep does, while a search none of whose paths exists is
// an error. missing counts the paths skipped so far.
func skipMissing(err error, p string, n int, missing *int, skips *Skips) bool {
	if !errors.Is(err, iofs.ErrNotExist) {
		return false
	}
	if *missing++; n < 2 || *missing >= n {
		return false
	}
	skips.Missing = append(skips.Missing, p)
	return true
}

// ruleLanguage returns the language a query's rule is compiled for
// unless its configuration's language key names one: the query's
// Language, else the extension of a single file. It is nil when the key
// names one and the query none: rule.Compile resolves the key.
func (s *Searcher) ruleLanguage(f *files, q Query, paths []string) (*grammars.Language, error) {
	if q.Language != "" {
		return lookupLang(q.Language)
	}
	if m, ok := q.Rule.(map[string]any); ok {
		if name, _ := m["language"].(string); name != "" {
			return nil, nil
		}
	}
	if len(paths) == 1 {
		if fi, err := f.stat(paths[0]); err == nil && !fi.IsDir() {
			if l, ok := s.pathLang(f, paths[0]); ok {
				return l, nil
			}
		}
	}
	return nil, errors.New("search: a rule needs a language: pass language, or give the rule a language key (go, python, typescript, ...)")
}

// compileQueryRule compiles a query's rule; for a rewrite whose template
// is given (not empty), the template is the rule's fix, which it must not
// have already.
func compileQueryRule(ctx context.Context, p matcher.Parser, lang *grammars.Language, v any, rewrite *string) (*rule.Rule, error) {
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

// anyLanguage, as walk's language, keeps every file of a shipped grammar.
const anyLanguage = "*"
