package tools

import "context"
import "errors"
import "fmt"
import "path/filepath"
import "strings"
import "sync/atomic"

import "github.com/google/jsonschema-go/jsonschema"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/stage"

// Bounds of the structural tools' results.
const (
	// astGrepDefaultMax is how many matches ast_grep shows when max_results is not given.
	astGrepDefaultMax = search.DefaultMaxResults
	// astEditDiffLines bounds the diff ast_edit shows, and a page of resolve show.
	astEditDiffLines = 400
	// astEditDiffBytes bounds the text of that page too (a page shows one
	// line at least), so that a preview with its notes stays under 8 KB.
	astEditDiffBytes = 5 << 10
	// stagedFilesListed is how many of a staged edit's files the text
	// lists with their counts (the structured part lists every one).
	stagedFilesListed = 40
	// AstEditMaxStaged is how many unresolved edits a run keeps; staging one
	// more drops the oldest, and the result says so (see also
	// stage.MaxBytes).
	AstEditMaxStaged = stage.MaxEdits
	// astGrepMaxText bounds ast_grep's text.
	astGrepMaxText = 64 << 10
	// astGrepMaxStart bounds ast_grep's start: the search keeps every match
	// before the page.
	astGrepMaxStart = 10000
	// astGrepMaxResults bounds ast_grep's max_results: the search keeps the
	// matches it shows (each with texts of up to search.MaxMatchText bytes
	// a part), and a result of at most astGrepMaxText shows fewer than this.
	astGrepMaxResults = 5000
)

func init() {
	addFamily(family{
		name:  "astgrep",
		wired: func(cfg *Config) bool { return cfg.Search.Parser != nil },
		register: func(r *Run) (func() error, error) {
			return nil, r.reg.Register(astGrepTools(r)...)
		},
		tools: func() []Tool { return (&structural{}).tools() },
	})
}

// structural holds one run's search state: the searcher (and its tree cache)
// and the staged edits.
type structural struct {
	run    *Run
	search *search.Searcher
	stage  *stage.Stager

	// warmNoted is set once an answer said the warm-up was still parsing:
	// the note is given once per run, the structured Index every time.
	warmNoted atomic.Bool
}

// warmUp starts the searcher's warm-up over the working directory; the run's
// Close stops it and waits for it.
func (s *structural) warmUp() {
	real, _, err := s.run.root.Resolve(".")
	if err != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.search.WarmUp(ctx, real)
	}()
	s.run.addStatus(func() string { return s.search.WarmStatus().String() })
	s.run.OnClose("ast_grep warm-up", func() error {
		cancel()
		<-done
		return nil
	})
}

// astGrepTools returns ast_grep (read) and ast_edit (write) bound to the
// run's parser, working directory and staged edits (docs/search.md);
// resolve (tools/resolve.go) applies what ast_edit stages.
func astGrepTools(r *Run) []Tool {
	s := &structural{
		run:    r,
		search: search.NewSearcher(r.cfg.Search.Parser, search.Config{Root: r.root.Dir(), Partition: r.cfg.Search.Partition}),
		stage:  r.stager(),
	}
	if r.cfg.Search.WarmUp {
		s.warmUp()
	}
	return s.tools()
}

