package lsp

import "bytes"
import "context"
import "fmt"
import "regexp"
import "strings"
import "sync"

import "github.com/tetherhq/tether/grammars"

// HiddenHeaderChange says why a write to w, a C or C++ header file, cannot
// be checked whole ("" when it can, or w is no header): its change lies
// under a preprocessor conditional other than the include guard (an
// implementation section an includer enables: #ifdef H_IMPL). clangd
// checks a header alone with the conditional as the header leaves it, and
// compiles an includer's headers without their function bodies (its
// preamble skips them), so an error the change makes there for an
// includer is seen by neither. Which code the check of the header alone
// leaves out is what clangd says it left out (its inactive regions) for
// the text written; from a server that does not say, a guess from the
// directives (branchLeftOut). A created header (w.Old nil) has no such
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
	const why = "the change is under %s, which clangd compiles neither in %s checked alone nor in the files that include it (it skips a header's function bodies there); compile an includer that enables it to check"
	if inactive, known := s.inactiveFor(file); known {
		// The server's own account of what its check of the header
		// leaves out, for the text just written.
		for _, r := range nowR {
			first, last := lineAt(now, r[0]), lineAt(now, max(r[0], r[1]-1))
			for _, in := range inactive {
				if first > in[1] || last < in[0] {
					continue
				}
				// Named by the directive the region follows, the one an
				// includer has to enable.
				cond := fmt.Sprintf("the preprocessor branch of lines %d-%d", in[0]+1, in[1]+1)
				if d := directiveAt(now, in[0]-1); d != "" {
					cond = d
				}
				return fmt.Sprintf(why, cond, file)
			}
		}
		return ""
	}
	tree, err := parse(ctx, lang, now)
	if err != nil {
		return ""
	}
	for _, r := range nowR {
		if cond := enclosingBranch(tree, r); cond != "" {
			return fmt.Sprintf(why, cond, file)
		}
	}
	return ""
}

// inactiveFor returns the lines (0-based, first and last) that the
// running server of file said its analysis of the file's current text
// leaves out under the preprocessor; known is false when it said nothing
// for that text (a server without the extension, or none running).
func (s *Supervisor) inactiveFor(file string) (lines [][2]int, known bool) {
	path, err := s.abs(file)
	if err != nil {
		return nil, false
	}
	spec, err := s.specFor(path)
	if err != nil {
		return nil, false
	}
	root, _ := s.rootFor(spec, path)
	s.mu.Lock()
	sl := s.slots[spec.Name+"\x00"+root]
	s.mu.Unlock()
	if sl == nil {
		return nil, false
	}
	sl.mu.Lock()
	in := sl.inst
	sl.mu.Unlock()
	if in == nil {
		return nil, false
	}
	uri := pathToURI(path)
	in.mu.Lock()
	defer in.mu.Unlock()
	e, doc := in.diags[uri], in.docs[uri]
	if e == nil || !e.inactiveKnown || doc == nil || e.version == nil {
		return nil, false
	}
	// The publication for the text sent, or for the text a repeat of it
	// (touch) stands for.
	if *e.version < doc.version && (doc.base == 0 || *e.version < doc.base) {
		return nil, false
	}
	return e.inactive, true
}

// directiveAt returns the preprocessor directive that starts on 0-based
// line n of text, its continued lines joined, or "" when none does.
func directiveAt(text []byte, n int) string {
	if n < 0 {
		return ""
	}
	lines := bytes.Split(text, []byte("\n"))
	if n >= len(lines) || !bytes.HasPrefix(bytes.TrimSpace(lines[n]), []byte("#")) {
		return ""
	}
	var parts []string
	for i := n; i < len(lines) && i < n+20; i++ {
		l := strings.TrimSpace(string(lines[i]))
		cont := strings.HasSuffix(l, "\\")
		parts = append(parts, strings.TrimSpace(strings.TrimSuffix(l, "\\")))
		if !cont {
			break
		}
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

// lineAt returns the 0-based line of byte offset off in text.
func lineAt(text []byte, off int) int {
	return bytes.Count(text[:min(off, len(text))], []byte("\n"))
}

// enclosingBranch returns the directive line of the innermost
// preprocessor branch around r that branchLeftOut says a check of the
// header alone leaves out, or "".
func enclosingBranch(tree *Syntax, r [2]int) string {
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
		if !branchLeftOut(n, tree.Source) {
			continue
		}
		if bestLen < 0 || to-from < bestLen {
			line, _, _ := strings.Cut(n.Text(), "\n")
			best, bestLen = strings.TrimSpace(line), to-from
		}
	}
	return best
}

// branchLeftOut guesses whether the body of the conditional branch n is
// left out when the header is compiled alone, for a server that does not
// say. Alone, no macro is defined but those the header defines before
// the branch: an #ifdef NAME or #if defined(NAME) body is left out, an
// #ifndef NAME body kept (and its #else left out); an include guard is
// kept whatever its depth (a file-wide wrapper such as #ifndef
// USE_EXTERNAL_ZSTD is an #ifndef, kept).
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
	names := identRe2().FindAllString(t, -1)
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

var identRe2 = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`) })
