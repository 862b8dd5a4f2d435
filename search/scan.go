package search

import "bytes"
import "context"
import "errors"
import "fmt"
import "path/filepath"
import "sort"
import "sync"
import "sync/atomic"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/matcher/rule"
import "github.com/tetherhq/tether/search/inject"
import "github.com/tetherhq/tether/search/store"

// ScanQuery runs several rules (ast-grep's scan) over paths. Each file is
// read and parsed once, whatever the number of rules; a file whose stored
// kind set shows that none of its language's rules can match is not read,
// and one that lacks a literal token of each rule (Rule.Tokens) is not
// parsed.
type ScanQuery struct {
	// Rules are the compiled rules; a rule of severity off is not run.
	Rules []*rule.Rule
	// Paths are files or directories to scan (default ".").
	Paths []string
	// Globs include and exclude files as Query.Globs do.
	Globs []string
	// Base is the directory the rules' files and ignores globs are
	// relative to (default: the working directory).
	Base string
	// MaxResults bounds the findings returned; 0 means no limit. Total
	// counts them all.
	MaxResults int
	// Injections are a project's languageInjections (Project.Injections):
	// more host languages and regions than the grammars' own (package inject).
	Injections []inject.Injection
	// Progress, when set, is told how many of the files to scan are done
	// and how many findings they held, as Query.Progress is.
	Progress func(done, total, found int)
	// Fix makes ScanResult.Plan: every finding's fix, applied to the
	// content the scan read (of overlapping fixes in a file, the first in
	// source order wins), to stage or apply as a rewrite's plan.
	Fix bool
}

// Finding is one match of one rule.
type Finding struct {
	Match
	// Rule is the rule that matched.
	Rule *rule.Rule `json:"-"`
	// Message is the rule's message with the match's metavariables
	// substituted.
	Message string `json:"message,omitempty"`
	// Transformed are the values the rule's transform computed.
	Transformed map[string]string `json:"transformed,omitempty"`
	// FixStart and FixEnd are the byte range the fix replaces (the match's,
	// or wider with expandStart and expandEnd); set with Replacement.
	FixStart, FixEnd int `json:"-"`
}

// ScanResult is the outcome of a scan.
type ScanResult struct {
	Findings []Finding `json:"findings"`
	// Total counts every finding, also those past MaxResults.
	Total int `json:"total"`
	// Searched counts the files looked at, Parsed those parsed (or taken
	// from the store), KindSkipped those ruled out by their kind sets.
	Searched    int `json:"searched"`
	Parsed      int `json:"parsed"`
	Prefiltered int `json:"prefiltered,omitempty"`
	KindSkipped int `json:"kindSkipped,omitempty"`
	// RegionsCutCount counts the host files with more embedded regions of
	// a rule's language than inject.MaxRegionsPerFile; RegionsCut names the first
	// MaxBrokenListed (as Result's).
	RegionsCutCount int          `json:"regionsCutFiles,omitempty"`
	RegionsCut      []RegionsCut `json:"regionsCut,omitempty"`
	Skipped         Skips        `json:"skipped"`
	Errors          []FileError  `json:"errors,omitempty"`
	// Plan holds the fixes with ScanQuery.Fix (nil without).
	Plan *Plan `json:"-"`
}

type scanRule struct {
	r              *rule.Rule
	files, ignores *globs
	kinds          *store.KindFilter
}

type scanJob struct {
	path     string
	findings []Finding
	parsed   bool
	kindSkip bool
	// prefiltered: no rule's tokens are all in the file
	prefiltered bool
	searched    bool
	unread
	// src is the content scanned, kept for the fixes of its findings
	src []byte
	// regionsCut are the languages of a host file with more regions than
	// were scanned
	regionsCut []RegionsCut
	// cells are a notebook's code cells that were scanned, their sources
	// kept for the fixes of their findings
	cells []*cellJob
}

