package js

import "strconv"
import "strings"
import "unicode/utf8"

import "github.com/dop251/goja"

// maxTableRows bounds console.table; the rest is counted below the table.
const maxTableRows = 200

// table renders console.table(data) as node does: a box with an (index)
// column, one column per key of the rows (a Values column for rows that are
// not objects), cells left-aligned as node 20 and later draw them.
func (s *session) table(v goja.Value) string {
	obj, ok := v.(*goja.Object)
	if !ok {
		return s.inspect(v, 0, false, nil)
	}
	keys := tableKeys(obj)
	more := 0
	if len(keys) > maxTableRows {
		more, keys = len(keys)-maxTableRows, keys[:maxTableRows]
	}
	var cols []string
	seen := map[string]bool{}
	hasValues := false
	rows := make([]map[string]string, len(keys))
	for i, k := range keys {
		rows[i] = map[string]string{}
		cell := obj.Get(k)
		if o, ok := cell.(*goja.Object); ok && o.ClassName() != "Function" {
			ks := tableKeys(o)
			for _, c := range ks {
				if !seen[c] {
					seen[c] = true
					cols = append(cols, c)
				}
				rows[i][c] = s.inspect(o.Get(c), 1, true, nil)
			}
			continue
		}
		hasValues = true
		rows[i]["\x00values"] = s.inspect(cell, 1, true, nil)
	}
	header := append([]string{"(index)"}, cols...)
	keyOf := append([]string{""}, cols...)
	if hasValues {
		header = append(header, "Values")
		keyOf = append(keyOf, "\x00values")
	}
	width := make([]int, len(header))
	for j, h := range header {
		width[j] = utf8.RuneCountInString(h) + 2
	}
	cells := make([][]string, len(keys))
	for i, k := range keys {
		cells[i] = make([]string, len(header))
		for j := range header {
			c := k
			if j > 0 {
				c = rows[i][keyOf[j]]
			}
			cells[i][j] = c
			if w := utf8.RuneCountInString(c) + 2; w > width[j] {
				width[j] = w
			}
		}
	}
	// Left-aligned after one space, as node 20 and later draw it.
	center := func(s string, w int) string {
		return " " + s + strings.Repeat(" ", w-1-utf8.RuneCountInString(s))
	}
	line := func(l, m, r string) string {
		parts := make([]string, len(width))
		for j, w := range width {
			parts[j] = strings.Repeat("─", w)
		}
		return l + strings.Join(parts, m) + r
	}
	row := func(vals []string) string {
		parts := make([]string, len(vals))
		for j, v := range vals {
			parts[j] = center(v, width[j])
		}
		return "│" + strings.Join(parts, "│") + "│"
	}
	out := []string{line("┌", "┬", "┐"), row(header), line("├", "┼", "┤")}
	for _, c := range cells {
		out = append(out, row(c))
	}
	out = append(out, line("└", "┴", "┘"))
	if more > 0 {
		out = append(out, "... "+strconv.Itoa(more)+" more rows")
	}
	return strings.Join(out, "\n")
}

// tableKeys are the keys console.table shows of o: an array's indexes, an
// object's own enumerable keys.
func tableKeys(o *goja.Object) []string {
	if o.ClassName() != "Array" {
		return o.Keys()
	}
	var keys []string
	n := o.Get("length").ToInteger()
	for i := int64(0); i < n; i++ {
		keys = append(keys, strconv.FormatInt(i, 10))
	}
	return keys
}
