package matcher

import "context"
import "strings"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"

// reading is the pattern parsed in one rung: the tree and the nodes that
// span the pattern in it.
type reading struct {
	rung       rung
	tree       *engine.Tree
	start, end uint32
	nodes      []engine.Node
	// mended is the reading read again without its faults (mend), made
	// the first time it is asked for; nil when it cannot be
	mended   *mended
	mendDone bool
}

// readings are a pattern's candidate readings, each parsed the first time
// it is asked for; choose ranks them.
type readings struct {
	parse    parseFunc
	lang     *grammars.Language
	spec     *langSpec
	src, sub string
	written  []*reading // the pattern as written, in each rung
	braced   []*reading // with the ";" a "$$$" before a "}" needs, in each rung
	semiDone bool
	semi     *reading // the pattern and a ";" in the first rung, clean and one node ending at it
	// picked is the reading that rule 1, 3 or 4 of choose ranked first;
	// the other clean readings join it (others)
	picked *reading
	// demoted counts the later clean readings with a keyword where picked
	// has a name; they rank first, in ladder order, and picked goes
	demoted int
}

// newReadings starts the readings of the pattern src in lang, parsed with
// p. lang's spec is looked up here, once per compile; the readings and the
// patterns they make carry both.
func newReadings(ctx context.Context, p Parser, lang *grammars.Language, src string) *readings {
	spec := langSpecFor(lang)
	sub := substitute(src, spec.expando)
	if spec.quoted {
		sub = quoteMetas(sub)
	}
	parse := func(b []byte) (*engine.Tree, error) { return p.Parse(ctx, lang, b) }
	return &readings{parse: parse, lang: lang, spec: spec, src: src, sub: sub}
}

// read parses text in rung c.
func (rs *readings) read(c rung, text string) (*reading, error) {
	full, start, end := c.scaffold(text)
	tree, err := rs.parse([]byte(full))
	if err != nil {
		return nil, err
	}
	r := &reading{rung: c, tree: tree, start: uint32(start), end: uint32(end)}
	r.nodes = extract(tree, r.start, r.end)
	return r, nil
}

// at returns the reading of text in rung i, memoised in *memo.
func (rs *readings) at(memo *[]*reading, text string, i int) (*reading, error) {
	if *memo == nil {
		*memo = make([]*reading, len(rs.spec.ladder))
	}
	if (*memo)[i] == nil {
		r, err := rs.read(rs.spec.ladder[i], text)
		if err != nil {
			return nil, err
		}
		(*memo)[i] = r
	}
	return (*memo)[i], nil
}

// semicolon returns the reading of the pattern with a ";" added, in the
// first rung, when it parses cleanly as one node (no metavariable) that the
// ";" ends ("break" in Java and C is an ERROR without it); nil otherwise.
func (rs *readings) semicolon() (*reading, error) {
	if rs.semiDone {
		return rs.semi, nil
	}
	rs.semiDone = true
	if strings.HasSuffix(rs.sub, ";") || strings.HasSuffix(rs.sub, "}") || len(rs.spec.ladder) == 0 {
		return nil, nil
	}
	r, err := rs.read(rs.spec.ladder[0], rs.sub+";")
	if err != nil || r.tree.HasError() {
		return nil, err
	}
	if n := r.nodes; len(n) == 1 && n[0].StartByte() == r.start && n[0].ChildCount() > 1 {
		if last, ok := n[0].Child(n[0].ChildCount() - 1); ok && last.Kind() == ";" && last.EndByte() == r.end && rs.buildSemi(r) != nil {
			rs.semi = r
		}
	}
	return rs.semi, nil
}

