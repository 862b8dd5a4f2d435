package matcher

import "fmt"
import "sort"
import "strings"

import "github.com/tetherhq/tether/engine"

// mended is a faulty reading read again without its faults, in the same
// rung: the tokens its MISSING nodes stand for written in ("return $X"
// gets its ";") and each "$$$" the grammar could not place (an ERROR node
// that is exactly one, "match $X { $$$ }" in Rust) taken out. The pattern
// is built from that clean tree: the written-in tokens are left out of it
// (the pattern did not write them) and each "$$$" goes back where it stood.
type mended struct {
	r     *reading
	omit  []span        // the written-in tokens, scaffold offsets of r
	metas []metaPoint   // where each taken-out "$$$" stood, scaffold offset of r
	ph    []placeholder // each single metavariable written with its filler
}

type span struct{ start, end uint32 }

// metaPoint is a metavariable taken out of the text at an offset.
type metaPoint struct {
	at   uint32
	meta metaVar
}

// edit is one change mend makes to the pattern's text: ins written at off,
// or the del bytes from off, a metavariable (meta), taken out ("$$$") or
// written with code around it that the grammar places there (fill, for
// one: "$X" in "class $C { $X }" as a field, "$X _;").
type edit struct {
	off  int
	ins  string
	del  int
	meta metaVar
	one  bool
	tail bool // ins is after the pattern and no part of it
}

// fillers are what a single metavariable the grammar could not place is
// written as, tried in order until one reads cleanly (%s is the
// metavariable): a statement, a member or field with a type and a name, a
// parameter, a field written name first, an arm, a method.
var fillers = []string{"%s;", "%s _;", "%s x_;", "%s _", "%s x_", "%s: _", "%s: A", "%s => _", "%s -> _", "%s() {}", "fn %s() {}", "func %s() {}", "var %s;", "function %s() {}"}

// mend reads r again without its faults (see mended); nil when r has a
// fault it cannot mend (an ERROR node that is not exactly a metavariable,
// a MISSING node that is no token, a fault outside the pattern) or no new
// reading is clean. It is memoised on r.
func (rs *readings) mend(r *reading) *mended {
	if r.mendDone {
		return r.mended
	}
	r.mendDone = true
	if !r.tree.HasError() {
		return nil
	}
	var edits []edit
	ok, ones := true, false
	text := rs.sub
	inside := func(n engine.Node) (int, int, bool) {
		s, e := int(n.StartByte())-int(r.start), int(n.EndByte())-int(r.start)
		return s, e, s >= 0 && e <= len(text)
	}
	r.tree.Root().Walk(func(n engine.Node) bool {
		if !ok || !n.HasError() && !n.IsMissing() {
			return false
		}
		switch {
		case n.IsError():
			s, e, in := inside(n)
			t := n.Text()
			mv, isMeta := parseMeta(strings.TrimSpace(t), rs.spec.expando)
			if !in || !isMeta {
				ok = false
				return false
			}
			// the metavariable itself, without the spaces around it
			s += len(t) - len(strings.TrimLeft(t, " \t\r\n"))
			e -= len(t) - len(strings.TrimRight(t, " \t\r\n"))
			one := mv.kind != metaMulti
			ones = ones || one
			edits = append(edits, edit{off: s, del: e - s, meta: mv, one: one})
			return false
		case n.IsMissing():
			s, _, in := inside(n)
			if !in || n.IsNamed() || n.Kind() == "" {
				ok = false
			} else {
				edits = append(edits, edit{off: s, ins: n.Kind()})
			}
			return false
		}
		return true
	})
	if ok && len(edits) == 0 {
		// a fault the tree does not show: HTML's element left open ("<a
		// href=$U>" as a start tag) misses a hidden end tag, written in
		// after the pattern and left out of the reading
		if tag := openElement(r); tag != "" {
			edits = append(edits, edit{off: len(text), ins: "</" + tag + ">", tail: true})
		}
	}
	if !ok || len(edits) == 0 {
		return nil
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].off < edits[j].off })
	tries := []string{""}
	if ones {
		tries = fillers
	}
	for _, fill := range tries {
		if m := rs.reread(r, edits, fill); m != nil {
			r.mended = m
			return m
		}
	}
	return nil
}

