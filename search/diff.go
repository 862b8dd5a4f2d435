package search

import "fmt"
import "strings"

import udiff "github.com/aymanbagabas/go-udiff"

const diffContext = 3

// Diff returns the plan as a unified diff of at most maxLines lines (0 means
// no limit); a cut diff ends with a line saying how much was left out.
func (p *Plan) Diff(maxLines int) string {
	var lines []string
	for _, c := range p.Changes {
		lines = append(lines, fileDiff(c)...)
	}
	if maxLines > 0 && len(lines) > maxLines {
		rest := len(lines) - maxLines
		lines = append(lines[:maxLines:maxLines], fmt.Sprintf("... diff cut: %d more lines", rest))
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// fileDiff returns one file's unified diff, line by line: gopls's line diff
// (go-udiff) with three lines of context, hunk headers always counting
// their lines ("@@ -1,1 +1,1 @@"). It diffs the old and new content, not
// the replacements (RATIONALE.md).
func fileDiff(c FileChange) []string {
	name := c.Path
	if c.Display != "" {
		name = c.Display
	}
	from := name
	if c.From != "" {
		from = c.FromDisplay
		if from == "" {
			from = c.From
		}
	}
	out := []string{"--- a/" + from, "+++ b/" + name}
	if len(c.Cells) > 0 {
		return cellsDiff(out, c.Cells)
	}
	old, new := string(c.Old), string(c.New)
	if c.Delete {
		new = ""
	}
	u, err := udiff.ToUnifiedDiff("a/"+from, "b/"+name, old, udiff.Lines(old, new), diffContext)
	if err != nil {
		// cannot happen: the edits are the diff's own
		return []string{fmt.Sprintf("--- a/%s\n+++ b/%s\n(no diff: %v)", from, name, err)}
	}
	if c.Create {
		out[0] = "--- /dev/null"
	}
	if c.Delete {
		out[1] = "+++ /dev/null"
		if len(u.Hunks) == 0 {
			// an empty file's deletion still shows
			return append(out, "(deleted, empty)")
		}
	}
	if len(u.Hunks) == 0 {
		if c.From != "" {
			// a move with no change of content still shows
			return append(out, "(moved, content unchanged)")
		}
		return nil
	}
	return append(out, hunkLines(u.Hunks, c.Delete, "")...)
}

// cellsDiff is a notebook's diff (its header lines out): the diff of each
// cell's source, its hunks' lines counted in the cell's source, each
// header naming the cell after the "@@" as git names a function there
// ("@@ -2,1 +2,1 @@ cell 3 id=a1b2").
//
// A cell's source has no newline at its end, as nbformat writes it: both
// sides are diffed as lines ending in one, so that a line added after the
// last is not shown as the last one changed. A new cell's hunk counts from
// line 0 and a removed one's to line 0, as git writes a created or deleted
// file.
func cellsDiff(out []string, cells []CellChange) []string {
	line := func(s string) string {
		if s != "" && !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		return s
	}
	for _, c := range cells {
		old, nw := line(c.Old), line(c.New)
		u, err := udiff.ToUnifiedDiff("a", "b", old, udiff.Lines(old, nw), diffContext)
		if err != nil {
			// cannot happen: the edits are the diff's own
			out = append(out, fmt.Sprintf("(cell %d: no diff: %v)", c.Index, err))
			continue
		}
		if old == "" {
			for _, h := range u.Hunks {
				h.FromLine = 0
			}
		}
		out = append(out, hunkLines(u.Hunks, nw == "", c.String())...)
	}
	return out
}

// hunkLines renders hunks as unified diff lines, each header with section
// after it when that is not ""; del: the hunks delete the file.
func hunkLines(hunks []*udiff.Hunk, del bool, section string) []string {
	var out []string
	if section != "" {
		section = " " + section
	}
	for _, h := range hunks {
		from, to := 0, 0
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Delete:
				from++
			case udiff.Insert:
				to++
			default:
				from++
				to++
			}
		}
		toLine := h.ToLine
		if del {
			toLine = 0 // as git writes a deletion: +0,0
		}
		out = append(out, fmt.Sprintf("@@ -%d,%d +%d,%d @@%s", h.FromLine, from, toLine, to, section))
		for _, l := range h.Lines {
			sign := " "
			switch l.Kind {
			case udiff.Delete:
				sign = "-"
			case udiff.Insert:
				sign = "+"
			}
			out = append(out, sign+strings.TrimSuffix(l.Content, "\n"))
		}
	}
	return out
}