// tools returns the structural tools bound to s.
func (s *structural) tools() []Tool {
	return []Tool{
		Typed(Tool{
			Name: "ast_grep",
			Tier: TierRead,
			Description: "Find code by shape (structural search with tree-sitter). The pattern is code in the target language: " +
				"$NAME matches any one node, $$$NAME any run of sibling nodes (arguments, statements; also none), $_ any node " +
				"without binding. A metavariable used twice must capture the same text. Whitespace, line breaks and comments " +
				"do not matter, and text inside strings or comments never matches. Example: fmt.Errorf($$$ARGS) " +
				"with language go. Returns file:line:column ranges, the matched lines and the captures; output \"lines\" (default) " +
				"shows a match of more than 3 lines by its first line and a $$$ capture of more than one line by its line count, " +
				"\"full\" shows every match whole, \"captures\" only where each match is and what it captured. " +
				"max_results (default 50) matches are shown, start (up to 10000) pages past them. Without language, a directory holding several languages the pattern parses " +
				"in is searched in each, and the result says which matched. Instead of pattern, rule takes an ast-grep rule object for what a pattern cannot say " +
				"(inside, has, follows, precedes, not, any, all; e.g. a Lock() call not followed by defer Unlock()). " +
				"paths (a list) and globs (include GLOB, exclude !GLOB, the later winning, as ast-grep's --globs) choose the files, with or instead of path. " +
				"Files with syntax errors are searched and listed (a count and the first ones with the line of their first error). " +
				"When nothing matches, the result says how the pattern was read, how many nodes of its root kind the files hold, the nearest miss and hints (no_match); " +
				"ast_tree shows how a pattern is read and the code's syntax tree, and tests a pattern or rule on a snippet. " +
				"Embedded code is searched as its language: JavaScript, TypeScript (lang=\"ts\"), JSON and CSS/SCSS in HTML, Svelte and Vue <script> and <style>, " +
				"JavaScript (TypeScript when the component's script is lang=\"ts\") in Svelte template expressions ({expr}, {#if expr}, {#each list as x}: the list, on:click={f}) " +
				"and Vue's ({{ expr }}, v-if=\"expr\", :prop, @click, the list of v-for; not slot props or v-for aliases), " +
				"and any language's fenced code blocks in markdown (```go, ```py; not fences inside block quotes or list items); " +
				"matches are reported at the host file's line and column, and ast_edit rewrites them in place. " +
				"A Python search also searches the code cells of Jupyter notebooks (.ipynb, Python kernel) as Python, with IPython lines (%magic, !shell, x?) left out: " +
				"a match is at nb.ipynb[cell N id=ID]:line:column, in the cell's source (cells numbered from 0 as the notebook tool numbers them); " +
				"notebooks of another kernel or that do not parse are named as skipped. " +
				"The languageInjections of the working directory's sgconfig.yml add regions as ast-grep reads them (e.g. CSS in styled-components templates).",
		}, s.grep),
		Typed(Tool{
			Name: "ast_edit",
			Tier: TierWrite,
			Description: "Structural rewrite: like ast_grep, plus a rewrite template into which the captures are " +
				"substituted ($$$NAME keeps the original separators; multi-line replacements are indented to the match); with rule, the rule's fix " +
				"(with its transform and rewriters) or the rewrite given. " +
				"ops takes several rewrites ({pattern, rewrite} or {rule, rewrite}) staged as ONE edit: every op matches the files as they are now, " +
				"not the text an earlier op produces, and two ops whose matches overlap refuse the whole edit, naming both ops and the file:line. " +
				"paths and globs choose the files as for ast_grep. Files with syntax errors are left out unless include_errors. " +
				"In a notebook's code cells, the cells' sources are rewritten and the rest of the notebook kept byte for byte; the diff shows the cells' source lines, each hunk naming its cell. " +
				"Nothing is written: the change is staged and the result names an edit_id for resolve, lists every file with its " +
				"replacements and added and removed lines, and shows the first 400 lines of the diff (resolve with action show pages on).",
			Preview: previewFor(s.previewAstEdit),
		}, s.edit),
		s.treeTool(),
		s.mapTool(),
		s.symbolEditTool(),
	}
}

