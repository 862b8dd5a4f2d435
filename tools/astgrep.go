package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/tetherhq/tether/matcher"
)

// Bounds of the structural tools' results.
const (
	// AstGrepDefaultMax is how many matches ast_grep shows when max_results is not given.
	AstGrepDefaultMax = matcher.DefaultMaxResults
	// AstEditDiffLines bounds the diff ast_edit shows.
	AstEditDiffLines = 400
	// AstEditMaxStaged is how many unresolved edits a run keeps; staging one
	// more drops the oldest, and the result says so (see also
	// matcher.MaxStagedBytes).
	AstEditMaxStaged = matcher.MaxStagedEdits
	// astGrepMaxText bounds ast_grep's text.
	astGrepMaxText = 64 << 10
)

func init() {
	addFamily(family{
		name:  "astgrep",
		wired: func(cfg *Config) bool { return cfg.Parser != nil },
		register: func(r *Run) (func() error, error) {
			return nil, r.Registry().Register(AstGrepTools(r)...)
		},
	})
}

// structural holds one run's search state: the searcher (and its tree cache)
// and the staged edits.
type structural struct {
	run    *Run
	search *matcher.Searcher
	stage  *matcher.Stager
}

// AstGrepTools returns ast_grep (read), ast_edit (write) and resolve (write)
// bound to the run's parser, working directory and staged edits. See SPEC.md,
// sections "ast_grep", "ast_edit" and "resolve".
func AstGrepTools(r *Run) []Tool {
	s := &structural{
		run:    r,
		search: matcher.NewSearcher(r.cfg.Parser, matcher.Config{Root: r.Root()}),
		stage:  matcher.NewStager(r.Root()),
	}
	langs := `"language":{"type":"string","description":"grammar id (go, python, javascript, typescript, tsx, rust, c, cpp, java, dart, ...); inferred from the extension when path is a file, and for a directory from the one language its files are in (or the one the pattern parses in); required when a directory holds several"}`
	path := `"path":{"type":"string","description":"file or directory to search, relative to the working directory (default: the whole working directory)"}`
	pattern := `"pattern":{"type":"string","minLength":1,"description":"code in the target language with metavariables: $NAME one node, $$$NAME zero or more siblings, $_ any node without binding"}`
	return []Tool{
		{
			Name: "ast_grep",
			Tier: TierRead,
			Description: "Find code by shape (structural search with tree-sitter). The pattern is code in the target language: " +
				"$NAME matches any one node, $$$NAME any run of sibling nodes (arguments, statements; also none), $_ any node " +
				"without binding. A metavariable used twice must capture the same text. Whitespace, line breaks and comments " +
				"do not matter, and text inside strings or comments never matches. Example: fmt.Errorf($$$ARGS) " +
				"with language go. Returns file:line:column ranges, the matched lines and the captures.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` + pattern + `,` + path + `,` + langs + `,` +
				`"max_results":{"type":"integer","minimum":1,"description":"most matches to show (default 50); the total is always counted"}},` +
				`"required":["pattern"],"additionalProperties":false}`),
			Handler: s.grep,
		},
		{
			Name: "ast_edit",
			Tier: TierWrite,
			Description: "Structural rewrite: like ast_grep, plus a rewrite template into which the captures are " +
				"substituted ($$$NAME keeps the original separators; multi-line replacements are indented to the match). " +
				"Nothing is written: the change is staged and the result names an edit_id for resolve, with a diff.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` + pattern + `,` +
				`"rewrite":{"type":"string","description":"the replacement, with the pattern's metavariables"},` + path + `,` + langs + `},` +
				`"required":["pattern","rewrite"],"additionalProperties":false}`),
			Handler: s.edit,
		},
		{
			Name: "resolve",
			Tier: TierWrite,
			Description: "Accept or discard a change staged by ast_edit. accept re-reads every file: if any changed since " +
				"staging, the whole change is rejected (nothing is written) and the changed files are named; otherwise all " +
				"files are written atomically, all or none.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"edit_id":{"type":"string","minLength":1,"description":"the id ast_edit returned, e.g. edit_1"},` +
				`"action":{"type":"string","enum":["accept","discard"],"description":"accept writes every file of the edit (all or none); discard drops it"}},` +
				`"required":["edit_id","action"],"additionalProperties":false}`),
			Handler: s.resolve,
		},
	}
}

type grepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Language   string `json:"language"`
	MaxResults int    `json:"max_results"`
	Rewrite    string `json:"rewrite"`
}

// query resolves the arguments to a confined query.
func (s *structural) query(call *Call) (matcher.Query, grepArgs, error) {
	var a grepArgs
	if err := call.Decode(&a); err != nil {
		return matcher.Query{}, a, err
	}
	p := a.Path
	if p == "" {
		p = "."
	}
	real, _, err := s.run.Root().Resolve(p)
	if err != nil {
		return matcher.Query{}, a, err
	}
	// the search reaches it through the root again (Config.Root); this only
	// says early that it is missing
	f, _, err := s.run.Root().Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return matcher.Query{}, a, fmt.Errorf("tools: %s: path %q does not exist; give a file or directory in the working directory", call.Name, p)
	}
	if err != nil {
		return matcher.Query{}, a, err
	}
	f.Close()
	if a.MaxResults == 0 {
		a.MaxResults = AstGrepDefaultMax
	}
	return matcher.Query{Pattern: a.Pattern, Language: a.Language, Paths: []string{real}, MaxResults: a.MaxResults}, a, nil
}

// rel shows a path relative to the working directory.
func (s *structural) rel(p string) string {
	for _, base := range []string{s.run.Root().RealDir(), s.run.Root().Dir()} {
		if r, err := filepath.Rel(base, p); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
	}
	return p
}

func (s *structural) relMatches(ms []matcher.Match) {
	for i := range ms {
		ms[i].Path = s.rel(ms[i].Path)
	}
}

func (s *structural) relResult(r *matcher.Result) {
	s.relMatches(r.Matches)
	for i := range r.Errors {
		r.Errors[i].Path = s.rel(r.Errors[i].Path)
	}
	for i, e := range r.Skipped.Examples {
		r.Skipped.Examples[i] = strings.Replace(e, s.run.Root().RealDir()+string(filepath.Separator), "", 1)
	}
	for i, e := range r.Skipped.Large {
		r.Skipped.Large[i] = strings.Replace(e, s.run.Root().RealDir()+string(filepath.Separator), "", 1)
	}
}

func (s *structural) grep(ctx context.Context, call *Call) (*Result, error) {
	q, _, err := s.query(call)
	if err != nil {
		return nil, err
	}
	res, err := s.search.Search(ctx, q)
	if err != nil {
		return nil, s.relErr(err)
	}
	s.relResult(res)
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s pattern parsed as %s)\n", res.Summary(), res.Pattern.Language(), res.Pattern.Context())
	for _, m := range res.Matches {
		fmt.Fprintf(&b, "\n%s:%d:%d-%d:%d\n", m.Path, m.Span.Start.Line, m.Span.Start.Column, m.Span.End.Line, m.Span.End.Column)
		for _, l := range strings.Split(m.Lines, "\n") {
			b.WriteString("    " + l + "\n")
		}
		if m.Cut {
			b.WriteString("    ... (match cut)\n")
		}
		for _, bd := range m.Bindings {
			sigil := "$"
			if bd.Multi {
				sigil = "$$$"
			}
			fmt.Fprintf(&b, "  %s%s = %s\n", sigil, bd.Name, oneLine(bd.Text, 200))
		}
	}
	out := Text(TruncateText(b.String(), astGrepMaxText))
	out.Structured = res
	return out, nil
}

// oneLine shows a capture on one line, cut at max bytes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		return TruncateText(s, max)
	}
	return s
}

