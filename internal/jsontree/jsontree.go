package jsontree

// MapStrings returns a copy of v with every string in it, at any depth,
// replaced by what f returns for it; f may return a value of another type
// (a number, a list), which then stands in its place. Maps and lists are
// copied, never changed in place; a []string counts as a list of strings
// (a template written in Go). Other values are kept as they are.
func MapStrings(v any, f func(string) any) any {
	switch t := v.(type) {
	case string:
		return f(t)
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = MapStrings(x, f)
		}
		return out
	case []string:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = f(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = MapStrings(x, f)
		}
		return out
	}
	return v
}
