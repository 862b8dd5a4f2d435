package rule

import "context"
import "errors"
import "fmt"
import "maps"
import "slices"
import "sort"
import "strings"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"

// Rule is one compiled rule configuration, as an ast-grep rule file has
// it: the rule, its constraints, utils, transform, fix and rewriters, and
// what a scan reports with its matches. It is immutable and safe for
// concurrent use; a Runner matches it.
type Rule struct {
	// ID names the rule in reports ("no-await-in-loop"); "" for a rule
	// given without one.
	ID string
	// Language is the grammar id the rule is compiled for (Grammar is
	// the language itself).
	Language string
	// Severity is hint, info, warning, error or off (default hint).
	Severity string
	// Message and Note are what a scan reports with each match.
	Message, Note string
	// Files and Ignores are the globs of the files a scan checks with the
	// rule (none: every file of its language) and leaves out.
	Files, Ignores []string
	// HasFix says the rule has a fix.
	HasFix bool
	// Labels are the configuration's labels, by metavariable name; none:
	// the match is the primary label and the nodes its relational rules
	// matched the secondary ones.
	Labels []Label

	lang   *grammars.Language
	core   *core
	npats  int
	tokens []string
}

// Grammar returns the language the rule is compiled for.
func (r *Rule) Grammar() *grammars.Language { return r.lang }

type core struct {
	rule        node
	constraints []constraint
	transforms  []*transform
	fix         *fix
	rewriters   map[string]*core
	kinds       []string
	known       bool
}

type constraint struct {
	name string
	rule node
}

// Options are what compiling a configuration needs besides the document.
type Options struct {
	// Language is used when the document names none (a bare rule object
	// given with a language).
	Language *grammars.Language
	// Utils are the global utils (a project's utilDirs).
	Utils Utils
	// Source names where the document was read, for errors ("rules/x.yml").
	Source string
}

var configKeys = []string{"id", "language", "rule", "constraints", "utils", "transform", "fix", "rewriters", "severity", "message", "note", "files", "ignores", "metadata", "url", "labels"}

// Compile compiles v for lang: a whole configuration (an object with a
// rule key) or a bare rule object.
func Compile(ctx context.Context, p matcher.Parser, lang *grammars.Language, v any, opt Options) (*Rule, error) {
	m, err := asMap(v, "rule", "rule")
	if err != nil {
		return nil, err
	}
	if _, ok := m["rule"]; !ok {
		m = map[string]any{"rule": m}
	}
	if opt.Language == nil {
		opt.Language = lang
	}
	return CompileConfig(ctx, p, m, opt)
}

// CompileConfig compiles one rule configuration. Its language is its
// language key's, looked up here, else opt.Language.
func CompileConfig(ctx context.Context, p matcher.Parser, doc map[string]any, opt Options) (*Rule, error) {
	r, err := compileConfig(ctx, p, doc, opt)
	if err != nil && opt.Source != "" && errors.Is(err, ErrInvalid) {
		msg := strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": ")
		return nil, fmt.Errorf("%w: %s: %s", ErrInvalid, opt.Source, msg)
	}
	return r, err
}

