package rule

import "fmt"
import "regexp"
import "slices"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/matcher"

// env is the captures bound so far. Matching never changes the env it is
// given: a rule that matches returns a new one, so a failed branch leaves
// nothing behind.
type env = []matcher.Capture

// node is one compiled rule.
type node interface {
	match(r *Runner, n engine.Node, e env) (env, bool)
}

type patternNode struct {
	pat   *matcher.Pattern
	id    int
	kinds []string
	all   bool
}

func (p *patternNode) match(r *Runner, n engine.Node, e env) (env, bool) {
	if p.all && !slices.Contains(p.kinds, n.Kind()) {
		return nil, false
	}
	if !r.tick() {
		return nil, false
	}
	out, ok, err := r.matcherFor(p).MatchNode(r.ctx, n, e)
	if err != nil {
		r.fail(err)
		return nil, false
	}
	r.ret = n
	return out, ok
}

type kindNode struct{ kind string }

func (k *kindNode) match(r *Runner, n engine.Node, e env) (env, bool) {
	// a kind names a named node, as ast-grep resolves it: Python's await
	// expression, not the await keyword inside it
	r.ret = n
	return e, n.IsNamed() && n.Kind() == k.kind
}

type regexNode struct{ re *regexp.Regexp }

func (x *regexNode) match(r *Runner, n engine.Node, e env) (env, bool) {
	if !r.tick() {
		return nil, false
	}
	r.ret = n
	return e, x.re.Match(n.Bytes())
}

// rangeNode matches a node by where it starts and ends; a column of -1 is
// not compared.
type rangeNode struct{ start, end rangePos }

type rangePos struct{ line, col int }

func (x *rangeNode) match(r *Runner, n engine.Node, e env) (env, bool) {
	rg := n.Range()
	if int(rg.StartPoint.Row) != x.start.line || int(rg.EndPoint.Row) != x.end.line {
		return nil, false
	}
	src := n.Tree().Source()
	if x.start.col >= 0 && charColumn(src, rg.StartByte) != x.start.col ||
		x.end.col >= 0 && charColumn(src, rg.EndByte) != x.end.col {
		return nil, false
	}
	r.ret = n
	return e, true
}

// charColumn is the column of byte offset at in src counted in
// characters (UTF-8 sequences) from the line's start, as ast-grep counts
// a range's columns.
func charColumn(src []byte, at uint32) int {
	col := 0
	for i := int(at) - 1; i >= 0 && src[i] != '\n'; i-- {
		if src[i]&0xC0 != 0x80 {
			col++
		}
	}
	return col
}

// nthNode matches a node by its 1-based position An+B among its named
// siblings (those matching of, when set), counted from the end with
// reverse.
type nthNode struct {
	a, b    int
	reverse bool
	of      node
}

func (x *nthNode) match(r *Runner, n engine.Node, e env) (env, bool) {
	parent, ok := n.Parent()
	if !ok || !n.IsNamed() {
		return nil, false
	}
	var sibs []engine.Node
	own := e
	for c, ok := parent.FirstChild(); ok; c, ok = c.NextSibling() {
		if !c.IsNamed() {
			continue
		}
		if !r.tick() {
			return nil, false
		}
		if x.of != nil {
			// each sibling is tried with e; the node's own captures of
			// of are kept, as ast-grep keeps them
			out, ok := x.of.match(r, c, e)
			if !ok {
				continue
			}
			if c.Index() == n.Index() {
				own = out
			}
		}
		sibs = append(sibs, c)
	}
	pos := -1
	for i, c := range sibs {
		if c.Index() == n.Index() {
			pos = i + 1
			if x.reverse {
				pos = len(sibs) - i
			}
		}
	}
	if pos < 0 {
		return nil, false
	}
	r.ret = n
	if x.a == 0 {
		return own, pos == x.b
	}
	d := pos - x.b
	return own, d%x.a == 0 && d/x.a >= 0
}

type allNode struct{ rules []node }

func (x *allNode) match(r *Runner, n engine.Node, e env) (env, bool) {
	for _, sub := range x.rules {
		var ok bool
		if e, ok = sub.match(r, n, e); !ok {
			return nil, false
		}
	}
	r.ret = n
	return e, true
}

type anyNode struct{ rules []node }

func (x *anyNode) match(r *Runner, n engine.Node, e env) (env, bool) {
	for _, sub := range x.rules {
		if out, ok := sub.match(r, n, e); ok {
			return out, true
		}
		if r.err != nil {
			return nil, false
		}
	}
	return nil, false
}

type notNode struct{ rule node }

func (x *notNode) match(r *Runner, n engine.Node, e env) (env, bool) {
	if _, ok := x.rule.match(r, n, e); ok || r.err != nil {
		return nil, false
	}
	r.ret = n
	return e, true
}

type matchesNode struct{ ref *utilRef }

func (x *matchesNode) match(r *Runner, n engine.Node, e env) (env, bool) {
	// a util that names itself through a relation recurses as deep as
	// the tree, or forever where two relations lead back (has, then
	// inside): bounded here
	if r.depth >= maxUtilDepth {
		r.fail(fmt.Errorf("%w: util %q matched itself through its relational rules more than %d deep at one node; make its relations lead one way (has or inside, not both)", matcher.ErrTooExpensive, x.ref.id, maxUtilDepth))
		return nil, false
	}
	r.depth++
	out, ok := x.ref.rule.match(r, n, e)
	r.depth--
	return out, ok
}

// maxUtilDepth bounds how deep utils nest in one match: deeper than
// trees are, far below what the goroutine's stack holds.
const maxUtilDepth = 5000