// grepQuery are the arguments ast_grep and ast_edit share.
type grepQuery struct {
	Pattern  string         `json:"pattern,omitempty" jsonschema:"code in the target language with metavariables: $NAME one node, $$$NAME zero or more siblings, $_ any node without binding (give pattern or rule)" bounds:"minLength=1"`
	Rule     map[string]any `json:"rule,omitempty" jsonschema:"instead of pattern, an ast-grep rule as a JSON object: a rule object (pattern, kind, regex, nthChild, range; inside, has, follows, precedes with stopBy neighbor, end or a rule, and field; all, any, not, matches) or a whole rule configuration {rule, constraints, utils, transform, fix, rewriters, language}, e.g. {\"kind\": \"call_expression\", \"has\": {\"field\": \"function\", \"regex\": \"^println$\"}, \"not\": {\"inside\": {\"kind\": \"if_statement\", \"stopBy\": \"end\"}}}; needs language (or its language key) unless path is a file"`
	Selector string         `json:"selector,omitempty" jsonschema:"optional node kind, as ast-grep's selector: the pattern is then the code around the part to find and only the first node of this kind in it is matched (pattern 'struct _S { $F: Vec<$T> }' with selector field_declaration finds such fields in any struct); for a snippet that only parses inside a larger construct and that ast_grep reads otherwise" bounds:"minLength=1,pattern=^[A-Za-z0-9_]+$"`
	Path     string         `json:"path,omitempty" jsonschema:"file or directory to search, relative to the working directory (default: the whole working directory)"`
	Paths    []string       `json:"paths,omitempty" jsonschema:"files or directories to search, each relative to the working directory and confined to it as path is; together with or instead of path" bounds:"maxItems=100,items.minLength=1"`
	Globs    []string       `json:"globs,omitempty" jsonschema:"include (GLOB) and exclude (!GLOB) files under the paths, as ast-grep's --globs: gitignore-style globs relative to the working directory, e.g. [\"src/**/*.ts\", \"!**/*.test.ts\"]; where several match a file the later wins, and given any include only files an include matches are searched; they beat ignore files and the hidden rule, and a file named in path or paths is searched whatever they say" bounds:"maxItems=100,items.minLength=1"`
	Language string         `json:"language,omitempty" jsonschema:"grammar id (go, python, javascript, typescript, tsx, rust, c, cpp, java, dart, ...); inferred from the extension when path is a file, and for a directory from the one language its files are in (or the one the pattern parses in); when the pattern parses in several of a directory's languages, ast_grep searches each and says which matched (ast_edit needs language then)"`
}

// grepArgs are ast_grep's arguments.
type grepArgs struct {
	grepQuery
	MaxResults int    `json:"max_results,omitempty" jsonschema:"most matches to show (default 50, at most 5000; start pages on); the total is always counted" bounds:"minimum=1,maximum=5000"`
	Start      int    `json:"start,omitempty" jsonschema:"skip this many matches (0-based, in the order files are searched) to page past max_results; the result says the start of the next page" bounds:"minimum=0,maximum=10000"`
	Output     string `json:"output,omitempty" jsonschema:"lines (default): a match of up to 3 lines whole, a longer one by its first line, with the captures; full: every match's lines whole; captures: where each match is and what it captured"`
}

// tuneSchema lists the outputs and the languages.
func (grepArgs) tuneSchema(s *jsonschema.Schema) {
	languageSchema(s)
	s.Properties["output"].Enum = []any{AstGrepOutputLines, AstGrepOutputFull, AstGrepOutputCaptures}
}

// astEditArgs are ast_edit's arguments.
type astEditArgs struct {
	grepQuery
	Rewrite *string `json:"rewrite,omitempty" jsonschema:"the replacement, with the pattern's metavariables (required with pattern; with rule, the rule's fix is used when rewrite is not given)"`
	// Ops are several rewrites staged as one edit (astgrep_ops.go).
	Ops []astEditOp `json:"ops,omitempty" jsonschema:"instead of pattern/rule and rewrite, several rewrites staged as ONE edit that resolve applies all or nothing: each {pattern, rewrite} or {rule, rewrite (optional with the rule's fix)}, over the same language, path, paths and globs. Every op matches the files as they are now, not the text an earlier op produces (as ast-grep applies several rules to one file): to chain rewrites, stage the second after accepting the first. Two ops whose matches overlap refuse the whole edit, naming both ops and the file:line" bounds:"maxItems=32"`
	// IncludeErrors rewrites files with syntax errors too.
	IncludeErrors bool `json:"include_errors,omitempty" jsonschema:"rewrite files whose tree has syntax errors too (default false: they are left out of the staged change and named with the line of their first error, as a replacement there may land in code the parser misread)"`
}