// build makes the pattern of a reading: of its mended reading when it has
// a fault (nil when that cannot be mended: no faulty tree is searched).
func (rs *readings) build(r *reading) *Pattern {
	if r.tree.HasError() {
		m := rs.mend(r)
		if m == nil {
			return nil
		}
		pat := m.build(rs)
		if pat == nil {
			return nil
		}
		pat.mended = true
		anyClause(pat)
		pat.collect()
		return pat
	}
	pat := rs.newPattern(r.rung.name, r.tree, r.nodes, r.start)
	for _, n := range r.nodes {
		pat.roots = append(pat.roots, convert(n, rs.spec.expando, rs.spec.quoted))
	}
	anyClause(pat)
	pat.collect()
	return pat
}

// buildSemi makes the pattern of the semicolon reading, leaving out the
// ";" the pattern did not write, as it leaves out a MISSING one
// ("return $X"); nil when the reading's root is a metavariable or does not
// end with it.
func (rs *readings) buildSemi(r *reading) *Pattern {
	root := convert(r.nodes[0], rs.spec.expando, rs.spec.quoted)
	k := len(root.kids)
	if root.meta.kind != metaNone || k <= 1 || root.kids[k-1].kind != ";" {
		return nil
	}
	root.kids = root.kids[:k-1]
	pat := rs.newPattern(r.rung.name, r.tree, r.nodes, r.start)
	pat.roots = []*pnode{root}
	pat.collect()
	return pat
}

// takesKeyword reports whether r, a reading in a later rung, has a name
// where first (the first rung's reading of the same text, which has an
// error) saw a keyword: "for ($$$) { $$$ }" as a method named for.
func takesKeyword(first, r *reading, anyError bool) bool {
	if r == first {
		return false
	}
	if anyError && !first.tree.HasError() || !anyError && !hasErrorNode(first.tree) {
		return false
	}
	return demotesKeyword([]engine.Node{first.tree.Root()}, first.start, r.nodes, r.start)
}

// choose ranks the candidate readings and returns the first by these
// rules, in order; nil when none qualifies.
//
//  1. A clean reading (no error) in the earliest rung whose nodes are not
//     a keyword of the first rung's reading taken for a name; but before
//     it a reading in an earlier rung whose only faults are MISSING tokens
//     ("gapped": a statement written without its ";"), or the semicolon
//     reading, when the clean one takes a keyword of theirs for a name
//     (Java and Dart read "if ($X != null) $X.dispose()" as a call to a
//     function named "if" in expression context).
//  2. The first gapped reading, unless the pattern has a "$$$" right
//     before a "}", which rule 4 gives its ";".
//  3. A reading in the earliest rung whose only faults are a metavariable
//     the grammar could not place (an ERROR node that is exactly "$$$") or
//     a token missing right after one, as ast-grep accepts them.
//  4. A clean reading with the ";" a "$$$" before a "}" needs ("{ $$$ }" in
//     Dart reads as a set literal), ranked as in rule 1 without its
//     exceptions.
//  5. The first gapped reading, then the semicolon reading.
//
// No tree with a fault is searched: a gapped reading (rules 1, 2, 5) and a
// rule 3 reading are read again in their rung without their faults (mend:
// the missing ";" written in, a misplaced "$$$" taken out, a misplaced "$X"
// written as code the grammar places there) and the pattern is built from
// that clean tree; a reading that cannot be mended is passed over.
func (rs *readings) choose() (*Pattern, error) {
	ladder := rs.spec.ladder
	first := func(memo *[]*reading, text string) (*reading, error) { return rs.at(memo, text, 0) }
	semi, err := rs.semicolon()
	if err != nil {
		return nil, err
	}
	var gapped *reading
	// rule 1, finding gapped readings on the way
	for i := range ladder {
		r, err := rs.at(&rs.written, rs.sub, i)
		if err != nil {
			return nil, err
		}
		r0, _ := first(&rs.written, rs.sub)
		if gapped == nil && r.tree.HasError() && !hasErrorNode(r.tree) && onlyMissingSemicolons(r.tree) && !splitsLine(r, rs.spec.expando) && len(r.nodes) > 0 && !takesKeyword(r0, r, false) && rs.mend(r) != nil {
			gapped = r
		}
		if r.tree.HasError() || len(r.nodes) == 0 {
			continue
		}
		if gapped != nil && demotesKeyword(gapped.nodes, gapped.start, r.nodes, r.start) {
			return rs.build(gapped), nil
		}
		if i > 0 && semi != nil && demotesKeyword(semi.nodes, semi.start, r.nodes, r.start) {
			return rs.buildSemi(semi), nil
		}
		if takesKeyword(r0, r, true) {
			continue
		}
		rs.picked = r
		return rs.build(r), nil
	}
	// rule 2
	if gapped != nil && !multiBeforeBrace.MatchString(rs.sub) {
		return rs.build(gapped), nil
	}
	// rule 3
	for i := range ladder {
		r, err := rs.at(&rs.written, rs.sub, i)
		if err != nil {
			return nil, err
		}
		r0, _ := first(&rs.written, rs.sub)
		if !tolerable(r.tree, rs.spec.expando) || len(r.nodes) == 0 || takesKeyword(r0, r, true) || r.tree.HasError() && rs.mend(r) == nil {
			continue
		}
		rs.picked = r
		return rs.build(r), nil
	}
	// rule 4
	if braced := multiBeforeBrace.ReplaceAllString(rs.sub, "$1;$2"); braced != rs.sub {
		for i := range ladder {
			r, err := rs.at(&rs.braced, braced, i)
			if err != nil {
				return nil, err
			}
			r0, _ := first(&rs.braced, braced)
			if r.tree.HasError() || len(r.nodes) == 0 || takesKeyword(r0, r, true) {
				continue
			}
			rs.picked = r
			return rs.build(r), nil
		}
	}
	// rule 5
	if gapped != nil {
		return rs.build(gapped), nil
	}
	if semi != nil {
		return rs.buildSemi(semi), nil
	}
	return nil, nil
}

