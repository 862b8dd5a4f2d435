package matcher

import "context"
import "errors"
import "fmt"
import "sort"
import "strings"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"

// CompileSelector compiles pattern as the context of the code to find and
// selector as the kind of the node in it that is matched, as ast-grep's
// pattern object with a selector ("struct _S { $F: Vec<$T> }" with
// field_declaration matches fields of that shape in any struct). The
// context is read bare (as a whole file) first, then in each rung of the
// language's ladder; the first reading without an ERROR or MISSING node that
// holds a node of that kind gives its first one, in source order, outermost
// first. It is for what the ladder cannot guess; the rest of the context is
// not matched.
func CompileSelector(ctx context.Context, p Parser, lang *grammars.Language, pattern, selector string) (*Pattern, error) {
	src := strings.TrimSpace(pattern)
	selector = strings.TrimSpace(selector)
	switch {
	case src == "":
		return nil, errors.New("matcher: empty pattern: with selector, pass the code around the node to find, e.g. struct _S { $F: Vec<$T> } with selector field_declaration")
	case lang == nil:
		return nil, errNoLanguage
	case !validKind(selector):
		return nil, fmt.Errorf("matcher: selector %q is not a node kind: pass a kind of the language's grammar, such as field_declaration or match_arm", selector)
	}
	rs := newReadings(ctx, p, lang, src)
	spec := rs.spec
	rungs := append([]rung{newRung("file", "", "")}, spec.ladder...)
	var clean []*reading
	for _, c := range rungs {
		r, err := rs.read(c, rs.sub)
		if err != nil {
			return nil, fmt.Errorf("matcher: cannot parse the pattern as %s: %w", lang.ID, err)
		}
		if r.tree.HasError() {
			continue
		}
		clean = append(clean, r)
		if n, ok := selectKind(r, selector); ok {
			pat := rs.newPattern("selector "+selector, r.tree, []engine.Node{n}, r.start)
			pat.roots = []*pnode{convert(n, spec.expando, spec.quoted)}
			pat.collect()
			if err := pat.checkClean(); err != nil {
				return nil, err
			}
			return pat, nil
		}
	}
	if len(clean) == 0 {
		broke := ""
		if name, at := rs.breakAt(); at != "" {
			broke = "; as " + article(name) + " it breaks here: " + at
		}
		return nil, fmt.Errorf("%w as a file or as %s for %s: %q%s; with selector, the pattern is the complete code around the node to find",
			ErrUnparseable, contextNames(spec.ladder), lang.ID, src, broke)
	}
	return nil, fmt.Errorf("matcher: the pattern has no %s node (read as a %s, it holds %s): pass one of those kinds as selector, or write the code that holds a %s",
		selector, clean[0].rung.name, strings.Join(kindsIn(clean[0]), ", "), selector)
}

// validKind reports whether s can be a grammar's node kind: a name of
// letters, digits and '_'.
func validKind(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// selectKind returns the first node of kind in r's pattern text, in pre-order.
func selectKind(r *reading, kind string) (engine.Node, bool) {
	var found engine.Node
	ok := false
	r.tree.Root().Walk(func(n engine.Node) bool {
		if ok || n.EndByte() <= r.start || n.StartByte() >= r.end {
			return false // found, or outside the pattern
		}
		if n.Kind() == kind && n.IsNamed() && n.StartByte() >= r.start && n.EndByte() <= r.end {
			found, ok = n, true
			return false
		}
		return true
	})
	return found, ok
}

// kindsIn lists the named node kinds within r's pattern text, sorted.
func kindsIn(r *reading) []string {
	seen := map[string]bool{}
	r.tree.Root().Walk(func(n engine.Node) bool {
		if n.EndByte() <= r.start || n.StartByte() >= r.end {
			return false
		}
		if n.IsNamed() && !n.IsExtra() && n.StartByte() >= r.start && n.EndByte() <= r.end {
			seen[n.Kind()] = true
		}
		return true
	})
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
