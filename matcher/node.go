package matcher

import "context"
import "errors"
import "strings"

import "github.com/tetherhq/tether/engine"

// MatchNode reports whether the pattern (any of its readings, in rank
// order) matches node n itself, as a rule's pattern does: env holds the
// captures earlier parts of the rule bound, which a metavariable of the
// pattern must capture the same code as. On a match it returns env with the
// pattern's captures added (a repeated name keeps its last capture). A
// pattern of several sibling nodes never matches one node. It fails with the
// context's error or a *BudgetError, as Find does.
func (m *Matcher) MatchNode(ctx context.Context, n engine.Node, env []Capture) ([]Capture, bool, error) {
	m.ctx = ctx
	if t := n.Tree(); m.tree != t {
		m.tree = t
		m.src = t.Source()
		m.treeSteps = 0
	}
	m.stop = nil
	m.steps = 0
	m.candidate = n
	for _, p := range m.pat.Readings() {
		if len(p.roots) != 1 {
			continue
		}
		m.env, m.arena = append(m.env[:0], env...), m.arena[:0]
		if m.node(p.roots[0], n) {
			r := m.withExtras(Match{Nodes: []engine.Node{n}, Captures: m.snapshot()})
			return r.Captures, true, nil
		}
		if m.stop != nil {
			break
		}
	}
	if m.stop != nil {
		err := m.stop
		m.stop = nil
		if errors.Is(err, errBudget) {
			budget := m.budget
			if m.perTree {
				budget = m.treeBudget
			}
			return nil, false, &BudgetError{At: n.Range().StartPoint, PerTree: m.perTree, Budget: budget}
		}
		return nil, false, err
	}
	return nil, false, nil
}

// RootKinds returns the kinds of node the pattern can match, over all its
// readings, and whether that set is all there is: false when a reading's
// root is a metavariable (any node) or the pattern is a run of several
// nodes.
func (p *Pattern) RootKinds() ([]string, bool) {
	var out []string
	for _, r := range p.Readings() {
		if len(r.roots) != 1 || r.roots[0].meta.kind != metaNone {
			return nil, false
		}
		out = append(out, r.roots[0].kind)
		out = append(out, r.roots[0].alts...)
	}
	return out, true
}

// ExpandText returns tmpl with its metavariables replaced as Template.Expand
// replaces them, for a match that starts at byte start of src: lookup gives
// the capture of a name (nil when the match binds none) and text, when set,
// gives a value computed for a name (a rule's transform), which wins over a
// capture. A capture spanning lines is re-based onto the template line's
// indentation, and every template line after the first is indented to the
// match's line; a computed value's later lines take the indentation of
// its template line when only spaces come before it there, and are kept as
// they are otherwise.
func ExpandText(tmpl string, src []byte, start int, caps []Capture, text func(name string) (string, bool)) string {
	var b strings.Builder
	lineStart := 0
	// verbatim marks the output lines that begin inside a computed value:
	// they keep the indentation the value has
	verbatim := map[int]bool{}
	line := 0
	for i := 0; i < len(tmpl); {
		c := tmpl[i]
		if c == '\n' {
			b.WriteByte('\n')
			lineStart = b.Len()
			line++
			i++
			continue
		}
		if c == '$' {
			if multi, name, n := tmplVar(tmpl, i); n > 0 {
				if text != nil {
					if s, ok := text(name); ok {
						// a computed value's later lines take the line's
						// indentation when only spaces come before it on
						// that line, and are kept as they are otherwise
						cur := b.String()[lineStart:]
						lead := strings.TrimLeft(cur, " \t") == ""
						if lead && strings.Contains(s, "\n") {
							s = strings.ReplaceAll(s, "\n", "\n"+cur)
						}
						b.WriteString(s)
						if k := strings.Count(s, "\n"); k > 0 {
							for j := 1; j <= k && !lead; j++ {
								verbatim[line+j] = true
							}
							line += k
							lineStart = b.Len() - (len(s) - strings.LastIndexByte(s, '\n') - 1)
						}
						i += n
						continue
					}
				}
				if bd := findBinding(caps, name); bd != nil && bd.Multi == multi {
					cur := b.String()[lineStart:]
					indent := cur[:len(cur)-len(strings.TrimLeft(cur, " \t"))]
					r := rebase(bd, src, indent)
					b.WriteString(r)
					if k := strings.Count(r, "\n"); k > 0 {
						line += k
						lineStart = b.Len() - (len(r) - strings.LastIndexByte(r, '\n') - 1)
					}
				}
				i += n
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	out := b.String()
	indent := lineIndent(src, start)
	if indent == "" || !strings.Contains(out, "\n") {
		return out
	}
	blankToo := !strings.Contains(indent, "\t")
	lines := strings.Split(out, "\n")
	for k := 1; k < len(lines); k++ {
		if verbatim[k] {
			continue
		}
		if lines[k] != "" || blankToo {
			lines[k] = indent + lines[k]
		}
	}
	return strings.Join(lines, "\n")
}