// tuneSchema lists the languages.
func (astEditArgs) tuneSchema(s *jsonschema.Schema) { languageSchema(s) }

// exactText: ast_edit writes the rewrite it is given.
func (astEditArgs) exactText() {}

// languageSchema adds the shipped grammar ids to the language argument's
// description: the handler refuses any other (an alias such as py or ts is
// taken too, in any case, so they are not an enum).
func languageSchema(s *jsonschema.Schema) {
	s.Properties["language"].Description += "; one of " + strings.Join(grammars.IDs(), ", ") + " (or an alias such as py, ts)"
}

// query resolves a to a confined query showing at most maxResults matches
// (0: astGrepDefaultMax).
func (s *structural) query(tool string, a grepQuery, maxResults int) (search.Query, error) {
	switch {
	case a.Pattern == "" && a.Rule == nil:
		return search.Query{}, fmt.Errorf("tools: %s: give pattern (code with metavariables) or rule (an ast-grep rule object)", tool)
	case a.Pattern != "" && a.Rule != nil:
		return search.Query{}, fmt.Errorf("tools: %s: give pattern or rule, not both (a rule can hold the pattern: {\"pattern\": ...})", tool)
	case a.Rule != nil && a.Selector != "":
		return search.Query{}, fmt.Errorf("tools: %s: selector goes with pattern; in a rule write {\"pattern\": {\"context\": ..., \"selector\": ...}}", tool)
	}
	paths, err := s.paths(tool, a)
	if err != nil {
		return search.Query{}, err
	}
	if maxResults == 0 {
		maxResults = astGrepDefaultMax
	}
	q := search.Query{Pattern: a.Pattern, Selector: a.Selector, Language: a.Language, Paths: paths, Globs: a.Globs, MaxResults: maxResults}
	if a.Rule != nil {
		q.Rule = a.Rule
	}
	return q, nil
}

// rel shows a path relative to the working directory.
func (s *structural) rel(p string) string {
	for _, base := range []string{s.run.root.RealDir(), s.run.root.Dir()} {
		if r, err := filepath.Rel(base, p); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
	}
	return p
}

func (s *structural) relMatches(ms []search.Match) {
	for i := range ms {
		ms[i].Path = s.rel(ms[i].Path)
	}
}

func (s *structural) relResult(r *search.Result) {
	s.relMatches(r.Matches)
	for i := range r.Errors {
		r.Errors[i].Path = s.rel(r.Errors[i].Path)
	}
	for i := range r.Broken {
		r.Broken[i].Path = s.rel(r.Broken[i].Path)
	}
	if r.NoMatch != nil && r.NoMatch.Nearest != nil {
		r.NoMatch.Nearest.Path = s.rel(r.NoMatch.Nearest.Path)
	}
	for i, e := range r.Skipped.Examples {
		r.Skipped.Examples[i] = strings.Replace(e, s.run.root.RealDir()+string(filepath.Separator), "", 1)
	}
	for i, e := range r.Skipped.Large {
		r.Skipped.Large[i] = strings.Replace(e, s.run.root.RealDir()+string(filepath.Separator), "", 1)
	}
	for i, e := range r.Skipped.NotebooksNamed {
		r.Skipped.NotebooksNamed[i] = strings.Replace(e, s.run.root.RealDir()+string(filepath.Separator), "", 1)
	}
}

