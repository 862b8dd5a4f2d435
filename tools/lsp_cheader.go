package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/tetherhq/tether/engine"
	"github.com/tetherhq/tether/grammars"
)

// hiddenHeaderChange says why a write to the C or C++ header file cannot
// be checked whole ("" when it can): its change lies under a preprocessor
// conditional other than the include guard (an implementation section an
// includer enables: #ifdef H_IMPL). clangd checks a header alone with the
// conditional as the header leaves it, and compiles an includer's headers
// without their function bodies (its preamble skips them), so an error
// the change makes there for an includer is seen by neither.
func (l *lspTools) hiddenHeaderChange(ctx context.Context, file string, old, now []byte) string {
	if !isCHeader(file) || l.parser == nil || old == nil {
		return ""
	}
	lang, ok := grammars.ForPath(file)
	if !ok {
		return ""
	}
	_, nowR := changedRanges(old, now)
	tree, err := l.parser.Parse(ctx, lang.ID, now)
	if err != nil {
		return ""
	}
	for _, r := range nowR {
		if cond := enclosingCondition(tree, r); cond != "" {
			return fmt.Sprintf("the change is under %s, which clangd compiles neither in %s checked alone nor in the files that include it (it skips a header's function bodies there); compile an includer that enables it to check", cond, file)
		}
	}
	return ""
}

// enclosingCondition returns the directive line of the innermost
// preprocessor conditional around r that is not the file's include guard,
// or "".
func enclosingCondition(tree *engine.Tree, r [2]int) string {
	best := ""
	bestLen := -1
	for i := 0; i < tree.Len(); i++ {
		n := tree.NodeAt(i)
		if !strings.HasPrefix(n.Kind(), "preproc_if") && !strings.HasPrefix(n.Kind(), "preproc_el") {
			continue
		}
		from, to := int(n.StartByte()), int(n.EndByte())
		if r[0] < from || r[1] > to || isIncludeGuard(n) {
			continue
		}
		if bestLen < 0 || to-from < bestLen {
			line, _, _ := strings.Cut(n.Text(), "\n")
			best, bestLen = strings.TrimSpace(line), to-from
		}
	}
	return best
}

// isIncludeGuard reports whether n is a top-level #ifndef NAME whose
// first directive defines NAME (or #if !defined(NAME)).
func isIncludeGuard(n engine.Node) bool {
	p, ok := n.Parent()
	if !ok || p.Kind() != "translation_unit" {
		return false
	}
	name := ""
	switch {
	case n.Kind() == "preproc_ifdef" && strings.HasPrefix(n.Text(), "#ifndef"):
		if c, ok := n.ChildByField("name"); ok {
			name = c.Text()
		}
	case n.Kind() == "preproc_if":
		if c, ok := n.ChildByField("condition"); ok {
			t := strings.Join(strings.Fields(c.Text()), "")
			if strings.HasPrefix(t, "!defined(") && strings.HasSuffix(t, ")") {
				name = t[len("!defined(") : len(t)-1]
			}
		}
	}
	if name == "" {
		return false
	}
	for _, c := range n.NamedChildren() {
		if c.Kind() == "preproc_def" {
			d, ok := c.ChildByField("name")
			return ok && d.Text() == name
		}
		if k := c.Kind(); k != "identifier" && k != "comment" && c.Field() != "condition" && c.Field() != "name" {
			return false
		}
	}
	return false
}
