package matcher

import "bytes"
import "context"
import "errors"
import "fmt"
import "slices"
import "sort"

import "github.com/tetherhq/tether/engine"

// Matching budgets. A step is one unit of matching work: a pattern node
// compared with a candidate node, a split of a list tried for a $$$, a node
// visited while comparing a repeated metavariable's captures, a sibling
// looked at. Every one is counted, so a pattern with several $$$ over long
// sibling lists cannot hang a search, and running out is an error
// (ErrTooExpensive), never "no matches".
const (
	// stepBudget bounds the work spent matching at one candidate node.
	stepBudget = 200_000
	// treeBudget bounds the matching work in one tree (a file or a chunk).
	treeBudget = 50_000_000
	// checkEvery is how many steps pass between two looks at the context,
	// so that a cancelled search stops within a few microseconds of work.
	checkEvery = 1 << 10
)

// ErrTooExpensive is wrapped by the error of a match that ran out of its
// step budget (a *BudgetError): the match stops and says where, instead of
// reporting the matches it found so far as if they were all.
var ErrTooExpensive = errors.New("matcher: pattern too expensive")

// BudgetError says where matching ran out of its step budget. It wraps
// ErrTooExpensive.
type BudgetError struct {
	// Path names the file the tree came from, for the message; Matcher.Find
	// leaves it empty for its caller to fill in.
	Path string
	// At is the candidate node's start, zero-based, in the tree matched.
	At engine.Point
	// PerTree says that the budget of one tree ran out, not that of one
	// candidate node.
	PerTree bool
	// Budget is the number of steps that ran out.
	Budget int
}

func (e *BudgetError) Error() string {
	path := e.Path
	if path == "" {
		path = "the source"
	}
	where := fmt.Sprintf("at %s:%d:%d", path, e.At.Row+1, e.At.Column+1)
	what := fmt.Sprintf("matching it %s took more than its %d-step budget", where, e.Budget)
	if e.PerTree {
		what = fmt.Sprintf("matching it in %s took more than its %d-step budget for one file (stopped %s)", path, e.Budget, where)
	}
	why := " (each $$$ tries every split of a list, and a metavariable used twice compares its captures at each)"
	return fmt.Sprintf("%s: %s%s; nothing is reported, as the matches found so far need not be all: make it more specific (fewer $$$ or repeated metavariables, more literal code around them) or search a narrower path",
		ErrTooExpensive.Error(), what, why)
}

// Unwrap returns ErrTooExpensive.
func (e *BudgetError) Unwrap() error { return ErrTooExpensive }

// Capture is what one metavariable captured in a match.
type Capture struct {
	// Name is the metavariable's name without its sigil ("ARGS" for $$$ARGS).
	Name string
	// Multi says the metavariable is a $$$ one.
	Multi bool
	// Nodes are the captured nodes: one for $X; zero or more consecutive
	// siblings, separators included, for $$$X.
	Nodes []engine.Node
}

// span returns the byte range of the capture; an empty multi capture has
// none. It spans every node, in whatever order they were captured (a rule's
// secondary capture collects nodes from all over the match).
func (b *Capture) span() (start, end uint32, ok bool) {
	if len(b.Nodes) == 0 {
		return 0, 0, false
	}
	start, end = b.Nodes[0].StartByte(), b.Nodes[len(b.Nodes)-1].EndByte()
	if start > end {
		for _, n := range b.Nodes {
			start, end = min(start, n.StartByte()), max(end, n.EndByte())
		}
	}
	return start, end, true
}

// Text returns the source the capture spans, from its first node to its
// last; src is the source of the tree matched. An empty $$$ capture has none.
func (b *Capture) Text(src []byte) []byte {
	s, e, ok := b.span()
	if !ok {
		return nil
	}
	return src[s:e]
}

