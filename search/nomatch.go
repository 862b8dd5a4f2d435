package search

import "fmt"
import "strings"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/matcher"

// NoMatch says, for a pattern search that looked and found nothing, how the
// pattern was read and what of its shape the files hold: the reading, the
// count of nodes of its root kind in the code parsed, the nearest miss
// among them, and hints on readings that are easily not what was meant
// (matcher.Pattern.Hints). It costs the search next to nothing: the
// matcher counts the candidates it compares anyway.
type NoMatch struct {
	Reading matcher.PatternReading `json:"reading"`
	// RootKind is the kind of the pattern's root node; "" when the root is
	// a metavariable or the pattern a sequence (Candidates is not counted).
	RootKind string `json:"rootKind,omitempty"`
	// Candidates counts the nodes of RootKind in the files parsed (Parsed);
	// the files ruled out without parsing (they lack a token or a node
	// kind every match holds) are not counted.
	Candidates int `json:"candidates"`
	Parsed     int `json:"parsed"`
	// Nearest is the candidate whose comparison with the pattern went
	// furthest before it failed; nil when there was none.
	Nearest *NearMiss      `json:"nearest,omitempty"`
	Hints   []matcher.Hint `json:"hints,omitempty"`
}

// NearMiss is a node of the pattern's root kind that did not match.
type NearMiss struct {
	Path string `json:"file"`
	// Cell is the notebook cell it is in (Start in its source), nil
	// outside notebooks.
	Cell  *Cell    `json:"cell,omitempty"`
	Start Position `json:"start"`
	// Text is its first line, cut at nearMissText bytes.
	Text string `json:"text"`
	// work is the matching steps it took (the nearest has the most)
	work int
}

// nearMissText bounds a near miss's text.
const nearMissText = 120

// noteCandidates records in j what the matcher compared in a tree at b.
func (j *fileJob) noteCandidates(m *matcher.Matcher, b base) {
	n, near, work := m.Candidates()
	j.tried += n
	if work == 0 || j.near != nil && work <= j.near.work {
		return
	}
	j.near = nearMissAt(j.path, near, b, work)
}

// nearMissAt describes node n of a tree at b.
func nearMissAt(path string, n engine.Node, b base, work int) *NearMiss {
	text := n.Bytes()
	if i := strings.IndexByte(string(text), '\n'); i >= 0 {
		text = text[:i]
	}
	t, cut := bound(text, nearMissText)
	if cut || len(text) < len(n.Bytes()) {
		t += " ..."
	}
	return &NearMiss{Path: path, Cell: b.inCell(), Start: nodeSpan(n, n, b).Start, Text: t, work: work}
}

// noteNoMatch sets r.NoMatch when the pattern search looked at files and
// found nothing; jobs are the files searched.
func (r *Result) noteNoMatch(jobs []*fileJob) {
	if r.Total != 0 || r.Searched == 0 || r.Pattern == nil {
		return
	}
	nm := &NoMatch{Reading: r.Pattern.Reading(), RootKind: r.Pattern.RootKind(), Parsed: r.Parsed, Hints: r.Pattern.Hints()}
	for _, j := range jobs {
		nm.Candidates += j.tried
		if j.near != nil && (nm.Nearest == nil || j.near.work > nm.Nearest.work) {
			nm.Nearest = j.near
		}
	}
	r.NoMatch = nm
}

// String says it in a line: "the go pattern was read as statement
// (call_expression); 12 call_expression nodes in the 3 files parsed, the
// nearest at a.go:3:2 `fmt.Printf("%d", x)`; hint: ...".
func (n *NoMatch) String() string {
	var b strings.Builder
	roots := strings.Join(n.Reading.Roots, ", ")
	fmt.Fprintf(&b, "the pattern was read as %s (%s)", n.Reading.Context, roots)
	if n.RootKind != "" {
		fmt.Fprintf(&b, "; %d %s %s in the %d %s parsed", n.Candidates, n.RootKind, plural(n.Candidates, "node", "nodes"), n.Parsed, plural(n.Parsed, "file", "files"))
		if n.Parsed == 0 {
			b.WriteString(" (every file lacked a token or a node kind each match holds)")
		}
	}
	if m := n.Nearest; m != nil {
		fmt.Fprintf(&b, ", the nearest miss at %s:%d:%d: %s", Where(m.Path, m.Cell), m.Start.Line, m.Start.Column, m.Text)
	}
	for _, h := range n.Hints {
		b.WriteString("; hint: " + h.Message)
		if h.Pattern != "" {
			fmt.Fprintf(&b, " (try %s)", h.Pattern)
		}
	}
	return b.String()
}
