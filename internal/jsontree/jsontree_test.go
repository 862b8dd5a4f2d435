package jsontree_test

import "encoding/json"
import "fmt"
import "reflect"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/jsontree"

func TestMapStrings(t *testing.T) {
	upper := func(s string) any { return strings.ToUpper(s) }
	cases := []struct {
		name string
		in   any
		f    func(string) any
		want any
	}{
		{"string", "a", upper, "A"},
		{"number and bool kept", []any{1.5, true, nil}, upper, []any{1.5, true, nil}},
		{"nested", map[string]any{"k": []any{"x", map[string]any{"y": "z"}}}, upper,
			map[string]any{"k": []any{"X", map[string]any{"y": "Z"}}}},
		{"[]string is a list", []string{"a", "b"}, upper, []any{"A", "B"}},
		{"a string becomes a list", map[string]any{"args": "${args}"},
			func(s string) any {
				if s == "${args}" {
					return []any{"-v"}
				}
				return s
			}, map[string]any{"args": []any{"-v"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := jsontree.MapStrings(tc.in, tc.f); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

// TestMapStringsCopies: the input tree is left as it was.
func TestMapStringsCopies(t *testing.T) {
	in := map[string]any{"l": []any{"a"}, "m": map[string]any{"k": "b"}}
	jsontree.MapStrings(in, func(string) any { return "changed" })
	if in["l"].([]any)[0] != "a" || in["m"].(map[string]any)["k"] != "b" {
		t.Fatalf("input changed: %v", in)
	}
}

func ExampleMapStrings() {
	var tmpl any
	_ = json.Unmarshal([]byte(`{"program": "${program}", "args": ["--in", "${program}"], "port": 0}`), &tmpl)
	out := jsontree.MapStrings(tmpl, func(s string) any { return strings.ReplaceAll(s, "${program}", "main.go") })
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
	// Output:
	// {"args":["--in","main.go"],"port":0,"program":"main.go"}
}