func (s *structural) grep(ctx context.Context, call *Call, a grepArgs) (*Result, *AstGrepResult, error) {
	q, err := s.query(call.Name, a.grepQuery, a.MaxResults)
	if err != nil {
		return nil, nil, err
	}
	if q.Injections, err = s.injections(ctx, call.Name); err != nil {
		return nil, nil, err
	}
	if a.MaxResults > astGrepMaxResults {
		return nil, nil, fmt.Errorf("tools: ast_grep: max_results %d is out of range: pass 1 to %d, and start to page on (a result shows at most %d KiB)", a.MaxResults, astGrepMaxResults, astGrepMaxText>>10)
	}
	if a.Start < 0 || a.Start > astGrepMaxStart {
		return nil, nil, fmt.Errorf("tools: ast_grep: start %d is out of range: pass 0 to %d, or narrow the path or the pattern", a.Start, astGrepMaxStart)
	}
	limit := q.MaxResults
	q.MaxResults += a.Start // the search keeps the matches before the page too
	output := a.Output
	switch output {
	case "":
		output = AstGrepOutputLines
	case AstGrepOutputLines, AstGrepOutputFull, AstGrepOutputCaptures:
	default:
		return nil, nil, fmt.Errorf("tools: ast_grep: output %q is not one of %s, %s or %s", a.Output, AstGrepOutputLines, AstGrepOutputFull, AstGrepOutputCaptures)
	}
	// the index as the query found it: the warm-up resumes once the query
	// ends and may finish before the answer is written
	warm := s.search.WarmStatus()
	parts, err := s.searchLanguages(ctx, q)
	if err != nil {
		return nil, nil, s.relErr(err)
	}
	res := mergeResults(parts, q.MaxResults)
	s.relResult(res)
	res.Matches = res.Matches[min(a.Start, len(res.Matches)):]
	o := &grepOutput{output: output, budget: astGrepMaxText, max: limit}
	for _, m := range res.Matches {
		if !o.add(m) {
			break
		}
	}
	res.Matches = res.Matches[:len(o.res.Matches)] // the summary counts the matches shown
	st := &o.res
	st.Summary = res.Summary() + " (" + languagesNote(parts) + ")"
	// The summary's count of the matches shown is the only one, with how to
	// see more: the page and the next start, or why raising max_results
	// shows no more (the text bound).
	if shown := len(res.Matches); shown < res.Total || a.Start > 0 {
		head := fmt.Sprintf("%d of %d matches shown (raise max_results or narrow the path for more)", shown, res.Total)
		page := fmt.Sprintf("%d of %d matches shown", shown, res.Total)
		if a.Start > 0 {
			page = fmt.Sprintf("%d-%d of %d matches shown", a.Start+1, a.Start+shown, res.Total)
		}
		var how []string
		switch {
		case shown == 0:
			page = fmt.Sprintf("no matches from start %d: there are %d (start 0 shows the first)", a.Start, res.Total)
		case o.overflow:
			// raising max_results shows no more past the text bound; the note says what does
			how = append(how, "the result's size bound stops the list: see the note")
		case a.Start+shown < res.Total:
			how = append(how, "raise max_results or narrow the path for more")
		}
		if next := a.Start + shown; shown > 0 && next < res.Total {
			how = append(how, fmt.Sprintf("start %d shows the next", next))
		}
		if len(how) > 0 {
			page += " (" + strings.Join(how, "; ") + ")"
		}
		if strings.HasPrefix(st.Summary, head) {
			st.Summary = page + strings.TrimPrefix(st.Summary, head)
		} else {
			st.Summary = page + "; " + st.Summary
		}
	}
	st.Output, st.Total, st.Searched = output, res.Total, res.Searched
	if st.Matches == nil {
		st.Matches = []AstGrepMatch{}
	}
	if len(parts) == 1 {
		for i := range st.Matches {
			st.Matches[i].Language = "" // Languages names it
		}
	}
	for _, p := range parts {
		lang, context := resultLanguage(p)
		st.Languages = append(st.Languages, AstGrepLanguage{Language: lang, Context: context, Matches: p.Total, Searched: p.Searched})
	}
	st.More = o.more(res.Total)
	st.Errors = res.Errors[:min(len(res.Errors), astGrepMaxErrors)]
	st.SyntaxErrorFiles, st.SyntaxErrors = res.BrokenCount, res.Broken
	st.NoMatch = res.NoMatch
	if w := warm; w.Running {
		// answered while the warm-up parses: later queries find more ready
		st.Index = w.String()
		if s.warmNoted.CompareAndSwap(false, true) {
			st.More = append(st.More, w.String()+": this answer parsed what the index did not hold yet; later queries find more of it ready (said once; lsp status shows the progress)")
		}
	}
	var b strings.Builder
	b.WriteString(st.Summary + "\n")
	for _, n := range st.More {
		b.WriteString("note: " + n + "\n")
	}
	b.WriteString(o.b.String())
	out := Text(truncateText(b.String(), astGrepMaxText+4<<10))
	return out, st, nil
}