// Match is one place a pattern matched in a tree.
type Match struct {
	// Nodes are the matched node, or the run of siblings a pattern of
	// several statements matched.
	Nodes []engine.Node
	// Captures are the metavariables' captures, in the order they were
	// bound.
	Captures []Capture
	// Reading is the rung of the reading that matched when the pattern has
	// several (Pattern.Contexts), "" otherwise.
	Reading string
}

// Start is the byte offset where the match starts.
func (m *Match) Start() uint32 { return m.Nodes[0].StartByte() }

// End is the byte offset where the match ends (exclusive).
func (m *Match) End() uint32 { return m.Nodes[len(m.Nodes)-1].EndByte() }

// Matcher finds one pattern's matches in trees. It holds one goroutine's
// matching state and is not safe for concurrent use: make one per worker.
type Matcher struct {
	pat *Pattern
	src []byte
	// tree is the tree MatchNode last matched in (its budget is per tree)
	tree *engine.Tree
	env  []Capture
	// arena holds the children node lists and one-node captures of the
	// candidate being tried: a capture refers into it until snapshot
	// copies the match's. Entries are written once per candidate; it is
	// emptied when the next candidate starts.
	arena []engine.Node
	ctx   context.Context
	// budget and treeBudget are stepBudget and treeBudget (smaller in tests).
	budget, treeBudget int
	steps              int // spent at the current candidate
	treeSteps          int // spent in the current tree
	unchecked          int // steps since the context was last looked at
	// stop is why matching stopped: the context's error, or errBudget
	// (candidate says where).
	stop      error
	candidate engine.Node
	perTree   bool
	// strict is the pattern's strictness (Pattern.WithStrictness)
	strict Strictness
	// tried counts the nodes of the first reading's root kind the last
	// Find compared with it; near is the one of them that did not match
	// where matching took the most steps (nearSteps), for Candidates
	tried     int
	near      engine.Node
	nearSteps int
	// testHookCheck, when set by a test, runs at each look at the context.
	testHookCheck func()
}

// errBudget marks a matcher stopped by its step budget; Find turns it into a
// *BudgetError naming the place (m.candidate).
var errBudget = errors.New("step budget exhausted")

// NewMatcher returns a Matcher for p with the default step budgets.
func NewMatcher(p *Pattern) *Matcher {
	return &Matcher{pat: p, ctx: context.Background(), budget: stepBudget, treeBudget: treeBudget, strict: p.strict}
}

// Find returns every match of the pattern in t, in source order (an
// enclosing match before those inside it; nested matches are reported too).
// Comments are never match candidates. It fails with the context's error
// when ctx is done, and with a *BudgetError (wrapping ErrTooExpensive) when
// matching runs out of its step budget: then no match is returned, as those
// found so far need not be all.
func (m *Matcher) Find(ctx context.Context, t *engine.Tree) ([]Match, error) {
	m.ctx = ctx
	ms, err := m.findAll(t, 0)
	if errors.Is(err, errBudget) {
		budget := m.budget
		if m.perTree {
			budget = m.treeBudget
		}
		return nil, &BudgetError{At: m.candidate.Range().StartPoint, PerTree: m.perTree, Budget: budget}
	}
	return ms, err
}

// Candidates says, of the last Find, how many nodes of the kind of the
// pattern's root (Pattern.RootKind, in its first reading) it compared with
// the pattern, and which of them that did not match took the most
// matching work (steps, as the budgets count them): the nearest miss, a
// heuristic (work is 0 when there is none, or the root has no one kind).
// Counting costs Find nothing beyond the comparison it makes anyway.
func (m *Matcher) Candidates() (n int, near engine.Node, work int) {
	return m.tried, m.near, m.nearSteps
}

