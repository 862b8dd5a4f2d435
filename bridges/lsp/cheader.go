package lsp

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/tetherhq/tether/grammars"
)

// HiddenHeaderChange says why a write to w, a C or C++ header file, cannot
// be checked whole ("" when it can, or w is no header): its change lies
// under a preprocessor conditional other than the include guard (an
// implementation section an includer enables: #ifdef H_IMPL). clangd
// checks a header alone with the conditional as the header leaves it, and
// compiles an includer's headers without their function bodies (its
// preamble skips them), so an error the change makes there for an
// includer is seen by neither. A created header (w.Old nil) has no such
// change.
func (s *Supervisor) HiddenHeaderChange(ctx context.Context, parse Parser, diff LineDiff, w WrittenFile) string {
	if !isCHeader(w.Path) || parse == nil || w.Old == nil {
		return ""
	}
	lang, ok := grammars.ForPath(w.Path)
	if !ok {
		return ""
	}
	file := w.Path
	now, err := s.root.ReadFile(file)
	if err != nil {
		return ""
	}
	_, nowR := diff(w.Old, now)
	tree, err := parse(ctx, lang, now)
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
// preprocessor branch around r that a check of the header alone leaves
// out, or "". Alone, no macro is defined but those the header defines
// before the branch: an #ifdef NAME or #if defined(NAME) body is left out,
// an #ifndef NAME body kept (and its #else left out); an include guard is
// kept whatever its depth (a file-wide wrapper such as #ifndef
// USE_EXTERNAL_ZSTD is an #ifndef, kept).
func enclosingCondition(tree *Syntax, r [2]int) string {
	src := tree.Source
	best := ""
	bestLen := -1
	for i := range tree.Nodes {
		n := tree.node(i)
		k := n.Kind()
		if k != "preproc_if" && k != "preproc_ifdef" && k != "preproc_elif" && k != "preproc_else" && k != "preproc_elifdef" {
			continue
		}
		from, to := n.StartByte(), n.EndByte()
		if alt, ok := n.ChildByField("alternative"); ok {
			to = alt.StartByte() // the alternative is a node of its own
		}
		if r[0] < from || r[1] > to {
			continue
		}
		if !branchLeftOut(n, src) {
			continue
		}
		if bestLen < 0 || to-from < bestLen {
			line, _, _ := strings.Cut(n.Text(), "\n")
			best, bestLen = strings.TrimSpace(line), to-from
		}
	}
	return best
}

// branchLeftOut reports whether the body of the conditional branch n is
// left out when the header is compiled alone.
func branchLeftOut(n node, src []byte) bool {
	before := src[:n.StartByte()]
	definedBefore := func(name string) bool {
		return regexp.MustCompile(`(?m)^[ \t]*#[ \t]*define[ \t]+` + regexp.QuoteMeta(name) + `\b`).Match(before)
	}
	switch n.Kind() {
	case "preproc_ifdef", "preproc_elifdef":
		name := ""
		if c, ok := n.ChildByField("name"); ok {
			name = c.Text()
		}
		negated := strings.HasPrefix(strings.TrimLeft(n.Text(), "# \t"), "ifndef") || strings.HasPrefix(strings.TrimLeft(n.Text(), "# \t"), "elifndef")
		return negated == definedBefore(name)
	case "preproc_if", "preproc_elif":
		c, ok := n.ChildByField("condition")
		if !ok {
			return false
		}
		return conditionFalse(c.Text(), definedBefore)
	case "preproc_else":
		p, ok := n.Parent()
		if !ok {
			return false
		}
		return !branchLeftOut(p, src)
	}
	return false
}

// conditionFalse reports whether an #if condition is false with no macro
// defined but those definedBefore: a condition that negates (!) or that
// it cannot read is taken as true (kept), as is one whose every name is
// defined before it.
func conditionFalse(cond string, definedBefore func(string) bool) bool {
	t := strings.TrimSpace(cond)
	if strings.Contains(t, "!") {
		return false
	}
	if t == "0" {
		return true
	}
	names := identRe2.FindAllString(t, -1)
	if len(names) == 0 {
		return false
	}
	for _, name := range names {
		if name != "defined" && !definedBefore(name) {
			return true
		}
	}
	return false
}

var identRe2 = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
