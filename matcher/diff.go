package matcher

import (
	"bytes"
	"fmt"
	"strings"
)

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

// splitLines splits src into lines without their newlines.
func splitLines(src []byte) []string {
	s := string(src)
	s = strings.TrimSuffix(s, "\n")
	if s == "" && len(src) == 0 {
		return nil
	}
	return strings.Split(s, "\n")
}

func lineOf(src []byte, off int) int { return bytes.Count(src[:off], []byte{'\n'}) }

// fileDiff builds hunks from the replacements themselves: each replaced span's
// whole lines, merged with neighbours closer than two contexts.
func fileDiff(c FileChange) []string {
	old := splitLines(c.Old)
	type region struct {
		from, to int // old lines [from, to)
		reps     []replacement
	}
	var regs []region
	for _, r := range c.reps {
		from := lineOf(c.Old, r.start)
		to := lineOf(c.Old, r.end) + 1
		if n := len(regs); n > 0 && from <= regs[n-1].to+2*diffContext {
			regs[n-1].to = max(regs[n-1].to, to)
			regs[n-1].reps = append(regs[n-1].reps, r)
			continue
		}
		regs = append(regs, region{from: from, to: to, reps: []replacement{r}})
	}
	name := c.Path
	if c.Display != "" {
		name = c.Display
	}
	out := []string{"--- a/" + name, "+++ b/" + name}
	delta := 0
	lineStart := func(l int) int {
		if l <= 0 {
			return 0
		}
		i := 0
		for n := 0; n < l; n++ {
			j := bytes.IndexByte(c.Old[i:], '\n')
			if j < 0 {
				return len(c.Old)
			}
			i += j + 1
		}
		return i
	}
	for _, rg := range regs {
		start, end := lineStart(rg.from), lineStart(rg.to)
		seg := c.Old[start:end]
		var shifted []replacement
		for _, r := range rg.reps {
			shifted = append(shifted, replacement{start: r.start - start, end: r.end - start, text: r.text})
		}
		oldLines := splitLines(seg)
		newLines := splitLines(apply(seg, shifted))
		ctxFrom := max(0, rg.from-diffContext)
		ctxTo := min(len(old), rg.to+diffContext)
		oldCount := ctxTo - ctxFrom
		newCount := oldCount - len(oldLines) + len(newLines)
		out = append(out, fmt.Sprintf("@@ -%d,%d +%d,%d @@", ctxFrom+1, oldCount, ctxFrom+1+delta, newCount))
		for l := ctxFrom; l < rg.from; l++ {
			out = append(out, " "+old[l])
		}
		out = append(out, lineDiff(oldLines, newLines)...)
		for l := rg.to; l < ctxTo; l++ {
			out = append(out, " "+old[l])
		}
		delta += len(newLines) - len(oldLines)
	}
	return out
}

// lineDiff returns a region's lines as " ", "-" and "+" lines: a longest
// common subsequence keeps unchanged lines between two replacements as
// context. Large regions fall back to all old lines then all new lines.
func lineDiff(a, b []string) []string {
	var out []string
	if len(a)*len(b) > 1<<20 {
		for _, l := range a {
			out = append(out, "-"+l)
		}
		for _, l := range b {
			out = append(out, "+"+l)
		}
		return out
	}
	// lcs[i][j] = length of the LCS of a[i:] and b[j:]
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out = append(out, " "+a[i])
			i++
			j++
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, "-"+a[i])
			i++
		default:
			out = append(out, "+"+b[j])
			j++
		}
	}
	return out
}