// searchLanguages runs q. Without a language, over directories holding files
// of several languages the pattern parses in, it searches each of them (most
// files first), one result per language.
func (s *structural) searchLanguages(ctx context.Context, q search.Query) ([]*search.Result, error) {
	runs := &filesRuns{fn: filesProgress(ctx)}
	q.Progress = runs.next()
	res, err := s.search.Search(ctx, q)
	var several *search.LanguagesError
	if !errors.As(err, &several) {
		if err != nil {
			return nil, err
		}
		return []*search.Result{res}, nil
	}
	parts := make([]*search.Result, 0, len(several.Parses))
	for _, l := range several.Parses {
		q.Language = l
		q.Progress = runs.next()
		res, err := s.search.Search(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("tools: ast_grep: searching the %s files: %w", l, err)
		}
		parts = append(parts, res)
	}
	return parts, nil
}

// mergeResults joins the results of one search per language into one, its
// matches cut at max (0: no cut).
func mergeResults(parts []*search.Result, max int) *search.Result {
	if len(parts) == 1 {
		return parts[0]
	}
	m := *parts[0]
	m.NoMatch = nil // each language's is its part's
	m.Matches = append([]search.Match(nil), m.Matches...)
	m.Errors = append([]search.FileError(nil), m.Errors...)
	m.Skipped.Large = append([]string(nil), m.Skipped.Large...)
	m.Broken = append([]search.BrokenFile(nil), m.Broken...)
	for _, p := range parts[1:] {
		m.MergeBroken(p)
		m.RegionsCutCount += p.RegionsCutCount
		m.RegionsCut = append(m.RegionsCut[:len(m.RegionsCut):len(m.RegionsCut)], p.RegionsCut...)
		m.Matches = append(m.Matches, p.Matches...)
		m.Total += p.Total
		m.Handed += p.Handed
		m.Searched += p.Searched
		m.Parsed += p.Parsed
		m.Prefiltered += p.Prefiltered
		m.KindSkipped += p.KindSkipped
		m.CacheHits += p.CacheHits
		// the walk (ignored and hidden files) is the same for every language
		m.Skipped.Binary += p.Skipped.Binary
		m.Skipped.TooLarge += p.Skipped.TooLarge
		m.Skipped.Unreadable += p.Skipped.Unreadable
		m.Skipped.Notebooks += p.Skipped.Notebooks
		m.Skipped.NotebooksNamed = append(m.Skipped.NotebooksNamed, p.Skipped.NotebooksNamed...)
		m.Skipped.Large = append(m.Skipped.Large, p.Skipped.Large...)
		m.Errors = append(m.Errors, p.Errors...)
	}
	if max > 0 && len(m.Matches) > max {
		m.Matches = m.Matches[:max]
	}
	return &m
}

// resultLanguage names the language of one result and how its query was
// read: the pattern's rung, or "rule".
func resultLanguage(r *search.Result) (string, string) {
	if r.Rule != nil {
		return r.Rule.Language, "rule"
	}
	return r.Pattern.Language(), r.Pattern.Context()
}

// languagesNote says how the pattern was read: "go pattern parsed as
// statement", or for several languages which were searched and which matched.
func languagesNote(parts []*search.Result) string {
	if len(parts) == 1 {
		if r := parts[0].Rule; r != nil {
			return fmt.Sprintf("%s rule", r.Language)
		}
		return fmt.Sprintf("%s pattern parsed as %s", parts[0].Pattern.Language(), strings.Join(parts[0].Pattern.Contexts(), " and as "))
	}
	var each []string
	for _, p := range parts {
		found := "no matches"
		if p.Total > 0 {
			found = countMatches(p.Total)
		}
		each = append(each, fmt.Sprintf("%s (as %s): %s in %s", p.Pattern.Language(), p.Pattern.Context(), found, plural(p.Searched, "file")))
	}
	return fmt.Sprintf("the pattern parses in %d languages found here, all searched: %s; pass language to search one", len(parts), strings.Join(each, "; "))
}