// tick counts n steps of work and reports whether matching may go on: false
// once the candidate's or the tree's budget is spent or the context is done
// (stop then says which).
func (m *Matcher) tick(n int) bool {
	if m.stop != nil {
		return false
	}
	m.steps += n
	m.treeSteps += n
	m.unchecked += n
	if m.unchecked >= checkEvery {
		m.unchecked = 0
		if m.testHookCheck != nil {
			m.testHookCheck()
		}
		if err := m.ctx.Err(); err != nil {
			m.stop = err
			return false
		}
	}
	if m.steps > m.budget || m.treeSteps > m.treeBudget {
		m.perTree = m.steps <= m.budget
		m.stop = errBudget
		return false
	}
	return true
}

// findAll returns every match in t in source order (pre-order; nested matches
// are reported too). Extras (comments) are never match candidates. It stops
// with an error when the context is done (the context's error) or the budget
// runs out (errBudget; m.candidate is where).
//
// A pattern of several readings (union.go) is matched in each; a range two
// readings match is reported once, by the reading ranked first, and each
// match says its reading's rung.
func (m *Matcher) findAll(t *engine.Tree, limit int) ([]Match, error) {
	m.src = t.Source()
	m.treeSteps = 0
	m.stop = nil
	m.tried, m.near, m.nearSteps = 0, engine.Node{}, 0
	if err := m.ctx.Err(); err != nil {
		return nil, err
	}
	if len(m.pat.alts) == 0 {
		return m.findIn(t, m.pat, limit)
	}
	type span struct{ start, end uint32 }
	seen := map[span]bool{}
	var out []Match
	for _, p := range m.pat.Readings() {
		raws, err := m.findIn(t, p, 0)
		if err != nil {
			return nil, err
		}
		for _, r := range raws {
			if k := (span{r.Start(), r.End()}); !seen[k] {
				seen[k] = true
				r.Reading = p.contextName
				out = append(out, r)
			}
		}
	}
	// source order; an enclosing match before the ones inside it
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Start() != out[j].Start() {
			return out[i].Start() < out[j].Start()
		}
		return out[i].End() > out[j].End()
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// findIn returns every match of one reading p in t, in source order.
func (m *Matcher) findIn(t *engine.Tree, p *Pattern, limit int) ([]Match, error) {
	var out []Match
	roots := p.roots
	single := len(roots) == 1
	var rootKind string
	if single && roots[0].meta.kind == metaNone && len(roots[0].alts) == 0 {
		rootKind = roots[0].kind
	}
	var kids []engine.Node
	minNodes := 0 // a sequence's fewest candidate nodes: $$$ may take none
	for _, r := range roots {
		if r.meta.kind != metaMulti {
			minNodes++
		}
	}
	t.Root().Walk(func(n engine.Node) bool {
		if limit > 0 && len(out) >= limit || m.stop != nil {
			return false
		}
		m.steps = 0
		m.candidate = n
		if !m.tick(1) {
			return false
		}
		if n.IsExtra() && !n.IsError() && !(single && roots[0].extra) {
			// comments; an ERROR node that error recovery marked extra
			// still holds code to search
			return false
		}
		if single {
			if rootKind != "" && n.Kind() != rootKind {
				return true
			}
			m.env, m.arena = m.env[:0], m.arena[:0]
			if m.node(roots[0], n) {
				out = append(out, m.withExtras(Match{Nodes: []engine.Node{n}, Captures: m.snapshot()}))
			} else if rootKind != "" && m.steps > m.nearSteps && p == m.pat {
				m.near, m.nearSteps = n, m.steps
			}
			if rootKind != "" && p == m.pat {
				m.tried++
			}
			return m.stop == nil
		}
		// a sequence pattern: consecutive children of n
		if n.ChildCount() < minNodes {
			return true
		}
		kids = nonExtraChildren(n, kids[:0])
		if !m.tick(len(kids)) {
			return false
		}
		// the closing delimiter of a block is no statement: a trailing
		// $$$ takes the statements up to it, not the "}"
		for len(kids) > 0 && !kids[len(kids)-1].IsNamed() {
			kids = kids[:len(kids)-1]
		}
		for i := 0; i < len(kids); i++ {
			if !kids[i].IsNamed() && (roots[0].meta.kind != metaNone || roots[0].kind != kids[i].Kind()) {
				continue
			}
			m.env, m.arena = m.env[:0], m.arena[:0]
			m.steps = 0
			m.candidate = kids[i]
			if end, ok := m.list(roots, kids[i:], false); ok {
				nodes := append([]engine.Node(nil), kids[i:i+end]...)
				out = append(out, m.withExtras(Match{Nodes: nodes, Captures: m.snapshot()}))
				i += end - 1
			}
			if m.stop != nil {
				return false
			}
		}
		return true
	})
	if m.stop != nil {
		return nil, m.stop
	}
	if !single {
		// a sequence found at an outer level is reported before the ones
		// inside its earlier siblings by the walk: source order is by start
		sort.SliceStable(out, func(i, j int) bool { return out[i].Nodes[0].StartByte() < out[j].Nodes[0].StartByte() })
	}
	return out, nil
}

// withExtras gives each non-empty $$$ capture the comments (extras) among
// and next to its nodes, up to the pattern's neighbouring nodes and within
// the match, as ast-grep's captures have them: { $$$B } takes a body's
// leading and trailing comments, so a rewrite keeps them.
func (m *Matcher) withExtras(r Match) Match {
	lo, hi := r.Start(), r.End()
	for i := range r.Captures {
		b := &r.Captures[i]
		if !b.Multi || len(b.Nodes) == 0 {
			continue
		}
		parent, ok := b.Nodes[0].Parent()
		if !ok {
			continue
		}
		sibs := parent.Children()
		m.tick(len(sibs))
		first, last := -1, -1
		for k, c := range sibs {
			if c.Index() == b.Nodes[0].Index() {
				first = k
			}
			if c.Index() == b.Nodes[len(b.Nodes)-1].Index() {
				last = k
			}
		}
		if first < 0 || last < first {
			continue
		}
		for first > 0 && sibs[first-1].IsExtra() && sibs[first-1].StartByte() >= lo {
			first--
		}
		for last+1 < len(sibs) && sibs[last+1].IsExtra() && sibs[last+1].EndByte() <= hi {
			last++
		}
		if last-first+1 != len(b.Nodes) {
			b.Nodes = append([]engine.Node(nil), sibs[first:last+1]...)
		}
	}
	return r
}

func (m *Matcher) snapshot() []Capture {
	if len(m.env) == 0 {
		return nil
	}
	// One array holds every capture's nodes: the env refers into the arena,
	// which the next candidate reuses.
	total := 0
	for _, b := range m.env {
		total += len(b.Nodes)
	}
	nodes := make([]engine.Node, 0, total)
	out := make([]Capture, 0, len(m.env))
next:
	for _, b := range m.env {
		start := len(nodes)
		nodes = append(nodes, b.Nodes...)
		nb := Capture{Name: b.Name, Multi: b.Multi, Nodes: nodes[start:len(nodes):len(nodes)]}
		for i := range out {
			if out[i].Name == b.Name {
				out[i] = nb // a repeated metavariable reports its last capture, as ast-grep does
				continue next
			}
		}
		out = append(out, nb)
	}
	return out
}

// hold returns a one-node list of c in the arena (see Matcher.arena).
func (m *Matcher) hold(c engine.Node) []engine.Node {
	m.arena = append(m.arena, c)
	n := len(m.arena)
	return m.arena[n-1 : n : n]
}

func nonExtraChildren(n engine.Node, buf []engine.Node) []engine.Node {
	for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
		if c.IsExtra() {
			continue
		}
		buf = append(buf, c)
	}
	return buf
}

