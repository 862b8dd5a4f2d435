package dap

import "slices"
import "strings"
import "testing"

// TestMapLines: breakpoint lines follow insertions and deletions above
// them, stay put below the edit, follow a moved line by its text, and a
// removed line's breakpoint goes to the line that took its place.
func TestMapLines(t *testing.T) {
	lines := func(s string) []string { return strings.Split(s, " ") }
	cases := []struct {
		name     string
		old, new string
		at, want []int
		gone     int
	}{
		{"insert above", "a b c d", "x y a b c d", []int{1, 3}, []int{3, 5}, 0},
		{"delete above", "a b c d e", "a d e", []int{4, 5, 1}, []int{2, 3, 1}, 0},
		{"edit below", "a b c d", "a b c X Y", []int{2}, []int{2}, 0},
		{"rewritten line keeps its place", "a b c d", "a B c d", []int{2}, []int{2}, 0},
		{"moved by text in a changed part", "a b c d e", "a X c Y Z b e", []int{3}, []int{3}, 0},
		{"removed line", "a b c d", "a d", []int{2, 3}, []int{2, 2}, 2},
		{"two hunks", "a b c d e f", "a X b c d Y Z f", []int{3, 6}, []int{4, 8}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, gone := mapLines(lines(c.old), lines(c.new), c.at)
			if !slices.Equal(got, c.want) || gone != c.gone {
				t.Errorf("mapLines(%q -> %q, %v) = %v (gone %d), want %v (gone %d)", c.old, c.new, c.at, got, gone, c.want, c.gone)
			}
		})
	}
}
