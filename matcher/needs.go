package matcher

import "strings"

// NeededKinds returns, for each reading of p (Readings), the node kinds a
// match of it must contain, so that a tree lacking them can be ruled out
// without matching: a list of clauses, each met when a tree holds a node of
// one of its kinds. A clause is one pattern node that is not a
// metavariable, met by its kind or one of its alternatives (Go's "case $X:"
// matches three clause kinds). The matcher compares a node's kind with each
// such node's (Matcher.node), except the tokens next to a $$$ that list
// skips: the token right after one (an empty $$$ takes its separator along)
// and the tokens that end a list after one (f($$$A) takes the ")"
// unchecked). Those are not needed. Supertypes never appear as a node's
// kind, and an alias is its own name: kinds are compared by name, and a
// name stands for every symbol id that has it.
func (p *Pattern) NeededKinds() [][][]string {
	var out [][][]string
	for _, r := range p.Readings() {
		var clauses [][]string
		seen := map[string]bool{}
		needList(r.roots, func(names []string) {
			if k := strings.Join(names, "\x00"); !seen[k] {
				seen[k] = true
				clauses = append(clauses, names)
			}
		})
		out = append(out, clauses)
	}
	return out
}

func needList(ps []*pnode, add func([]string)) {
	optional := make([]bool, len(ps))
	for i, p := range ps {
		if p.meta.kind != metaMulti || i+1 >= len(ps) {
			continue
		}
		if allTokens(ps[i+1 : i+2]) {
			optional[i+1] = true
		}
		if allTokens(ps[i+1:]) {
			for k := i + 1; k < len(ps); k++ {
				optional[k] = true
			}
		}
	}
	for i, p := range ps {
		if p.meta.kind != metaNone || optional[i] {
			continue
		}
		add(append([]string{p.kind}, p.alts...))
		needList(p.kids, add)
	}
}