func compileConfig(ctx context.Context, p matcher.Parser, doc map[string]any, opt Options) (*Rule, error) {
	if err := checkKeys(doc, "", configKeys...); err != nil {
		return nil, err
	}
	r := &Rule{Severity: "hint"}
	var err error
	str := func(key string, dst *string) {
		if v, ok := doc[key]; ok && err == nil {
			s, ok := v.(string)
			if !ok {
				err = errAt(key, "must be a string, not %s", describe(v))
			}
			*dst = s
		}
	}
	str("id", &r.ID)
	str("severity", &r.Severity)
	str("message", &r.Message)
	str("note", &r.Note)
	_, named := doc["language"]
	var name string
	str("language", &name)
	if err != nil {
		return nil, err
	}
	switch r.Severity {
	case "hint", "info", "warning", "error", "off":
	default:
		return nil, errAt("severity", "severity %q: use hint, info, warning, error or off", r.Severity)
	}
	l := opt.Language
	if named {
		l = nil
		if name != "" {
			var ok bool
			if l, ok = grammars.Lookup(name); !ok {
				return nil, errAt("language", "unknown language %q: use one of %s", name, strings.Join(grammars.IDs(), ", "))
			}
		}
	}
	if l == nil {
		return nil, errAt("language", "no language: give the rule a language key (go, python, typescript, ...)")
	}
	r.Language, r.lang = l.ID, l
	if err := r.globs(doc); err != nil {
		return nil, err
	}
	if _, ok := doc["rule"]; !ok {
		return nil, errAt("rule", "the configuration has no rule: add a rule object (pattern, kind, ...)")
	}
	c := &compiler{ctx: ctx, parser: p, lang: l, global: opt.Utils}
	if c.kinds, err = c.kindsOf(l); err != nil {
		return nil, err
	}
	rws, err := c.rewriters(doc)
	if err != nil {
		return nil, err
	}
	cr, err := c.core(doc, "", rws)
	if err != nil {
		return nil, err
	}
	r.core = cr
	r.HasFix = cr.fix != nil
	if v, ok := doc["labels"]; ok {
		if r.Labels, err = labels(v, cr); err != nil {
			return nil, err
		}
	}
	r.tokens = tokensByLength(cr)
	r.npats = c.pats
	return r, nil
}

// globs reads the configuration's files and ignores lists.
func (r *Rule) globs(doc map[string]any) error {
	for _, k := range []string{"files", "ignores"} {
		v, ok := doc[k]
		if !ok {
			continue
		}
		l, ok := v.([]any)
		if !ok {
			return errAt(k, "must be a list of globs, not %s", describe(v))
		}
		for i, g := range l {
			s, ok := g.(string)
			if !ok {
				return errAt(fmt.Sprintf("%s[%d]", k, i), "must be a glob string, not %s", describe(g))
			}
			if k == "files" {
				r.Files = append(r.Files, s)
			} else {
				r.Ignores = append(r.Ignores, s)
			}
		}
	}
	return nil
}

// rewriters compiles the configuration's rewriters, by id. They come
// first: the rule's transform names them, and one may name another.
func (c *compiler) rewriters(doc map[string]any) (map[string]*core, error) {
	var rewriterDocs []any
	if v, ok := doc["rewriters"]; ok {
		l, ok := v.([]any)
		if !ok {
			return nil, errAt("rewriters", "must be a list of rewriter objects (id, rule, fix), not %s", describe(v))
		}
		rewriterDocs = l
	}
	rws := map[string]*core{}
	for i, v := range rewriterDocs {
		path := fmt.Sprintf("%s[%d]", "rewriters", i)
		m, err := asMap(v, path, "rewriter")
		if err != nil {
			return nil, err
		}
		if err := checkKeys(m, path, "id", "rule", "constraints", "transform", "utils", "fix"); err != nil {
			return nil, err
		}
		id, _ := m["id"].(string)
		if id == "" {
			return nil, errAt(join(path, "id"), "a rewriter needs an id")
		}
		if _, dup := rws[id]; dup {
			return nil, errAt(join(path, "id"), "two rewriters have the id %q", id)
		}
		if _, ok := m["fix"]; !ok {
			return nil, errAt(join(path, "fix"), "rewriter %q needs a fix", id)
		}
		rws[id] = nil
	}
	for i, v := range rewriterDocs {
		path := fmt.Sprintf("%s[%d]", "rewriters", i)
		m := v.(map[string]any)
		cr, err := c.core(m, path, rws)
		if err != nil {
			return nil, err
		}
		rws[m["id"].(string)] = cr
	}
	return rws, nil
}

