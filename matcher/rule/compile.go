package rule

import "context"
import "errors"
import "fmt"
import "math"
import "regexp"
import "sort"
import "strings"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"

// ErrInvalid is wrapped by every error about a rule as written: an unknown
// key, a value of the wrong type, a rule that can never match, a cycle in
// utils. The message names the place in the rule ("rule.all[1].has: ...").
var ErrInvalid = errors.New("rule: invalid rule")

func errAt(path, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalid, path, fmt.Sprintf(format, args...))
}

// Utils are rules by id that a rule's matches can name: a configuration's
// own utils, or a project's global ones (utilDirs).
type Utils map[string]*Util

// Util is one utility rule as written, compiled when a rule names it.
type Util struct {
	// ID is the name matches uses.
	ID string
	// Language is the language the util is for; "" for a rule's own.
	Language string
	// Rule is the rule object.
	Rule any
	// Utils are the util's own local utils (a global util file may have them).
	Utils map[string]any
	// Source names where the util was read, for errors ("utils/x.yml").
	Source string
}

// compiler holds what compiling one configuration needs.
type compiler struct {
	ctx    context.Context
	parser matcher.Parser
	lang   *grammars.Language
	kinds  map[string]bool
	global Utils
	pats   int // patterns compiled so far: each has its matcher in a Runner
	// globalDone are the global utils compiled (a nil rule: being
	// compiled), globalVisiting the chain being compiled, globalScopes
	// each global util's own scope
	globalDone     map[string]*utilRef
	globalVisiting []visit
	globalScopes   map[*Util]*scope
	// rels counts the relational rules and nthChild ofRules the rule
	// being compiled is inside: a util may name itself through one
	rels int
}

// visit is a util being compiled, with the compiler's rels when it began.
type visit struct {
	id   string
	rels int
}

// scope is the utils visible from a rule: its configuration's local ones,
// then the global ones. Compiled utils are shared by every rule of a scope.
type scope struct {
	local    map[string]any
	path     string // where local utils are written ("utils")
	done     map[string]*utilRef
	visiting []visit
	parent   *scope // the enclosing scope for a global util's own locals
}

// utilRef is a compiled util; matches nodes point at it.
type utilRef struct {
	id    string
	rule  node
	kinds []string
	known bool // kinds is the whole set of kinds a match can have
}

func (c *compiler) kindsOf(lang *grammars.Language) (map[string]bool, error) {
	t, err := c.parser.Parse(c.ctx, lang, nil)
	if err != nil {
		return nil, fmt.Errorf("rule: cannot load the %s grammar: %w", lang.ID, err)
	}
	out := map[string]bool{}
	for _, k := range t.KindNames() {
		if k != "" {
			out[k] = true
		}
	}
	return out, nil
}

// asMap returns v as a rule object, or an error at path.
func asMap(v any, path, what string) (map[string]any, error) {
	switch m := v.(type) {
	case map[string]any:
		return m, nil
	case nil:
		return nil, errAt(path, "%s is empty: write a %s object", what, what)
	}
	return nil, errAt(path, "%s must be an object, not %s", what, describe(v))
}

func describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", x)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	case bool:
		return "a boolean"
	case int, int64, float64, uint64:
		return fmt.Sprintf("the number %v", x)
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("%T", v)
}