// bind records a capture, or checks it against an earlier capture of the same
// name: a repeated metavariable must capture the same text.
func (m *Matcher) bind(name string, multi bool, nodes []engine.Node) bool {
	if name == "" {
		return true
	}
	nb := Capture{Name: name, Multi: multi, Nodes: nodes}
	if !m.tick(1) {
		return false
	}
	for i := range m.env {
		if m.env[i].Name == name {
			if !m.sameCapture(&m.env[i], &nb) {
				return false
			}
			// the same text again: kept after the first, so a backtrack that
			// drops it leaves the earlier capture, and the match reports the
			// last (snapshot)
			break
		}
	}
	m.env = append(m.env, nb)
	return true
}

// node matches one pattern node against one candidate node.
func (m *Matcher) node(p *pnode, c engine.Node) bool {
	if !m.tick(1) {
		return false
	}
	switch p.meta.kind {
	case metaSingle:
		if !c.IsNamed() {
			return false
		}
		return m.bind(p.meta.name, false, m.hold(c))
	case metaAny:
		return m.bind(p.meta.name, false, m.hold(c))
	case metaMulti:
		return m.bind(p.meta.name, true, m.hold(c))
	}
	if c.Kind() != p.kind && !slices.Contains(p.alts, c.Kind()) {
		return false
	}
	if p.leaf {
		// a token (an anonymous leaf) is its kind, whatever its text: C's
		// "# define" is the "#define" token, PHP's "ECHO" the "echo"
		// keyword, as ast-grep compares them; with signature strictness a
		// named leaf is its kind too
		return !p.named || m.strict == StrictSignature || string(c.Bytes()) == p.text
	}
	if c.ChildCount() == 0 {
		return false
	}
	start := len(m.arena)
	m.arena = nonExtraChildren(c, m.arena)
	kids := m.arena[start:len(m.arena):len(m.arena)]
	if !m.tick(len(kids)) {
		return false
	}
	pkids := p.kids
	if m.strict >= StrictAST {
		// only named nodes are compared, the pattern's and the candidate's
		kids = namedOnly(kids)
		pkids = namedPattern(pkids)
	}
	_, ok := m.list(pkids, kids, true)
	return ok
}

