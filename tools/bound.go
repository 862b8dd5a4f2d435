package tools

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
			c.Text = truncateText(c.Text, left)
			left = 0
			continue
		}
		left -= len(c.Text)
	}
}