// checkKeys refuses keys of m that are not in allowed, naming the first
// (sorted) and what is allowed.
func checkKeys(m map[string]any, path string, allowed ...string) error {
	var bad []string
	for k := range m {
		ok := false
		for _, a := range allowed {
			if k == a {
				ok = true
				break
			}
		}
		if !ok {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return errAt(join(path, bad[0]), "unknown key %q: the keys allowed here are %s", bad[0], strings.Join(allowed, ", "))
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

var ruleKeys = []string{"pattern", "kind", "regex", "nthChild", "range", "inside", "has", "follows", "precedes", "all", "any", "not", "matches"}

// rule compiles one rule object at path.
func (c *compiler) rule(v any, path string, sc *scope) (node, error) {
	m, err := asMap(v, path, "rule")
	if err != nil {
		return nil, err
	}
	if err := checkKeys(m, path, ruleKeys...); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, errAt(path, "the rule object is empty: give it at least one of %s", strings.Join(ruleKeys, ", "))
	}
	var parts []node
	// atomic rules first, then composite, then relational: the node the
	// others decide on is what the relational rules relate to, and the
	// order is what the captures of one part are seen by the next in
	if p, ok := m["pattern"]; ok {
		n, err := c.pattern(p, join(path, "pattern"))
		if err != nil {
			return nil, err
		}
		parts = append(parts, n)
	}
	if k, ok := m["kind"]; ok {
		s, ok := k.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return nil, errAt(join(path, "kind"), "kind must be a node kind's name or a selector of them, not %s", describe(k))
		}
		n, err := c.kind(strings.TrimSpace(s), join(path, "kind"))
		if err != nil {
			return nil, err
		}
		parts = append(parts, n)
	}
	if r, ok := m["regex"]; ok {
		s, ok := r.(string)
		if !ok {
			return nil, errAt(join(path, "regex"), "regex must be a string, not %s", describe(r))
		}
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, errAt(join(path, "regex"), "%v", err)
		}
		parts = append(parts, &regexNode{re: re})
	}
	if v, ok := m["nthChild"]; ok {
		n, err := c.nthChild(v, join(path, "nthChild"), sc)
		if err != nil {
			return nil, err
		}
		parts = append(parts, n)
	}
	if v, ok := m["range"]; ok {
		n, err := rangeRule(v, join(path, "range"))
		if err != nil {
			return nil, err
		}
		parts = append(parts, n)
	}
	if v, ok := m["all"]; ok {
		subs, err := c.list(v, join(path, "all"), sc)
		if err != nil {
			return nil, err
		}
		parts = append(parts, &allNode{rules: subs})
	}
	if v, ok := m["any"]; ok {
		subs, err := c.list(v, join(path, "any"), sc)
		if err != nil {
			return nil, err
		}
		parts = append(parts, &anyNode{rules: subs})
	}
	if v, ok := m["not"]; ok {
		sub, err := c.rule(v, join(path, "not"), sc)
		if err != nil {
			return nil, err
		}
		parts = append(parts, &notNode{rule: sub})
	}
	if v, ok := m["matches"]; ok {
		id, ok := v.(string)
		if !ok || id == "" {
			return nil, errAt(join(path, "matches"), "matches must be a util's id, not %s", describe(v))
		}
		ref, err := c.util(id, join(path, "matches"), sc)
		if err != nil {
			return nil, err
		}
		parts = append(parts, &matchesNode{ref: ref})
	}
	for _, rel := range []string{"inside", "has", "precedes", "follows"} {
		if v, ok := m[rel]; ok {
			n, err := c.relation(rel, v, join(path, rel), sc)
			if err != nil {
				return nil, err
			}
			parts = append(parts, n)
		}
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return &allNode{rules: parts}, nil
}

// kind compiles a kind: a node kind's name, or a selector of kinds
// (selector.go).
func (c *compiler) kind(s, path string) (node, error) {
	plain := true
	for i := 0; i < len(s); i++ {
		if !isIdentStart(s[i]) && (i == 0 || s[i] < '0' || s[i] > '9') {
			plain = false
			break
		}
	}
	if !plain {
		return c.selectorRule(s, path)
	}
	if !c.kinds[s] {
		return nil, errAt(path, "%q is not a node kind of %s: `tether parse` on a sample prints the kinds", s, c.lang.ID)
	}
	return &kindNode{kind: s}, nil
}

func (c *compiler) list(v any, path string, sc *scope) ([]node, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, errAt(path, "must be a list of rule objects, not %s", describe(v))
	}
	if len(l) == 0 {
		return nil, errAt(path, "the list is empty: give it at least one rule object")
	}
	out := make([]node, 0, len(l))
	for i, r := range l {
		n, err := c.rule(r, fmt.Sprintf("%s[%d]", path, i), sc)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func (c *compiler) pattern(v any, path string) (node, error) {
	var (
		pat    *matcher.Pattern
		err    error
		strict = matcher.StrictSmart
	)
	switch p := v.(type) {
	case string:
		pat, err = matcher.Compile(c.ctx, c.parser, c.lang, p)
	case map[string]any:
		if err := checkKeys(p, path, "context", "selector", "strictness"); err != nil {
			return nil, err
		}
		ctxt, ok := p["context"].(string)
		if !ok {
			return nil, errAt(join(path, "context"), "a pattern object needs context, the code as a string, not %s", describe(p["context"]))
		}
		if s, ok := p["strictness"]; ok {
			name, _ := s.(string)
			st, err := matcher.ParseStrictness(name)
			if err != nil {
				return nil, errAt(join(path, "strictness"), "strictness %v: use cst, smart, ast, relaxed or signature", s)
			}
			strict = st
		}
		sel, has := p["selector"]
		if !has {
			pat, err = matcher.Compile(c.ctx, c.parser, c.lang, ctxt)
			break
		}
		s, ok := sel.(string)
		if !ok {
			return nil, errAt(join(path, "selector"), "selector must be a node kind's name, not %s", describe(sel))
		}
		pat, err = matcher.CompileSelector(c.ctx, c.parser, c.lang, ctxt, s)
	default:
		return nil, errAt(path, "pattern must be a string or an object with context and selector, not %s", describe(v))
	}
	if err != nil {
		if ctxErr := c.ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, errAt(path, "%v", err)
	}
	if strict != matcher.StrictSmart {
		pat = pat.WithStrictness(strict)
	}
	kinds, all := pat.RootKinds()
	n := &patternNode{pat: pat, id: c.pats, kinds: kinds, all: all}
	c.pats++
	return n, nil
}

func (c *compiler) nthChild(v any, path string, sc *scope) (node, error) {
	n := &nthNode{}
	var pos any
	switch x := v.(type) {
	case map[string]any:
		if err := checkKeys(x, path, "position", "reverse", "ofRule"); err != nil {
			return nil, err
		}
		p, ok := x["position"]
		if !ok {
			return nil, errAt(path, "an nthChild object needs position (a number or An+B)")
		}
		pos = p
		if r, ok := x["reverse"]; ok {
			b, ok := r.(bool)
			if !ok {
				return nil, errAt(join(path, "reverse"), "reverse must be true or false, not %s", describe(r))
			}
			n.reverse = b
		}
		if r, ok := x["ofRule"]; ok {
			c.rels++
			sub, err := c.rule(r, join(path, "ofRule"), sc)
			c.rels--
			if err != nil {
				return nil, err
			}
			n.of = sub
		}
	default:
		pos = v
	}
	a, b, err := parseNth(pos)
	if err != nil {
		return nil, errAt(path, "%v", err)
	}
	n.a, n.b = a, b
	return n, nil
}

// parseNth reads a position: a number (1-based) or An+B ("2n+1", "-n+3"),
// as ast-grep reads it; a position no node has (0, -1) is refused.
func parseNth(v any) (a, b int, err error) {
	if k, ok := toInt(v); ok {
		if k < 1 {
			return 0, 0, fmt.Errorf("position %d: positions start at 1", k)
		}
		return 0, k, nil
	}
	s, ok := v.(string)
	if !ok {
		return 0, 0, fmt.Errorf("position must be a number or An+B, not %s", describe(v))
	}
	if a, b, err = parseAnB(s); err == nil && a == 0 && b < 1 {
		err = fmt.Errorf("position %q: positions start at 1", s)
	}
	return a, b, err
}

func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case uint64:
		return int(x), x <= math.MaxInt
	case float64:
		if x == math.Trunc(x) {
			return int(x), true
		}
	}
	return 0, false
}