// Scan runs q's rules over its paths.
func (s *Searcher) Scan(ctx context.Context, q ScanQuery) (*ScanResult, error) {
	s.warm.BeginQuery()
	defer s.warm.EndQuery()
	if s.rootErr != nil {
		return nil, s.rootErr
	}
	base := q.Base
	if base == "" {
		base = "."
	}
	base, err := filepath.Abs(base)
	if err != nil {
		return nil, fmt.Errorf("search: scan base: %w", err)
	}
	byLang, err := s.scanRules(ctx, q.Rules, base)
	if err != nil {
		return nil, err
	}
	gl, err := compileGlobs(q.Globs)
	if err != nil {
		return nil, err
	}
	fsys, err := openFiles(s.root)
	if err != nil {
		return nil, err
	}
	defer fsys.close()
	res := &ScanResult{}
	files, err := scanFiles(ctx, fsys, q, gl, byLang, &res.Skipped)
	if err != nil {
		return nil, err
	}
	jobs := make([]*scanJob, len(files))
	for i, f := range files {
		jobs[i] = &scanJob{path: f}
	}
	if err := s.scanAll(ctx, fsys, base, byLang, q, jobs); err != nil {
		return nil, err
	}
	res.tally(jobs, q)
	return res, nil
}

// scanRules compiles the rules that are not off by their language, with
// their files and ignores globs relative to base.
func (s *Searcher) scanRules(ctx context.Context, rules []*rule.Rule, base string) (map[string][]*scanRule, error) {
	byLang := map[string][]*scanRule{}
	var err error
	for _, r := range rules {
		if r.Severity == "off" {
			continue
		}
		sr := &scanRule{r: r}
		if len(r.Files) > 0 {
			if sr.files, err = compileGlobsAt(r.Files, base); err != nil {
				return nil, fmt.Errorf("search: rule %s: files: %w", r.ID, err)
			}
		}
		if len(r.Ignores) > 0 {
			if sr.ignores, err = compileGlobsAt(r.Ignores, base); err != nil {
				return nil, fmt.Errorf("search: rule %s: ignores: %w", r.ID, err)
			}
		}
		sr.kinds = store.NewKindFilter(ctx, s.parser, [][][]string{{r.Kinds()}}, r.Grammar())
		byLang[r.Language] = append(byLang[r.Language], sr)
	}
	return byLang, nil
}

