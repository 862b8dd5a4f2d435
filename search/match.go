package search

import "context"
import "errors"
import "fmt"
import "slices"
import "sort"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/matcher/rule"

// collect matches in one tree (a file or a chunk of it at b) and records the
// matches, their count and, for a rewrite, the replacements. It fails when
// the context is done or matching runs out of its budget (a
// *matcher.BudgetError naming the place).
func (s *Searcher) collect(ctx context.Context, w *worker, lang *grammars.Language, j *fileJob, tree *engine.Tree, b base, limit int) error {
	if w.rule != nil {
		return s.collectRule(ctx, w, lang, j, tree, b, limit)
	}
	raws, err := w.m.Find(ctx, tree)
	if be := (*matcher.BudgetError)(nil); errors.As(err, &be) {
		be.Path = j.path
		be.At.Row += uint32(b.line)
		return be
	}
	if err != nil {
		return err
	}
	if !s.testHookNoHints {
		j.noteCandidates(w.m, b)
	}
	if b.hi != 0 {
		raws = slices.DeleteFunc(raws, func(m matcher.Match) bool { return !b.keeps(m.Nodes[0], m.Nodes[len(m.Nodes)-1]) })
	}
	j.count += len(raws)
	first := len(j.matches)
	txt := &sourceText{src: tree.Source(), max: s.maxText}
	if b.host != nil {
		txt.host = w.hostText(b.host, s.maxText)
	}
	for i := range raws {
		if limit > 0 && len(j.matches) >= limit {
			break
		}
		j.matches = append(j.matches, toMatch(j.path, lang.ID, &raws[i], b, txt))
		j.held += heldBytes(&j.matches[len(j.matches)-1], txt.shared())
	}
	j.held += txt.size()
	if w.tmpl == nil {
		return nil
	}
	edits := w.tmpl.Edits(tree.Source(), raws)
	if j.host == nil {
		j.lang = lang
	}
	for k := range edits {
		edits[k].Start += b.off
		edits[k].End += b.off
	}
	*b.edits(j) = append(*b.edits(j), edits...)
	type span struct{ start, end int }
	applied := make(map[span]string, len(edits))
	for _, e := range edits {
		if _, dup := applied[span{e.Start, e.End}]; !dup {
			applied[span{e.Start, e.End}] = e.Text
		}
	}
	for k := first; k < len(j.matches); k++ {
		mt := &j.matches[k]
		if txt, ok := applied[span{mt.Span.StartByte, mt.Span.EndByte}]; ok {
			mt.Replacement = &txt
		} else {
			// a match inside one that is replaced: its own replacement is
			// still reported (ast-grep's JSON has one for every match), though
			// only the outermost is applied
			txt := w.tmpl.Expand(tree.Source(), &raws[k-first])
			mt.Replacement = &txt
		}
	}
	return nil
}

// collectRule is collect for a rule: its matches, and for a rewrite each
// match's fix; of fixes that overlap the first (outermost) is applied, as
// for a pattern's rewrite.
func (s *Searcher) collectRule(ctx context.Context, w *worker, lang *grammars.Language, j *fileJob, tree *engine.Tree, b base, limit int) error {
	rms, err := w.rule.Find(ctx, tree)
	if err != nil {
		return fmt.Errorf("search: %s: %w", j.path, err)
	}
	if b.hi != 0 {
		rms = slices.DeleteFunc(rms, func(m rule.Match) bool { return !b.keeps(m.Nodes[0], m.Nodes[len(m.Nodes)-1]) })
	}
	j.count += len(rms)
	last := -1
	txt := &sourceText{src: tree.Source(), max: s.maxText}
	if b.host != nil {
		txt.host = w.hostText(b.host, s.maxText)
	}
	defer func() { j.held += txt.size() }()
	for i := range rms {
		m := &rms[i]
		// the secondary capture is for a scan's labels, not a search's
		// captures
		caps := m.Captures[:0:0]
		for _, c := range m.Captures {
			if c.Name != rule.Secondary {
				caps = append(caps, c)
			}
		}
		raw := m.Match
		raw.Captures = caps
		var mt Match
		keep := limit <= 0 || len(j.matches) < limit
		if keep {
			mt = toMatch(j.path, lang.ID, &raw, b, txt)
		}
		if w.fix {
			if e, ok := w.rule.Fix(m); ok {
				if keep {
					txt := e.Text
					mt.Replacement = &txt
				}
				if e.Start >= last {
					e.Start += b.off
					e.End += b.off
					*b.edits(j) = append(*b.edits(j), e)
					last = e.End - b.off
				}
			}
		}
		if keep {
			j.matches = append(j.matches, mt)
			j.held += heldBytes(&mt, txt.shared())
		}
	}
	return nil
}