// tokensByLength lists the literal tokens every match of cr's rule
// contains, longest first, for a prefilter.
func tokensByLength(cr *core) []string {
	toks := map[string]bool{}
	tokensOf(cr.rule, toks, map[*utilRef]bool{})
	out := make([]string, 0, len(toks))
	for t := range toks {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}

// core compiles a rule with its constraints, utils, transform and fix (a
// configuration or a rewriter).
func (c *compiler) core(doc map[string]any, path string, rws map[string]*core) (*core, error) {
	sc := &scope{local: map[string]any{}, path: join(path, "utils"), done: map[string]*utilRef{}}
	if v, ok := doc["utils"]; ok {
		m, err := asMap(v, join(path, "utils"), "utils")
		if err != nil {
			return nil, err
		}
		sc.local = m
	}
	n, err := c.rule(doc["rule"], join(path, "rule"), sc)
	if err != nil {
		return nil, err
	}
	// every local util is compiled, named or not: an error in one is an
	// error, and a cycle too
	ids := slices.Sorted(maps.Keys(sc.local))
	for _, id := range ids {
		if _, err := c.localUtil(id, join(sc.path, id), sc); err != nil {
			return nil, err
		}
	}
	cr := &core{rule: n, rewriters: rws}
	cr.kinds, cr.known = kindsOf(n)
	if !cr.known {
		return nil, errAt(join(path, "rule"), "the rule can match a node of any kind, so it would be tried at every node: give it a kind or a pattern (at its top, in an all, or in every branch of an any); regex, not, nthChild, range and relational rules alone do not decide a kind")
	}
	if len(cr.kinds) == 0 {
		return nil, errAt(join(path, "rule"), "the rule can never match: its parts need nodes of different kinds at once (an all of two kinds or patterns that share none)")
	}
	if v, ok := doc["constraints"]; ok {
		m, err := asMap(v, join(path, "constraints"), "constraints")
		if err != nil {
			return nil, err
		}
		names := slices.Sorted(maps.Keys(m))
		for _, name := range names {
			if !isVarName(name) {
				return nil, errAt(join(join(path, "constraints"), name), "a constraint's key is a metavariable's name without its $ (%q is not one)", name)
			}
			cn, err := c.rule(m[name], join(join(path, "constraints"), name), sc)
			if err != nil {
				return nil, err
			}
			cr.constraints = append(cr.constraints, constraint{name: name, rule: cn})
		}
	}
	if v, ok := doc["transform"]; ok {
		defined := map[string]bool{}
		definedVars(n, defined, map[*utilRef]bool{})
		if cr.transforms, err = c.transforms(v, join(path, "transform"), rws, defined); err != nil {
			return nil, err
		}
	}
	if v, ok := doc["fix"]; ok {
		if cr.fix, err = c.fix(v, join(path, "fix"), sc); err != nil {
			return nil, err
		}
	}
	return cr, nil
}

func isVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, ch := range s {
		if !(ch == '_' || ch >= 'A' && ch <= 'Z' || i > 0 && ch >= '0' && ch <= '9') {
			return false
		}
	}
	return true
}

// Runner matches one Rule in trees. It holds one goroutine's matching
// state and is not safe for concurrent use: make one per worker.
type Runner struct {
	rule  *Rule
	ctx   context.Context
	ms    []*matcher.Matcher
	err   error
	ticks int
	// treeTicks are the steps spent in the current tree (Find)
	treeTicks int
	// ret is the node the last successful match yielded (relNode)
	ret engine.Node
	// depth is how many utils the current match is inside (matchesNode)
	depth int
}

// maxTicks bounds the rule steps (a node tried by a relational rule, a
// pattern tried) at one candidate node, maxTreeTicks those in one tree.
const (
	maxTicks     = 2_000_000
	maxTreeTicks = 50_000_000
)

// NewRunner returns a Runner for r.
func NewRunner(r *Rule) *Runner {
	return &Runner{rule: r, ctx: context.Background(), ms: make([]*matcher.Matcher, r.npats)}
}

func (r *Runner) matcherFor(p *patternNode) *matcher.Matcher {
	if r.ms[p.id] == nil {
		r.ms[p.id] = matcher.NewMatcher(p.pat)
	}
	return r.ms[p.id]
}

