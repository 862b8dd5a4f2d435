package rule

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/tetherhq/tether/engine"
	"github.com/tetherhq/tether/grammars"
	"github.com/tetherhq/tether/matcher"
)

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
	// compiled, so naming it again is a cycle), globalVisiting the chain
	// being compiled, globalScopes each global util's own scope
	globalDone     map[string]*utilRef
	globalVisiting []string
	globalScopes   map[*Util]*scope
}

// scope is the utils visible from a rule: its configuration's local ones,
// then the global ones. Compiled utils are shared by every rule of a scope.
type scope struct {
	local    map[string]any
	path     string // where local utils are written ("utils")
	done     map[string]*utilRef
	visiting []string
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
		if !ok || s == "" {
			return nil, errAt(join(path, "kind"), "kind must be a node kind's name, not %s", describe(k))
		}
		if !c.kinds[s] {
			return nil, errAt(join(path, "kind"), "%q is not a node kind of %s: `tether parse` on a sample prints the kinds", s, c.lang.ID)
		}
		parts = append(parts, &kindNode{kind: s})
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
			sub, err := c.rule(r, join(path, "ofRule"), sc)
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

// parseNth reads a position: a number (1-based) or An+B ("2n+1", "-n+3",
// "odd", "even").
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
	t := strings.ReplaceAll(strings.ToLower(s), " ", "")
	switch t {
	case "odd":
		return 2, 1, nil
	case "even":
		return 2, 0, nil
	}
	i := strings.IndexByte(t, 'n')
	if i < 0 {
		k, err := strconv.Atoi(t)
		if err != nil || k < 1 {
			return 0, 0, fmt.Errorf("position %q is not a number from 1 nor An+B", s)
		}
		return 0, k, nil
	}
	switch as := t[:i]; as {
	case "", "+":
		a = 1
	case "-":
		a = -1
	default:
		if a, err = strconv.Atoi(as); err != nil {
			return 0, 0, fmt.Errorf("position %q: %q is not a number", s, as)
		}
	}
	if rest := t[i+1:]; rest != "" {
		if b, err = strconv.Atoi(rest); err != nil {
			return 0, 0, fmt.Errorf("position %q: %q is not +B or -B", s, rest)
		}
	}
	return a, b, nil
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

func rangeRule(v any, path string) (node, error) {
	m, err := asMap(v, path, "range")
	if err != nil {
		return nil, err
	}
	if err := checkKeys(m, path, "start", "end"); err != nil {
		return nil, err
	}
	var pts [2]engine.Point
	for i, k := range []string{"start", "end"} {
		pm, err := asMap(m[k], join(path, k), "position")
		if err != nil {
			return nil, err
		}
		if err := checkKeys(pm, join(path, k), "line", "column"); err != nil {
			return nil, err
		}
		line, ok1 := toInt(pm["line"])
		col, ok2 := toInt(pm["column"])
		if !ok1 || !ok2 || line < 0 || col < 0 {
			return nil, errAt(join(path, k), "needs line and column, 0-based numbers")
		}
		pts[i] = engine.Point{Row: uint32(line), Column: uint32(col)}
	}
	return &rangeNode{start: pts[0], end: pts[1]}, nil
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
		return compileOnce(id, path, c.globalDone, &c.globalVisiting, func() (node, error) {
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
	return compileOnce(id, path, sc.done, &sc.visiting, func() (node, error) {
		return c.rule(sc.local[id], join(sc.path, id), sc)
	})
}

// compileOnce returns the util id of done, compiling it first with compile
// while visiting (the chain of utils being compiled) holds it; a util met
// again on its own chain is a cycle.
func compileOnce(id, path string, done map[string]*utilRef, visiting *[]string, compile func() (node, error)) (*utilRef, error) {
	if ref, ok := done[id]; ok {
		if ref.rule == nil {
			return nil, errAt(path, "utils form a cycle: %s -> %s: a util cannot match itself, directly or through others", strings.Join(*visiting, " -> "), id)
		}
		return ref, nil
	}
	ref := &utilRef{id: id}
	done[id] = ref
	*visiting = append(*visiting, id)
	n, err := compile()
	*visiting = (*visiting)[:len(*visiting)-1]
	if err != nil {
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
