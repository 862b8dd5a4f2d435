package rule

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/matcher"

// fix is a rule's fix: a template, and rules that widen the range it
// replaces over the siblings before and after the match.
type fix struct {
	template               string
	expandStart, expandEnd node
}

func (c *compiler) fix(v any, path string, sc *scope) (*fix, error) {
	switch x := v.(type) {
	case string:
		return &fix{template: x}, nil
	case map[string]any:
		if err := checkKeys(x, path, "template", "expandStart", "expandEnd"); err != nil {
			return nil, err
		}
		t, ok := x["template"].(string)
		if !ok {
			return nil, errAt(join(path, "template"), "a fix object needs template, the replacement as a string, not %s", describe(x["template"]))
		}
		f := &fix{template: t}
		for _, k := range []string{"expandStart", "expandEnd"} {
			r, ok := x[k]
			if !ok {
				continue
			}
			n, err := c.rule(r, join(path, k), sc)
			if err != nil {
				return nil, err
			}
			if k == "expandStart" {
				f.expandStart = n
			} else {
				f.expandEnd = n
			}
		}
		return f, nil
	}
	return nil, errAt(path, "fix must be a string or an object with template, not %s", describe(v))
}

// Fix returns the edit the rule's fix makes for m, a match the runner
// found (false when the rule has no fix).
func (r *Runner) Fix(m *Match) (matcher.Edit, bool) {
	cr := r.rule.core
	if cr.fix == nil || len(m.Nodes) == 0 {
		return matcher.Edit{}, false
	}
	s, e, text := r.fixEdit(cr, m, m.Nodes[0].Tree().Source(), nil)
	return matcher.Edit{Start: s, End: e, Text: text}, true
}

// fixEdit expands a core's fix for m: the range it replaces (widened by
// expandStart and expandEnd) and the text. outer are the captures of an
// enclosing rule (a rewriter's), used for names m does not bind.
func (r *Runner) fixEdit(cr *core, m *Match, src []byte, outer []matcher.Capture) (int, int, string) {
	n := m.Nodes[0]
	start, end := int(n.StartByte()), int(n.EndByte())
	f := cr.fix
	if f.expandStart != nil || f.expandEnd != nil {
		if parent, ok := n.Parent(); ok {
			kids := parent.Children()
			at := -1
			for i, k := range kids {
				if k.Index() == n.Index() {
					at = i
				}
			}
			if f.expandEnd != nil {
				for i := at + 1; i < len(kids) && r.widens(f.expandEnd, kids[i], m.Captures); i++ {
					end = int(kids[i].EndByte())
				}
			}
			if f.expandStart != nil {
				for i := at - 1; i >= 0 && r.widens(f.expandStart, kids[i], m.Captures); i-- {
					start = int(kids[i].StartByte())
				}
			}
		}
	}
	caps := m.Captures
	if len(outer) > 0 {
		caps = append(append([]matcher.Capture(nil), m.Captures...), outer...)
	}
	text := matcher.ExpandText(f.template, src, int(n.StartByte()), caps, func(name string) (string, bool) {
		s, ok := m.Transformed[name]
		return s, ok
	})
	return start, end, text
}

func (r *Runner) widens(rule node, n engine.Node, caps []matcher.Capture) bool {
	_, ok := rule.match(r, n, caps)
	return ok
}