func (r *Runner) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// tick counts a step of rule matching; false once the context is done or
// the candidate's budget is spent.
func (r *Runner) tick() bool {
	if r.err != nil {
		return false
	}
	r.ticks++
	r.treeTicks++
	if r.ticks&1023 == 0 {
		if err := r.ctx.Err(); err != nil {
			r.fail(err)
			return false
		}
	}
	if r.ticks > maxTicks {
		r.fail(fmt.Errorf("%w: the rule's relational parts took more than %d steps at one node; narrow stopBy or add a kind", matcher.ErrTooExpensive, maxTicks))
		return false
	}
	if r.treeTicks > maxTreeTicks {
		r.fail(fmt.Errorf("%w: the rule took more than %d steps in one file; narrow stopBy (end searches the whole subtree or every ancestor) or add a kind", matcher.ErrTooExpensive, maxTreeTicks))
		return false
	}
	return true
}

// Match is one match of a rule: the node, its captures, and the values its
// transform computed.
type Match struct {
	matcher.Match
	// Transformed are the transform's variables, by name.
	Transformed map[string]string
}

// Kinds returns the node kinds a match can have: a tree with none of them
// has no match.
func (r *Rule) Kinds() []string { return append([]string(nil), r.core.kinds...) }

// Tokens returns literal tokens every match needs in its file, longest
// first: a file that lacks one has no match, and need not be parsed.
func (r *Rule) Tokens() []string { return append([]string(nil), r.tokens...) }

// Find returns every match of the rule in t, in pre-order (an enclosing
// match before those inside it; nested matches are reported too). It fails
// with the context's error, or ErrTooExpensive (wrapped) when matching at
// one node runs out of its budget.
func (r *Runner) Find(ctx context.Context, t *engine.Tree) ([]Match, error) {
	r.ctx, r.err, r.treeTicks = ctx, nil, 0
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Match
	cr := r.rule.core
	visited := 0
	t.Root().Walk(func(n engine.Node) bool {
		if r.err != nil {
			return false
		}
		if visited++; visited&4095 == 0 {
			if err := ctx.Err(); err != nil {
				r.fail(err)
				return false
			}
		}
		if !slices.Contains(cr.kinds, n.Kind()) {
			return true
		}
		r.ticks = 0
		if m, ok := r.matchCore(cr, n, nil); ok {
			out = append(out, m)
		}
		return true
	})
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}

// matchCore matches a rule with its constraints at n and computes its
// transform.
func (r *Runner) matchCore(cr *core, n engine.Node, e env) (Match, bool) {
	e, ok := cr.rule.match(r, n, e)
	if !ok {
		return Match{}, false
	}
	for _, c := range cr.constraints {
		var capt *matcher.Capture
		for i := range e {
			if e[i].Name == c.name && !e[i].Multi {
				capt = &e[i]
			}
		}
		if capt == nil || len(capt.Nodes) != 1 {
			continue
		}
		if _, ok := c.rule.match(r, capt.Nodes[0], e); !ok {
			return Match{}, false
		}
	}
	m := Match{Match: matcher.Match{Nodes: []engine.Node{n}, Captures: dedupe(e)}}
	if len(cr.transforms) > 0 {
		m.Transformed = r.transform(cr, n.Tree().Source(), m.Captures)
	}
	return m, true
}

// dedupe keeps the last capture of each name, in first-bound order; the
// secondary capture collects every node relational rules matched.
func dedupe(e env) []matcher.Capture {
	if len(e) == 0 {
		return nil
	}
	at := map[string]int{}
	var out []matcher.Capture
	for _, c := range e {
		if i, ok := at[c.Name]; ok {
			if c.Name == Secondary {
				out[i].Nodes = append(out[i].Nodes[:len(out[i].Nodes):len(out[i].Nodes)], c.Nodes...)
				continue
			}
			out[i] = c
			continue
		}
		at[c.Name] = len(out)
		out = append(out, c)
	}
	return out
}