func pos(p engine.Point) Position { return Position{Line: int(p.Row) + 1, Column: int(p.Column) + 1} }

func nodeSpan(a, b engine.Node, at base) Span {
	sp := Span{
		Start: pos(a.Range().StartPoint), End: pos(b.Range().EndPoint),
		StartByte: int(a.StartByte()) + at.off, EndByte: int(b.EndByte()) + at.off,
	}
	if at.col != 0 {
		if sp.Start.Line == 1 {
			sp.Start.Column += at.col
		}
		if sp.End.Line == 1 {
			sp.End.Column += at.col
		}
	}
	sp.Start.Line += at.line
	sp.End.Line += at.line
	return sp
}

// bound cuts s at max bytes (on a character boundary); max < 0 keeps it whole.
func bound(s []byte, max int) (string, bool) {
	if max < 0 || len(s) <= max {
		return string(s), false
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return string(s[:cut]), true
}

// toMatch reports a match found in a tree, a file or a chunk of it at at,
// with its text and captures as txt (the tree's source) hands them out.
func toMatch(path, lang string, r *matcher.Match, at base, txt *sourceText) Match {
	first, last := r.Nodes[0], r.Nodes[len(r.Nodes)-1]
	m := Match{Path: path, Language: lang, Cell: at.inCell(), Span: nodeSpan(first, last, at), Context: r.Reading}
	var cut1, cut2 bool
	ms, me := int(first.StartByte()), int(last.EndByte())
	m.Text, cut1 = txt.text(ms, me)
	if at.host != nil {
		// a region's lines are the host file's
		if txt.host == nil {
			txt.host = &sourceText{src: at.host, max: txt.max}
		}
		ht := txt.host
		ls, le := ht.lines(ms+at.off, me+at.off)
		m.Lines, cut2 = ht.text(ls, le)
	} else {
		ls, le := txt.lines(ms, me)
		m.Lines, cut2 = txt.text(ls, le)
	}
	m.Cut = cut1 || cut2
	for _, b := range r.Captures {
		bd := Binding{Name: b.Name, Multi: b.Multi}
		if len(b.Nodes) > 0 {
			bd.Span = nodeSpan(b.Nodes[0], b.Nodes[len(b.Nodes)-1], at)
			var cut bool
			bd.Text, cut = txt.text(captureSpan(b.Nodes))
			m.Cut = m.Cut || cut
		}
		if b.Multi {
			bd.Parts = []Part{}
			for _, n := range b.Nodes {
				pt, cut := txt.text(int(n.StartByte()), int(n.EndByte()))
				m.Cut = m.Cut || cut
				bd.Parts = append(bd.Parts, Part{Text: pt, Span: nodeSpan(n, n, at)})
			}
		}
		m.Bindings = append(m.Bindings, bd)
	}
	sort.Slice(m.Bindings, func(i, j int) bool { return m.Bindings[i].Name < m.Bindings[j].Name })
	return m
}

// captureSpan returns the byte range a capture's nodes span, from the first
// to the last, or over all of them when they are out of order (as
// matcher.Capture.Text takes it).
func captureSpan(ns []engine.Node) (int, int) {
	start, end := ns[0].StartByte(), ns[len(ns)-1].EndByte()
	if start > end {
		for _, n := range ns {
			start, end = min(start, n.StartByte()), max(end, n.EndByte())
		}
	}
	return int(start), int(end)
}
