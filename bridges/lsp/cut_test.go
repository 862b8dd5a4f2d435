package lsp

import "strings"
import "testing"
import "unicode/utf8"

func TestCutHoverKeepsCharactersWhole(t *testing.T) {
	for _, tt := range []struct {
		text string
		max  int
		keep string // the kept prefix
	}{
		{"short", 10, "short"},
		{strings.Repeat("a", 12), 10, strings.Repeat("a", 10)},
		// "é" is two bytes; a cut at 10 would fall inside the sixth one.
		{strings.Repeat("é", 8), 11, strings.Repeat("é", 5)},
		{"ab" + strings.Repeat("€", 4), 6, "ab€"},
	} {
		got := cutHover(tt.text, tt.max)
		want := tt.keep
		if len(tt.text) > tt.max {
			want += "\n... (hover cut at"
		}
		if !strings.HasPrefix(got, want) || !utf8.ValidString(got) {
			t.Errorf("cutHover(%q, %d) = %q, want it to start %q and stay valid UTF-8", tt.text, tt.max, got, want)
		}
	}
}