// rangeRule reads a range: start and end, each a 0-based line and an
// optional column counted in characters, as ast-grep counts them.
func rangeRule(v any, path string) (node, error) {
	m, err := asMap(v, path, "range")
	if err != nil {
		return nil, err
	}
	if err := checkKeys(m, path, "start", "end"); err != nil {
		return nil, err
	}
	var pts [2]rangePos
	for i, k := range []string{"start", "end"} {
		pm, err := asMap(m[k], join(path, k), "position")
		if err != nil {
			return nil, err
		}
		if err := checkKeys(pm, join(path, k), "line", "column"); err != nil {
			return nil, err
		}
		line, ok := toInt(pm["line"])
		if !ok || line < 0 {
			return nil, errAt(join(path, k), "needs line, a 0-based number (and column, a 0-based number of characters, if the column matters)")
		}
		pts[i] = rangePos{line: line, col: -1}
		if c, has := pm["column"]; has {
			col, ok := toInt(c)
			if !ok || col < 0 {
				return nil, errAt(join(join(path, k), "column"), "column must be a 0-based number of characters, not %s", describe(c))
			}
			pts[i].col = col
		}
	}
	s, e := pts[0], pts[1]
	if s.line > e.line || s.line == e.line && s.col > e.col {
		return nil, errAt(path, "the start (line %d, column %d) is after the end (line %d, column %d)", s.line, s.col, e.line, e.col)
	}
	return &rangeNode{start: s, end: e}, nil
}