func (s *structural) edit(ctx context.Context, call *Call, a astEditArgs) (*Result, *StagedDiff, error) {
	plan, err := s.editPlan(ctx, call.Name, a)
	if err != nil {
		return nil, nil, err
	}
	for i := range plan.Changes {
		plan.Changes[i].Display = s.rel(plan.Changes[i].Path)
	}
	for i := range plan.LeftOut {
		plan.LeftOut[i].Path = s.rel(plan.LeftOut[i].Path)
	}
	s.relResult(plan.Result)
	leftOut := plan.LeftOutNote("include_errors: true")
	if plan.Replacements == 0 && leftOut != "" {
		return Text(fmt.Sprintf("nothing staged: %s (%s)", leftOut, plan.Result.Summary())), nil, nil
	}
	if plan.Replacements == 0 {
		if n := plan.Result.Total; n > 0 {
			what := fmt.Sprintf("all %d matches as they are", n)
			if n == 1 {
				what = "the 1 match as it is"
			}
			return Text(fmt.Sprintf("nothing staged: the rewrite leaves %s (%s)", what, plan.Result.Summary())), nil, nil
		}
		return Text(fmt.Sprintf("nothing staged: %s", plan.Result.Summary())), nil, nil
	}
	id, dropped := s.stage.StageDropping(plan)
	var b strings.Builder
	fmt.Fprintf(&b, "(proposed) %s in %s; nothing written yet: call resolve with edit_id %q and action \"accept\" to apply or \"discard\" to drop it\n",
		plural(plan.Replacements, "replacement"), plural(len(plan.Changes), "file"), id)
	switch {
	case len(plan.Unbound) > 0 && len(a.Ops) > 0:
		fmt.Fprintf(&b, "note: an op's pattern does not bind what its rewrite names (%s): replaced by nothing, as ast-grep does; check the spelling\n",
			strings.Join(plan.Unbound, "; "))
	case len(plan.Unbound) > 0:
		fmt.Fprintf(&b, "note: the pattern does not bind %s of the rewrite: replaced by nothing, as ast-grep does; check the spelling\n",
			strings.Join(plan.Unbound, ", "))
	}
	b.WriteString(parenNote(plan.Parenthesized, s.rel))
	b.WriteString(droppedNote(dropped))
	if leftOut != "" {
		fmt.Fprintf(&b, "note: %s\n", leftOut)
	}
	if n := plan.Result.Skipped.Total() + len(plan.Result.Errors) + plan.Result.BrokenCount; n > 0 {
		fmt.Fprintf(&b, "(%s)\n", plan.Result.Summary())
	}
	return stagedResult(b.String(), id, plan, "", 0)
}

// parenNote says which replacements were put in parentheses to keep the
// meaning the rewrite gave them (at most 5 named).
func parenNote(ps []search.Parenthesized, rel func(string) string) string {
	if len(ps) == 0 {
		return ""
	}
	var names []string
	for i, p := range ps {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(ps)-5))
			break
		}
		p.Path = rel(p.Path)
		names = append(names, p.String())
	}
	return fmt.Sprintf("note: %s put in parentheses, where the code around it would have bound the rewrite's text differently (ast-grep leaves it bare): %s\n",
		plural(len(ps), "replacement"), strings.Join(names, ", "))
}

// relErr names the paths in err relative to the working directory, as the
// results name them.
func (s *structural) relErr(err error) error { return s.run.relErr(err) }

// relError is an error whose message names paths relative to the working
// directory; it unwraps to the original.
type relError struct {
	msg string
	err error
}

func (e *relError) Error() string { return e.msg }
func (e *relError) Unwrap() error { return e.err }