// quotedReading reads the k-th single metavariable as a string, for the
// first k and the earliest rung that gives a clean reading; nil when none
// does (or the language's metavariables are not written with '$').
func (rs *readings) quotedReading() (*Pattern, error) {
	if rs.spec.expando != '$' || rs.spec.quoted {
		return nil, nil
	}
	for k := 0; ; k++ {
		text, ok := quoteMetaAt(rs.sub, k)
		if !ok {
			return nil, nil
		}
		for _, c := range rs.spec.ladder {
			r, err := rs.read(c, text)
			if err != nil {
				return nil, err
			}
			if r.tree.HasError() || len(r.nodes) == 0 {
				continue
			}
			pat := rs.newPattern(c.name, r.tree, r.nodes, r.start)
			for _, n := range r.nodes {
				pat.roots = append(pat.roots, convert(n, rs.spec.expando, true))
			}
			pat.collect()
			return pat, nil
		}
	}
}

// splitsLine reports whether r has a MISSING token inside the pattern with
// more of the pattern after it on the same line: such a reading cuts code
// written as one construct in two (Java's "$T $M($$$P);" read as a local
// "$T $M" and a statement "($$$P);"), unlike a ";" missing at the end of
// the pattern, of one of its lines, before a "}" ("return $X") or before
// a "$$$" that stands for what follows ("fn $F($$$) $$$").
func splitsLine(r *reading, expando rune) bool {
	src := r.tree.Source()
	split := false
	r.tree.Root().Walk(func(n engine.Node) bool {
		if split || !n.HasError() {
			return false
		}
		if at := n.StartByte(); n.IsMissing() && at > r.start && at < r.end {
			rest := strings.TrimLeft(string(src[at:r.end]), " \t")
			split = rest != "" && !strings.ContainsRune("\n\r}", rune(rest[0])) && !strings.HasPrefix(rest, strings.Repeat(string(expando), 3))
		}
		return !split
	})
	return split
}
