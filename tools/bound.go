package tools

import "encoding/json"
import "fmt"

import "github.com/tetherhq/tether/internal/textcut"

// MaxResultText is the most text (in bytes, summed over a result's text blocks)
// the registry passes on from one call. Tools bound their own output well below
// this; the registry's cut is a safety net and says what it cut.
const MaxResultText = 256 << 10

// truncateText returns s cut to at most max bytes (on a UTF-8 boundary) with a
// note saying how much is shown: "... (4096 of 10240 bytes shown)". s is
// returned unchanged when it fits.
func truncateText(s string, max int) string {
	out, _ := truncate(s, max)
	return out
}

// truncate is truncateText that also reports whether s was cut.
func truncate(s string, max int) (string, bool) { return textcut.Bytes(s, max) }

// boundResult cuts a result's text blocks so that together they hold at most
// max bytes, noting each cut.
func boundResult(r *Result, max int) {
	left := max
	for i := range r.Content {
		c := &r.Content[i]
		if c.Type != TextContent {
			continue
		}
		if len(c.Text) > left {
			if c.Full == "" {
				c.Full = c.Text
			}
			c.Text = truncateText(c.Text, left)
			left = 0
			continue
		}
		left -= len(c.Text)
	}
}

// Bounds of a result's structured part against its text: the structured
// part repeats what the text says for programs, and must not cost a model
// several times the text. A short answer's structured part may reach
// StructuredFloor bytes whatever its text.
const (
	MaxStructuredRatio = 1.5
	StructuredFloor    = 768
)

// StructuredFits reports whether a structured part of structured bytes
// (its JSON) is within the bounds for text bytes of text.
func StructuredFits(text, structured int) bool {
	return structured <= StructuredFloor || float64(structured) <= MaxStructuredRatio*float64(text)
}

// StructuredOmitted replaces a structured part that passed the bounds.
type StructuredOmitted struct {
	Omitted string `json:"omitted"`
}

// boundStructured replaces r's structured part with a note when its JSON
// passes the bounds against r's text. Tools shape their structured parts
// well within them; this is the safety net, and says what it dropped.
func boundStructured(r *Result) {
	if r.Structured == nil {
		return
	}
	b, err := json.Marshal(r.Structured)
	if err != nil {
		return // the host reports a structured part it cannot encode
	}
	text := 0
	for _, c := range r.Content {
		if c.Type == TextContent {
			text += len(c.Text)
		}
	}
	if !StructuredFits(text, len(b)) {
		r.Structured = StructuredOmitted{Omitted: fmt.Sprintf("the structured part (%d bytes) was over %.1fx the text (%d bytes): the text holds the answer", len(b), MaxStructuredRatio, text)}
	}
}