// namedOnly keeps the named nodes of ns, in place.
func namedOnly(ns []engine.Node) []engine.Node {
	out := ns[:0]
	for _, n := range ns {
		if n.IsNamed() {
			out = append(out, n)
		}
	}
	return out
}

// namedPattern returns the pattern nodes that stand for named nodes: the
// metavariables and the named nodes, not the tokens.
func namedPattern(ps []*pnode) []*pnode {
	for _, p := range ps {
		if p.meta.kind == metaNone && p.leaf && !p.named {
			out := make([]*pnode, 0, len(ps))
			for _, q := range ps {
				if q.meta.kind != metaNone || !q.leaf || q.named {
					out = append(out, q)
				}
			}
			return out
		}
	}
	return ps
}

// list matches a pattern node list against candidate siblings. Anonymous
// candidate nodes the pattern does not mention are skipped before a pattern
// token (not before a metavariable or an inner node), and so are any
// trailing ones (ast-grep's "smart" strictness); named ones before the last
// pattern node are not. list reports how many candidate nodes the match used
// (all of them with whole).
func (m *Matcher) list(ps []*pnode, cs []engine.Node, whole bool) (int, bool) {
	if !m.tick(1) {
		return 0, false
	}
	if len(ps) == 0 {
		if !whole {
			return 0, true
		}
		if m.strict != StrictSmart && len(cs) > 0 {
			// only smart skips what follows the pattern's last node
			return 0, false
		}
		// trailing candidate nodes the pattern does not mention are skipped,
		// named or not, as ast-grep's "smart" strictness does: a pattern
		// try { $$$ } catch ($T $E) { $$$ } matches a try that also has a
		// finally clause
		return len(cs), true
	}
	p := ps[0]
	mark := len(m.env)
	if p.meta.kind == metaMulti {
		if len(ps) == 1 {
			// a trailing $$$ takes the rest
			if m.bind(p.meta.name, true, cs) {
				return len(cs), true
			}
			m.env = m.env[:mark]
			return 0, false
		}
		if whole && allTokens(ps[1:]) {
			// a $$$ followed only by tokens ("f($$$A)", "f($$$A,)", "{ $$$ }")
			// takes the candidates but as many last ones as there are
			// tokens, unchecked, as ast-grep does: f($$$A) binds "a, b," of
			// f(a, b,), trailing comma included, and f($$$A,) matches f(a)
			if m.bind(p.meta.name, true, cs[:max(len(cs)-(len(ps)-1), 0)]) {
				return len(cs), true
			}
			m.env = m.env[:mark]
			return 0, false
		}
		for k := 0; k <= len(cs); k++ {
			if m.bind(p.meta.name, true, cs[:k]) {
				if n, ok := m.list(ps[1:], cs[k:], whole); ok {
					return k + n, true
				}
				// an empty $$$ takes the separator after it along, as
				// ast-grep skips it: f($A, $$$M, $Z) matches f(a, b)
				if next := ps[1]; k == 0 && len(ps) > 2 && next.leaf && !next.named && next.meta.kind == metaNone {
					if n, ok := m.list(ps[2:], cs, whole); ok {
						return n, true
					}
				}
			}
			m.env = m.env[:mark]
			if m.stop != nil {
				return 0, false
			}
		}
		return 0, false
	}
	for i := 0; i < len(cs); i++ {
		if m.node(p, cs[i]) {
			if n, ok := m.list(ps[1:], cs[i+1:], whole); ok {
				return i + 1 + n, true
			}
		}
		m.env = m.env[:mark]
		// an anonymous candidate node is skipped only before a pattern
		// token (ast-grep's smart strictness): "function $F() {}" matches an
		// async function, "$P => $B" does not match "async x => x"
		if cs[i].IsNamed() || !p.leaf || p.meta.kind != metaNone || m.strict == StrictCST || m.stop != nil {
			return 0, false
		}
	}
	return 0, false
}