func (c *compiler) relation(rel string, v any, path string, sc *scope) (node, error) {
	m, err := asMap(v, path, "relational rule")
	if err != nil {
		return nil, err
	}
	inner := map[string]any{}
	var stopV, fieldV any
	var hasStop, hasField bool
	for k, x := range m {
		switch k {
		case "stopBy":
			stopV, hasStop = x, true
		case "field":
			fieldV, hasField = x, true
		default:
			inner[k] = x
		}
	}
	if err := checkKeys(m, path, append([]string{"stopBy", "field"}, ruleKeys...)...); err != nil {
		return nil, err
	}
	c.rels++
	defer func() { c.rels-- }()
	sub, err := c.rule(inner, path, sc)
	if err != nil {
		return nil, err
	}
	n := &relNode{rel: rel, rule: sub}
	if hasField {
		if rel != "inside" && rel != "has" {
			return nil, errAt(join(path, "field"), "field is for inside and has only, not %s", rel)
		}
		s, ok := fieldV.(string)
		if !ok || s == "" {
			return nil, errAt(join(path, "field"), "field must be a field name, not %s", describe(fieldV))
		}
		n.field = s
	}
	if hasStop {
		switch s := stopV.(type) {
		case string:
			switch s {
			case "neighbor":
			case "end":
				n.toEnd = true
			default:
				return nil, errAt(join(path, "stopBy"), "stopBy %q: use neighbor, end or a rule object", s)
			}
		default:
			stop, err := c.rule(stopV, join(path, "stopBy"), sc)
			if err != nil {
				return nil, err
			}
			n.toEnd, n.stop = true, stop
		}
	}
	return n, nil
}

// util compiles (once) the util id visible from sc, refusing a cycle.
func (c *compiler) util(id, path string, sc *scope) (*utilRef, error) {
	for s := sc; s != nil; s = s.parent {
		if _, ok := s.local[id]; ok {
			return c.localUtil(id, path, s)
		}
	}
	if g, ok := c.global[id]; ok {
		if c.globalDone == nil {
			c.globalDone = map[string]*utilRef{}
		}
		return c.compileOnce(id, path, c.globalDone, &c.globalVisiting, func() (node, error) {
			return c.rule(g.Rule, g.Source+": rule", c.globalScope(g))
		})
	}
	var known []string
	for s := sc; s != nil; s = s.parent {
		for k := range s.local {
			known = append(known, k)
		}
	}
	for k := range c.global {
		known = append(known, k)
	}
	sort.Strings(known)
	if len(known) == 0 {
		return nil, errAt(path, "no util has the id %q: define it under utils (or in a utilDirs file)", id)
	}
	return nil, errAt(path, "no util has the id %q: the utils are %s", id, strings.Join(known, ", "))
}

func (c *compiler) localUtil(id, path string, sc *scope) (*utilRef, error) {
	return c.compileOnce(id, path, sc.done, &sc.visiting, func() (node, error) {
		return c.rule(sc.local[id], join(sc.path, id), sc)
	})
}

// compileOnce returns the util id of done, compiling it first with compile
// while visiting (the chain of utils being compiled) holds it. A util met
// again on its own chain is a cycle, refused, unless a relational rule or
// an nthChild ofRule came between (a util may match a node whose child
// matches it, as ast-grep allows): that reference is returned before its
// rule is set, and matching it is bounded by the Runner's util depth.
func (c *compiler) compileOnce(id, path string, done map[string]*utilRef, visiting *[]visit, compile func() (node, error)) (*utilRef, error) {
	if ref, ok := done[id]; ok {
		if ref.rule != nil {
			return ref, nil
		}
		var chain []string
		for _, v := range *visiting {
			if v.id == id || len(chain) > 0 {
				chain = append(chain, v.id)
			}
			if v.id == id && c.rels > v.rels {
				return ref, nil
			}
		}
		return nil, errAt(path, "utils form a cycle: %s -> %s: a util cannot match itself but through a relational rule (has, inside, follows, precedes) or an nthChild ofRule", strings.Join(chain, " -> "), id)
	}
	ref := &utilRef{id: id}
	done[id] = ref
	*visiting = append(*visiting, visit{id: id, rels: c.rels})
	n, err := compile()
	*visiting = (*visiting)[:len(*visiting)-1]
	if err != nil {
		delete(done, id)
		return nil, err
	}
	ref.rule = n
	ref.kinds, ref.known = kindsOf(n)
	return ref, nil
}

// globalScope returns the scope of a global util's rule: its own local
// utils, then the global ones.
func (c *compiler) globalScope(g *Util) *scope {
	if c.globalScopes == nil {
		c.globalScopes = map[*Util]*scope{}
	}
	if s, ok := c.globalScopes[g]; ok {
		return s
	}
	s := &scope{local: g.Utils, path: g.Source + ": utils", done: map[string]*utilRef{}}
	c.globalScopes[g] = s
	return s
}