// scanFiles walks q's paths for the files a rule of byLang may be run on:
// of a language with rules, or of a host language whose files may embed
// one. Each is listed once, in walk order.
func scanFiles(ctx context.Context, fsys *files, q ScanQuery, gl *globs, byLang map[string][]*scanRule, skipped *Skips) ([]string, error) {
	paths := q.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	// the host languages whose files may embed a language with rules, as
	// the walk meets them
	hostsWithRules := map[string]bool{}
	for _, inj := range q.Injections {
		if ok, _ := injects(inj.Host, q.Injections, byLang, nil); ok {
			hostsWithRules[inj.Host] = true
		}
	}
	withRules := func(l string) bool {
		if len(byLang[l]) > 0 {
			return true
		}
		has, known := hostsWithRules[l]
		if !known {
			has = len(embedded(l, byLang)) > 0
			hostsWithRules[l] = has
		}
		return has
	}
	var files []string
	seen := map[string]bool{}
	missing := 0
	hosts := map[string]*grammars.Language{}
	for _, p := range paths {
		found, err := walkHosts(ctx, fsys, p, anyLanguage, skipped, gl, hosts, nil)
		if err != nil {
			if skipMissing(err, p, len(paths), &missing, skipped) {
				continue
			}
			return nil, fmt.Errorf("search: cannot scan %s: %w", p, err)
		}
		for _, f := range found {
			l := langForPath(f)
			if l == nil && inject.IsNotebook(f) {
				// a notebook's cells are scanned with the rules of their
				// language
				l = notebookHost
				if len(byLang) == 0 {
					continue
				}
			}
			if !seen[f] && l != nil && (l == notebookHost || withRules(l.ID)) {
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	return files, nil
}

// scanAll scans every job on the searcher's workers; an error of one (the
// context is done, or a rule runs out of its budget) stops them all.
func (s *Searcher) scanAll(ctx context.Context, fsys *files, base string, byLang map[string][]*scanRule, q ScanQuery, jobs []*scanJob) error {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	prog := &progress{fn: q.Progress, total: len(jobs)}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(s.workers, len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runners := map[*rule.Rule]*rule.Runner{}
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) || ctx.Err() != nil {
					return
				}
				if err := s.scanFile(ctx, fsys, base, byLang, runners, q.Injections, jobs[i], q.Fix); err != nil {
					stop(err)
					return
				}
				prog.step(len(jobs[i].findings))
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		if errors.Is(err, matcher.ErrTooExpensive) {
			return err
		}
		return fmt.Errorf("search: cancelled: %w", err)
	}
	return nil
}

// tally counts the scanned jobs into r, with their findings up to
// q.MaxResults, and with q.Fix their fixes into r.Plan.
func (r *ScanResult) tally(jobs []*scanJob, q ScanQuery) {
	if q.Fix {
		r.Plan = &Plan{Result: &Result{}, Source: "tether scan"}
	}
	for _, j := range jobs {
		if r.Plan != nil && j.src != nil {
			fixPlan(r.Plan, j)
		}
		if j.tally(j.path, &r.Skipped, &r.Errors) || !j.searched {
			continue
		}
		r.Searched++
		if len(j.regionsCut) > 0 {
			r.RegionsCutCount++
			if len(r.RegionsCut) < MaxBrokenListed {
				r.RegionsCut = append(r.RegionsCut, j.regionsCut[0])
			}
		}
		if j.parsed {
			r.Parsed++
		}
		if j.kindSkip {
			r.KindSkipped++
		}
		if j.prefiltered {
			r.Prefiltered++
		}
		r.Total += len(j.findings)
		for _, f := range j.findings {
			if q.MaxResults > 0 && len(r.Findings) >= q.MaxResults {
				break
			}
			r.Findings = append(r.Findings, f)
		}
	}
}

// scanFile runs the rules of the file's language that its path is for,
// and, in a host file, those of each embedded language on its regions.
func (s *Searcher) scanFile(ctx context.Context, fsys *files, base string, byLang map[string][]*scanRule, runners map[*rule.Rule]*rule.Runner, injs []inject.Injection, j *scanJob, fix bool) error {
	lang := langForPath(j.path)
	if lang == nil && !inject.IsNotebook(j.path) {
		return nil // scanFiles lists no such file
	}
	abs, err := filepath.Abs(j.path)
	if err != nil {
		j.err = err
		return nil
	}
	pick := func(srs []*scanRule) []*scanRule {
		var out []*scanRule
		for _, sr := range srs {
			if sr.files != nil {
				if _, keep := sr.files.decide(abs, false); !keep {
					continue
				}
			}
			if sr.ignores != nil {
				if _, hit := sr.ignores.decide(abs, false); hit {
					continue
				}
			}
			out = append(out, sr)
		}
		return out
	}
	if lang == nil {
		return s.scanNotebook(ctx, fsys, byLang, pick, runners, j, fix)
	}
	rs := pick(byLang[lang.ID])
	// the embedded languages with rules for this file
	var inner []string
	candidates := embedded(lang.ID, byLang)
	if len(injs) > 0 {
		_, candidates = injects(lang.ID, injs, byLang, candidates)
	}
	for _, l := range candidates {
		if len(pick(byLang[l])) > 0 {
			inner = append(inner, l)
		}
	}
	if len(rs) == 0 && len(inner) == 0 {
		return nil
	}
	if len(inner) > 0 {
		return s.scanHost(ctx, fsys, lang, rs, inner, byLang, pick, runners, injs, j, fix)
	}
	j.searched = true
	live := func(key store.Key) []*scanRule {
		var out []*scanRule
		for _, sr := range rs {
			if !s.cache.RuledOut(sr.kinds, key) {
				out = append(out, sr)
			}
		}
		return out
	}
	if key, ok := s.unchanged(fsys, j.path, lang.ID); ok {
		if rs = live(key); len(rs) == 0 {
			j.kindSkip = true
			return nil
		}
	}
	at := s.now()
	src, fi, ok := s.readText(fsys, j.path, &j.unread)
	if !ok {
		return nil
	}
	key := store.KeyOf(s.partition, lang, src)
	s.cache.Remember(j.path, lang.ID, fi, at, key)
	// a rule whose tokens the file lacks cannot match in it
	withTokens := rs[:0:0]
	for _, sr := range rs {
		if hasTokens(src, sr.r.Tokens()) {
			withTokens = append(withTokens, sr)
		}
	}
	if rs = withTokens; len(rs) == 0 {
		j.prefiltered = true
		return nil
	}
	if rs = live(key); len(rs) == 0 {
		j.kindSkip = true
		return nil
	}
	tree, _, err := s.wholeTree(ctx, lang, key, src)
	if err != nil {
		j.err = err
		return nil
	}
	j.parsed = true
	return s.runRules(ctx, j, tree, lang.ID, rs, runners, atFileStart, src, fix)
}

// runRules runs rs on tree, a file's or a region's at b, and records their
// findings in j; src is the file's content, kept for fixes.
func (s *Searcher) runRules(ctx context.Context, j *scanJob, tree *engine.Tree, lang string, rs []*scanRule, runners map[*rule.Rule]*rule.Runner, b base, src []byte, fix bool) error {
	txt := &sourceText{src: tree.Source(), max: s.maxText} // one for all the tree's findings
	for _, sr := range rs {
		rn := runners[sr.r]
		if rn == nil {
			rn = rule.NewRunner(sr.r)
			runners[sr.r] = rn
		}
		ms, err := rn.Find(ctx, tree)
		if be := (*matcher.BudgetError)(nil); errors.As(err, &be) {
			be.Path = j.path
			be.At.Row += uint32(b.line)
			return be
		}
		if err != nil {
			return fmt.Errorf("rule %s in %s: %w", sr.r.ID, j.path, err)
		}
		for i := range ms {
			if !b.keeps(ms[i].Nodes[0], ms[i].Nodes[len(ms[i].Nodes)-1]) {
				continue
			}
			f := s.finding(tree, txt, j.path, lang, sr.r, rn, &ms[i], b)
			if fix && f.Replacement != nil {
				j.src = src
			}
			j.findings = append(j.findings, f)
		}
	}
	return nil
}

// fixPlan applies the fixes of one file's findings to the content scanned:
// in source order, a fix that overlaps one already taken is left out. In
// a notebook, each cell's fixes are applied to its source.
func fixPlan(p *Plan, j *scanJob) {
	if j.cells != nil {
		notebookFixes(p, j)
		return
	}
	edits := fixEdits(j.findings)
	p.Edits += len(edits)
	nw := matcher.Apply(j.src, edits)
	if !bytes.Equal(nw, j.src) {
		p.Changes = append(p.Changes, FileChange{Path: j.path, Old: j.src, New: nw, Replacements: len(edits)})
		p.Replacements += len(edits)
	}
}

func (s *Searcher) finding(tree *engine.Tree, txt *sourceText, path, lang string, r *rule.Rule, rn *rule.Runner, m *rule.Match, b base) Finding {
	f := Finding{Match: toMatch(path, lang, &m.Match, b, txt), Rule: r, Transformed: m.Transformed}
	if r.Message != "" {
		f.Message = matcher.ExpandText(r.Message, tree.Source(), int(m.Start()), m.Captures, func(name string) (string, bool) {
			v, ok := m.Transformed[name]
			return v, ok
		})
	}
	if e, ok := rn.Fix(m); ok {
		f.Replacement = &e.Text
		f.FixStart, f.FixEnd = e.Start+b.off, e.End+b.off
	}
	return f
}

// fixEdits are the fixes of findings (of one file or one notebook cell)
// in source order, those that overlap one taken before left out.
func fixEdits(findings []Finding) []matcher.Edit {
	fs := append([]Finding(nil), findings...)
	sort.SliceStable(fs, func(a, b int) bool { return fs[a].FixStart < fs[b].FixStart })
	var edits []matcher.Edit
	last := -1
	for _, f := range fs {
		if f.Replacement == nil || f.FixStart < last {
			continue
		}
		edits = append(edits, matcher.Edit{Start: f.FixStart, End: f.FixEnd, Text: *f.Replacement})
		last = f.FixEnd
	}
	return edits
}

// sortFindings orders findings by file, then notebook cell, then
// position, then rule id.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(a, b int) bool {
		x, y := &fs[a], &fs[b]
		if x.Path != y.Path {
			return x.Path < y.Path
		}
		if cx, cy := cellIndex(x.Cell), cellIndex(y.Cell); cx != cy {
			return cx < cy
		}
		if x.Span.StartByte != y.Span.StartByte {
			return x.Span.StartByte < y.Span.StartByte
		}
		if x.Span.EndByte != y.Span.EndByte {
			return x.Span.EndByte > y.Span.EndByte
		}
		return x.Rule.ID < y.Rule.ID
	})
}
