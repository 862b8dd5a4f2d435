package enginebench

import "fmt"
import "html"
import "strings"
import "time"

// reference is the index of the engine the ratios are taken against:
// ast-grep when it ran, else none (-1).
func (r *Report) reference() int {
	for k, e := range r.Engines {
		if e.Family == "ast-grep" {
			return k
		}
	}
	return -1
}

func secs(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

func mdCode(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", `\n`)
	return "`" + s + "`"
}

// Table renders the report as markdown: wall time, CPU time and peak RSS
// (medians, with the ratio to ast-grep's), then the match counts, with the
// patterns whose counts differ between engines named.
func (r *Report) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Suite %s (%s, %d patterns) over `%s`, %d threads an engine, median of %d rounds (engines' order turning each round), %s/%s, %d CPUs, load %s before and %s after, %s.\n\n",
		r.Suite.Name, r.Suite.Language, len(r.Suite.Patterns), r.Corpus, r.Threads, r.Rounds, r.Machine.OS, r.Machine.Arch, r.Machine.CPUs,
		orDash(r.Machine.Load), orDash(r.Machine.After), r.When.Format("2006-01-02"))
	for _, e := range r.Engines {
		if e.Version != "" {
			fmt.Fprintf(&b, "- %s: %s\n", e.Name, e.Version)
		}
	}
	ref := r.reference()
	measures := []struct {
		title string
		get   func(Sample) int64
		show  func(int64) string
	}{
		{"Wall time", func(s Sample) int64 { return int64(s.Wall) }, func(v int64) string { return secs(time.Duration(v)) }},
		{"CPU time", func(s Sample) int64 { return int64(s.CPU) }, func(v int64) string { return secs(time.Duration(v)) }},
		{"Peak RSS", func(s Sample) int64 { return s.RSS }, mib},
	}
	for _, m := range measures {
		fmt.Fprintf(&b, "\n%s", m.title)
		if ref >= 0 {
			b.WriteString(" (in brackets: the engine's over ast-grep's; below 1 is less)")
		}
		b.WriteString(":\n\n")
		r.header(&b)
		for _, row := range r.Rows {
			b.WriteString("| " + mdCode(row.Pattern))
			for _, c := range row.Cells {
				b.WriteString(" | ")
				if c.Median == nil {
					b.WriteString("no answer")
					continue
				}
				v := m.get(*c.Median)
				b.WriteString(m.show(v))
				if rc := row.Cells[max(ref, 0)]; ref >= 0 && rc.Median != nil && m.get(*rc.Median) > 0 {
					fmt.Fprintf(&b, " (%.2fx)", float64(v)/float64(m.get(*rc.Median)))
				}
			}
			b.WriteString(" |\n")
		}
	}
	b.WriteString("\nMatches:\n\n")
	r.header(&b)
	var differ, failed []string
	for _, row := range r.Rows {
		b.WriteString("| " + mdCode(row.Pattern))
		for _, c := range row.Cells {
			b.WriteString(" | ")
			switch {
			case c.Median == nil:
				b.WriteString("no answer")
				failed = append(failed, fmt.Sprintf("%s on %s: %s", c.Engine, mdCode(row.Pattern), c.Error))
			case c.Unstable:
				fmt.Fprintf(&b, "%d (changed between rounds)", c.Median.Matches)
			default:
				fmt.Fprintf(&b, "%d", c.Median.Matches)
			}
		}
		b.WriteString(" |\n")
		if row.Differ {
			differ = append(differ, mdCode(row.Pattern))
		}
	}
	if len(differ) > 0 {
		fmt.Fprintf(&b, "\nMatch counts differ between engines on %s: an engine that reads a pattern another way finds other things (compare them on patterns every engine reads alike).\n", strings.Join(differ, ", "))
	} else {
		b.WriteString("\nEvery engine that answered found the same number of matches on every pattern.\n")
	}
	for _, f := range failed {
		fmt.Fprintf(&b, "- no answer from %s\n", f)
	}
	for _, row := range r.Rows {
		for _, c := range row.Cells {
			if c.Pattern != "" {
				fmt.Fprintf(&b, "- %s ran %s as %s\n", c.Engine, mdCode(row.Pattern), mdCode(c.Pattern))
			}
		}
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (r *Report) header(b *strings.Builder) {
	b.WriteString("| pattern")
	for _, e := range r.Engines {
		b.WriteString(" | " + e.Name)
	}
	b.WriteString(" |\n|---")
	for range r.Engines {
		b.WriteString("|---:")
	}
	b.WriteString("|\n")
}

// palette colours the engines' bars, in order.
var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7"}

// SVG draws the medians' wall times as grouped horizontal bars, one group a
// pattern and one bar an engine, with a legend; a pattern an engine did
// not answer has no bar and says so.
func (r *Report) SVG() []byte {
	const (
		labelW, barH, gap, chartW, left = 260, 14, 14, 520, 10
	)
	var maxWall time.Duration
	for _, row := range r.Rows {
		for _, c := range row.Cells {
			if c.Median != nil && c.Median.Wall > maxWall {
				maxWall = c.Median.Wall
			}
		}
	}
	if maxWall <= 0 {
		maxWall = time.Millisecond
	}
	n := len(r.Engines)
	legendH := 20 * ((n + 2) / 3)
	top := 40 + legendH
	groupH := n*barH + gap
	height := top + len(r.Rows)*groupH + 30
	width := left + labelW + chartW + 90
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="13" font-weight="bold">%s</text>`+"\n", left,
		html.EscapeString(fmt.Sprintf("tether bench: suite %s over %s, wall time (median of %d rounds, %d threads)", r.Suite.Name, r.Corpus, r.Rounds, r.Threads)))
	for k, e := range r.Engines {
		x, y := left+(k%3)*250, 32+(k/3)*20
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n",
			x, y, palette[k%len(palette)], x+16, y+10, html.EscapeString(e.Name))
	}
	for i, row := range r.Rows {
		y0 := top + i*groupH
		label := row.Pattern
		if len(label) > 40 {
			label = label[:37] + "..."
		}
		if row.Differ {
			label += " (counts differ)"
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", left, y0+n*barH/2+4, html.EscapeString(strings.ReplaceAll(label, "\n", " ")))
		for k, c := range row.Cells {
			y := y0 + k*barH
			if c.Median == nil {
				fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#888">no answer</text>`+"\n", left+labelW, y+barH-3)
				continue
			}
			w := int(float64(chartW) * float64(c.Median.Wall) / float64(maxWall))
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n",
				left+labelW, y+1, max(w, 1), barH-2, palette[k%len(palette)], left+labelW+max(w, 1)+4, y+barH-3, secs(c.Median.Wall))
		}
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#555">%s</text>`+"\n", left, height-10,
		html.EscapeString(fmt.Sprintf("%s/%s, %d CPUs, load %s; %s", r.Machine.OS, r.Machine.Arch, r.Machine.CPUs, orDash(r.Machine.Load), r.When.Format("2006-01-02"))))
	b.WriteString("</svg>\n")
	return []byte(b.String())
}
