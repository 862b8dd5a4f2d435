package rule

import "maps"
import "slices"

// Label is one of a configuration's labels: the capture of the
// metavariable Var is reported with Style (primary or secondary) and
// Message, in place of the match and its relational rules' nodes.
type Label struct {
	Var, Style string
	// Message is nil when the label has none.
	Message *string
}

// labels reads a configuration's labels (by metavariable name, each
// {style, message}), sorted by name; each must name a metavariable the
// rule or its constraints bind, as ast-grep checks.
func labels(v any, cr *core) ([]Label, error) {
	m, err := asMap(v, "labels", "labels")
	if err != nil {
		return nil, err
	}
	defined := map[string]bool{}
	definedVars(cr.rule, defined, map[*utilRef]bool{})
	for _, c := range cr.constraints {
		definedVars(c.rule, defined, map[*utilRef]bool{})
	}
	var out []Label
	for _, name := range slices.Sorted(maps.Keys(m)) {
		path := join("labels", name)
		if !defined[name] {
			return nil, errAt(path, "the rule binds no metavariable $%s: a label names one the rule's or its constraints' patterns capture (without its $)", name)
		}
		lm, err := asMap(m[name], path, "label")
		if err != nil {
			return nil, err
		}
		if err := checkKeys(lm, path, "style", "message"); err != nil {
			return nil, err
		}
		l := Label{Var: name}
		l.Style, _ = lm["style"].(string)
		if l.Style != "primary" && l.Style != "secondary" {
			return nil, errAt(join(path, "style"), "style must be primary or secondary, not %s", describe(lm["style"]))
		}
		if msg, ok := lm["message"]; ok {
			s, ok := msg.(string)
			if !ok {
				return nil, errAt(join(path, "message"), "message must be a string, not %s", describe(msg))
			}
			l.Message = &s
		}
		out = append(out, l)
	}
	return out, nil
}