// allTokens reports whether ps are all tokens (anonymous leaves, no
// metavariable).
func allTokens(ps []*pnode) bool {
	for _, p := range ps {
		if !p.leaf || p.named || p.meta.kind != metaNone {
			return false
		}
	}
	return true
}

// sameCapture reports whether two captures of one metavariable are the
// same code, counting the work: the same text, or the same tokens (leaf
// kinds and text) in the same order, spacing and comments aside, as ast-grep
// compares a repeated metavariable's captures ("a+b" is "a + b"; "(a + b)"
// is not).
func (m *Matcher) sameCapture(a, b *Capture) bool {
	ta, tb := a.Text(m.src), b.Text(m.src)
	if !m.tick(1 + min(len(ta), len(tb))/64) {
		return false
	}
	if bytes.Equal(ta, tb) {
		return true
	}
	return m.sameTokens(a.Nodes, b.Nodes)
}

// sameTokens compares the non-extra leaves under a and b in order, one step
// per node visited; it stops at the first difference (most captures differ
// in their first token) and when the budget runs out.
func (m *Matcher) sameTokens(a, b []engine.Node) bool {
	var ta []engine.Node
	for _, n := range a {
		n.Walk(func(k engine.Node) bool {
			if m.stop != nil || !m.tick(1) || k.IsExtra() {
				return false
			}
			if k.ChildCount() == 0 && k.EndByte() > k.StartByte() {
				ta = append(ta, k)
			}
			return true
		})
	}
	if m.stop != nil {
		return false
	}
	i, same := 0, true
	for _, n := range b {
		n.Walk(func(k engine.Node) bool {
			if !same || !m.tick(1) || k.IsExtra() {
				same = same && m.stop == nil
				return false
			}
			if k.ChildCount() == 0 && k.EndByte() > k.StartByte() {
				if i >= len(ta) || ta[i].Kind() != k.Kind() || !bytes.Equal(ta[i].Bytes(), k.Bytes()) {
					same = false
					return false
				}
				i++
			}
			return true
		})
		if !same {
			return false
		}
	}
	return i == len(ta)
}