// reread applies edits to the pattern's text, each single metavariable
// written as fill, and reads the result in r's rung; nil unless clean.
func (rs *readings) reread(r *reading, edits []edit, fill string) *mended {
	text := rs.sub
	var b strings.Builder
	var omit []span
	var metas []metaPoint
	var phs []placeholder
	at, tail := 0, 0
	for _, ed := range edits {
		if ed.off < at {
			return nil // overlapping faults
		}
		b.WriteString(text[at:ed.off])
		at = ed.off
		switch {
		case ed.one:
			start := b.Len()
			b.WriteString(fmt.Sprintf(fill, text[ed.off:ed.off+ed.del]))
			phs = append(phs, placeholder{start: uint32(start), end: uint32(b.Len()), meta: ed.meta})
			at += ed.del
		case ed.del > 0:
			metas = append(metas, metaPoint{at: uint32(b.Len()), meta: ed.meta})
			at += ed.del
		case ed.tail:
			tail += len(ed.ins)
			b.WriteString(ed.ins)
		default:
			// a token written right after a word needs a space to stay one
			if ed.off > 0 && isWordByte(text[ed.off-1]) && isWordByte(ed.ins[0]) {
				b.WriteByte(' ')
			}
			omit = append(omit, span{uint32(b.Len()), uint32(b.Len() + len(ed.ins))})
			b.WriteString(ed.ins)
		}
	}
	b.WriteString(text[at:])
	again, err := rs.read(r.rung, b.String())
	if err != nil {
		return nil
	}
	if tail > 0 {
		again.end -= uint32(tail)
		again.nodes = extract(again.tree, again.start, again.end)
	}
	if again.tree.HasError() || len(again.nodes) == 0 {
		return nil
	}
	m := &mended{r: again}
	for _, o := range omit {
		m.omit = append(m.omit, span{o.start + again.start, o.end + again.start})
	}
	for _, p := range metas {
		m.metas = append(m.metas, metaPoint{at: p.at + again.start, meta: p.meta})
	}
	for _, ph := range phs {
		m.ph = append(m.ph, placeholder{start: ph.start + again.start, end: ph.end + again.start, meta: ph.meta})
	}
	if m.build(rs) == nil {
		return nil
	}
	return m
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// build makes the pattern of the mended reading; nil when a taken-out
// metavariable has no node to go back into (it stood at the pattern's edge)
// or a filled-in one is not a node of its own.
func (m *mended) build(rs *readings) *Pattern {
	cv := converter{expando: rs.spec.expando, quoted: rs.spec.quoted, ph: m.ph, omit: m.omit, metas: m.metas, done: map[uint32]bool{}}
	pat := rs.newPattern(m.r.rung.name, m.r.tree, m.r.nodes, m.r.start)
	for _, n := range m.r.nodes {
		pat.roots = append(pat.roots, cv.node(n))
	}
	if len(cv.done) != len(m.metas) || !pat.holds(m.ph) {
		return nil
	}
	return pat
}

// place appends to p the taken-out metavariables that stood inside n
// before offset before (strictly inside n), in order.
func (cv converter) place(p *pnode, n engine.Node, before uint32) {
	for _, mp := range cv.metas {
		if mp.at > n.StartByte() && mp.at < n.EndByte() && mp.at <= before && !cv.done[mp.at] {
			p.kids = append(p.kids, &pnode{meta: mp.meta, named: true})
			cv.done[mp.at] = true
		}
	}
}

// metaWithoutOmitted reports the metavariable n's text is with the tokens
// mend wrote in inside n left out.
func (cv converter) metaWithoutOmitted(n engine.Node) (metaVar, bool) {
	start, end := n.StartByte(), n.EndByte()
	text := n.Bytes()
	var b []byte
	at := start
	for _, o := range cv.omit {
		if o.start < at || o.end > end || o.start == o.end {
			continue
		}
		b = append(b, text[at-start:o.start-start]...)
		at = o.end
	}
	if at == start {
		return metaVar{}, false
	}
	b = append(b, text[at-start:]...)
	return parseMeta(strings.TrimSpace(string(b)), cv.expando)
}

// omitted reports whether n is a token mend wrote in.
func (cv converter) omitted(n engine.Node) bool {
	for _, o := range cv.omit {
		if n.StartByte() == o.start && n.EndByte() == o.end {
			return true
		}
	}
	return false
}

// treeFault describes the first ERROR or MISSING node of t ("" when it has
// none): every reading a pattern searches comes from a tree without one
// (Pattern.fault).
func treeFault(t *engine.Tree, expando rune) string {
	if t == nil || !t.HasError() {
		return ""
	}
	desc := "an error"
	t.Root().Walk(func(n engine.Node) bool {
		if desc != "an error" || !n.HasError() && !n.IsMissing() {
			return false
		}
		switch {
		case n.IsMissing():
			desc = fmt.Sprintf("a missing %q at byte %d", n.Kind(), n.StartByte())
			return false
		case n.IsError():
			desc = fmt.Sprintf("an ERROR node %q at byte %d", unsubstitute(n.Text(), expando), n.StartByte())
			return false
		}
		return true
	})
	return desc
}

// newPattern starts the pattern of a reading from tree, its nodes and the
// offset the pattern starts at in it, noting the tree's first fault (none,
// for every reading that is searched). The nodes are kept for Debug.
func (rs *readings) newPattern(contextName string, tree *engine.Tree, nodes []engine.Node, base uint32) *Pattern {
	return &Pattern{lang: rs.lang, spec: rs.spec, src: rs.src, contextName: contextName, fault: treeFault(tree, rs.spec.expando), nodes: nodes, base: base}
}

// checkClean makes sure every reading p searches came from a tree with no
// ERROR or MISSING node: a reading that did not is a defect of the ranking
// and is refused rather than searched.
func (p *Pattern) checkClean() error {
	for _, r := range p.Readings() {
		if r.fault != "" {
			return fmt.Errorf("matcher: internal error: the %s reading of %q came from a tree with %s and is not searched; please report it, and pass the code around the pattern with selector meanwhile", r.contextName, p.src, r.fault)
		}
	}
	return nil
}

// holds reports whether each placeholder's metavariable is in the pattern.
func (p *Pattern) holds(phs []placeholder) bool {
	for _, ph := range phs {
		found := false
		var walk func(n *pnode)
		walk = func(n *pnode) {
			if n.meta == ph.meta {
				found = true
			}
			for _, k := range n.kids {
				walk(k)
			}
		}
		for _, r := range p.roots {
			walk(r)
		}
		if !found {
			return false
		}
	}
	return true
}

// openElement returns the tag name of the innermost HTML element of r that
// is a start tag alone ending the pattern (its end tag missing), "" when
// there is none.
func openElement(r *reading) string {
	tag := ""
	r.tree.Root().Walk(func(n engine.Node) bool {
		if !n.HasError() {
			return false
		}
		if n.Kind() != "element" || n.EndByte() != r.end || n.ChildCount() == 0 {
			return true
		}
		last, _ := n.Child(n.ChildCount() - 1)
		if last.Kind() == "start_tag" {
			for c, ok := last.FirstChild(); ok; c, ok = c.NextSibling() {
				if c.Kind() == "tag_name" {
					tag = c.Text()
				}
			}
		}
		return true
	})
	return tag
}