// relNode is inside, has, follows or precedes: the node relates so to a
// node that matches rule. As in ast-grep, a rule's match yields a node
// (Runner.ret): the node matched, but for a relational rule the node it
// found (for an any, its branch's); that node is the secondary label. Without toEnd only the nearest is tried (the
// parent, a child, the sibling next to it); with it every one, out to the
// first that matches stop (tried itself) when stop is set.
type relNode struct {
	rel   string
	rule  node
	toEnd bool
	stop  node
	field string
}

func (x *relNode) stopsAt(r *Runner, n engine.Node, e env) bool {
	if x.stop == nil {
		return false
	}
	_, ok := x.stop.match(r, n, e)
	return ok
}

func (x *relNode) match(r *Runner, n engine.Node, e env) (env, bool) {
	switch x.rel {
	case "has":
		for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
			if x.field != "" && c.Field() != x.field {
				continue
			}
			if out, ok := x.hasFrom(r, c, e); ok {
				return out, true
			}
			if r.err != nil {
				return nil, false
			}
		}
		return nil, false
	case "inside":
		cur := n
		for p, ok := cur.Parent(); ok; p, ok = cur.Parent() {
			if !r.tick() {
				return nil, false
			}
			if x.field == "" || fieldChildIs(p, x.field, cur) {
				if out, ok := x.rule.match(r, p, e); ok {
					return secondary(out, r.ret), true
				}
			}
			if !x.toEnd || x.stopsAt(r, p, e) || r.err != nil {
				return nil, false
			}
			cur = p
		}
		return nil, false
	}
	parent, ok := n.Parent()
	if !ok {
		return nil, false
	}
	kids := parent.Children()
	at := -1
	for i, c := range kids {
		if c.Index() == n.Index() {
			at = i
			break
		}
	}
	step := -1 // follows: the siblings before, nearest first
	if x.rel == "precedes" {
		step = 1
	}
	for i := at + step; i >= 0 && i < len(kids); i += step {
		if !r.tick() {
			return nil, false
		}
		if out, ok := x.rule.match(r, kids[i], e); ok {
			return secondary(out, r.ret), true
		}
		if !x.toEnd || x.stopsAt(r, kids[i], e) || r.err != nil {
			return nil, false
		}
	}
	return nil, false
}

// Secondary is the name of the capture that collects the nodes a match's
// relational rules matched (the node inside which it is, the one it has,
// follows or precedes), as ast-grep labels them: scan reports them as
// secondary labels and as the $$$secondary capture.
const Secondary = "secondary"

// secondary returns e with n added to the secondary capture, e itself left
// as it was.
func secondary(e env, n engine.Node) env {
	return append(e[:len(e):len(e)], matcher.Capture{Name: Secondary, Multi: true, Nodes: []engine.Node{n}})
}

// hasFrom tries c, then (to the end) its descendants in pre-order, not
// below a node that matches stop.
func (x *relNode) hasFrom(r *Runner, c engine.Node, e env) (env, bool) {
	if !r.tick() {
		return nil, false
	}
	if out, ok := x.rule.match(r, c, e); ok {
		return secondary(out, r.ret), true
	}
	if !x.toEnd || r.err != nil || x.stopsAt(r, c, e) {
		return nil, false
	}
	for k, ok := c.FirstChild(); ok; k, ok = k.NextSibling() {
		if out, ok := x.hasFrom(r, k, e); ok {
			return out, true
		}
		if r.err != nil {
			return nil, false
		}
	}
	return nil, false
}

// fieldChildIs reports whether the first child of p in field is c.
func fieldChildIs(p engine.Node, field string, c engine.Node) bool {
	f, ok := p.ChildByField(field)
	return ok && f.Index() == c.Index()
}

// kindsOf returns the kinds of node a match of n can have, and whether
// that is known (a "positive" rule, in ast-grep's words): a pattern's root
// kinds, a kind; all's intersection of its known parts, any's union when
// every branch is known, a util's. Others (regex, not, relational rules)
// match a node of any kind.
func kindsOf(n node) ([]string, bool) {
	switch x := n.(type) {
	case *patternNode:
		return x.kinds, x.all
	case *kindNode:
		return []string{x.kind}, true
	case *nthNode:
		// a node counted among those of matches them
		if x.of != nil {
			return kindsOf(x.of)
		}
	case *matchesNode:
		return x.ref.kinds, x.ref.known
	case *allNode:
		var out []string
		known := false
		for _, s := range x.rules {
			ks, ok := kindsOf(s)
			if !ok {
				continue
			}
			if !known {
				out, known = ks, true
				continue
			}
			var both []string
			for _, k := range out {
				if slices.Contains(ks, k) {
					both = append(both, k)
				}
			}
			out = both
		}
		return out, known
	case *anyNode:
		var out []string
		for _, s := range x.rules {
			ks, ok := kindsOf(s)
			if !ok {
				return nil, false
			}
			for _, k := range ks {
				if !slices.Contains(out, k) {
					out = append(out, k)
				}
			}
		}
		return out, true
	}
	return nil, false
}

// tokensOf adds to out the literal tokens every match of n needs in its
// file: a pattern's (Pattern.Tokens), those of every part of an all, of
// the rule a relational rule relates to (that node is in the same file),
// of a util; an any's or a not's add none, nor do kind, regex, nthChild
// and range.
func tokensOf(n node, out map[string]bool, seen map[*utilRef]bool) {
	switch x := n.(type) {
	case *patternNode:
		for _, t := range x.pat.Tokens() {
			out[t] = true
		}
	case *allNode:
		for _, s := range x.rules {
			tokensOf(s, out, seen)
		}
	case *relNode:
		tokensOf(x.rule, out, seen)
	case *matchesNode:
		if !seen[x.ref] && x.ref.rule != nil {
			seen[x.ref] = true
			tokensOf(x.ref.rule, out, seen)
		}
	}
}