func (s *structural) edit(ctx context.Context, call *Call) (*Result, error) {
	q, a, err := s.query(call)
	if err != nil {
		return nil, err
	}
	q.MaxResults = 0
	plan, err := s.search.Rewrite(ctx, q, a.Rewrite)
	if err != nil {
		return nil, s.relErr(err)
	}
	for i := range plan.Changes {
		plan.Changes[i].Display = s.rel(plan.Changes[i].Path)
	}
	s.relResult(plan.Result)
	if plan.Replacements == 0 {
		if n := plan.Result.Total; n > 0 {
			what := fmt.Sprintf("all %d matches as they are", n)
			if n == 1 {
				what = "the 1 match as it is"
			}
			return Text(fmt.Sprintf("nothing staged: the rewrite leaves %s (%s)", what, plan.Result.Summary())), nil
		}
		return Text(fmt.Sprintf("nothing staged: %s", plan.Result.Summary())), nil
	}
	id, dropped := s.stage.StageDropping(plan)
	var b strings.Builder
	fmt.Fprintf(&b, "(proposed) %s in %s; nothing written yet: call resolve with edit_id %q and action \"accept\" to apply or \"discard\" to drop it\n",
		plural(plan.Replacements, "replacement"), plural(len(plan.Changes), "file"), id)
	if len(plan.Unbound) > 0 {
		fmt.Fprintf(&b, "note: the pattern does not bind %s of the rewrite: replaced by nothing, as ast-grep does; check the spelling\n",
			strings.Join(plan.Unbound, ", "))
	}
	if len(dropped) > 0 {
		fmt.Fprintf(&b, "note: %s was dropped unresolved: at most %d staged edits (%d MiB of files) are kept; resolve edits before staging more\n",
			strings.Join(dropped, ", "), AstEditMaxStaged, matcher.MaxStagedBytes>>20)
	}
	if n := plan.Result.Skipped.Total() + len(plan.Result.Errors); n > 0 {
		fmt.Fprintf(&b, "(%s)\n", plan.Result.Summary())
	}
	b.WriteString("\n")
	b.WriteString(plan.Diff(AstEditDiffLines))
	out := Text(b.String())
	out.Structured = map[string]any{"edit_id": id, "replacements": plan.Replacements, "files": len(plan.Changes)}
	return out, nil
}

func (s *structural) resolve(ctx context.Context, call *Call) (*Result, error) {
	var a struct {
		EditID string `json:"edit_id"`
		Action string `json:"action"`
	}
	if err := call.Decode(&a); err != nil {
		return nil, err
	}
	switch a.Action {
	case "discard":
		if err := s.stage.Discard(a.EditID); err != nil {
			return nil, err
		}
		return Text(fmt.Sprintf("discarded %s; no file was changed", a.EditID)), nil
	case "accept":
		if p, ok := s.stage.Pending(a.EditID); ok {
			var paths []string
			for _, c := range p.Changes {
				paths = append(paths, s.rel(c.Path))
			}
			beforeWrite(ctx, paths) // diagnostics on write takes their baseline
		}
		plan, err := s.stage.Accept(a.EditID)
		if err != nil {
			return nil, s.relErr(err)
		}
		fc := &FileChanges{}
		var names []string
		for _, c := range plan.Changes {
			rel := s.rel(c.Path)
			names = append(names, rel)
			fc.Changed = append(fc.Changed, FileChange{Path: rel, Action: "updated"})
		}
		out := Text(fmt.Sprintf("accepted %s: %s written to %s: %s", a.EditID,
			plural(plan.Replacements, "replacement"), plural(len(names), "file"), strings.Join(names, ", ")))
		out.Structured = fc
		return out, nil
	}
	return nil, errors.New("tools: resolve: action must be accept or discard")
}

// relErr names the paths in err relative to the working directory, as the
// results name them.
func (s *structural) relErr(err error) error {
	msg := err.Error()
	for _, base := range []string{s.run.Root().RealDir(), s.run.Root().Dir()} {
		msg = strings.ReplaceAll(msg, base+string(filepath.Separator), "")
		msg = strings.ReplaceAll(msg, base, ".")
	}
	if msg == err.Error() {
		return err
	}
	return &relError{msg: msg, err: err}
}

// relError is an error whose message names paths relative to the working
// directory; it unwraps to the original.
type relError struct {
	msg string
	err error
}

func (e *relError) Error() string { return e.msg }
func (e *relError) Unwrap() error { return e.err }
