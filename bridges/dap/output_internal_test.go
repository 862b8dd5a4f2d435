package dap

import "strings"
import "testing"
import "unicode/utf8"

// TestOutputBufCut: the kept tail starts at a line (or at least a character)
// boundary, stays within the limit and counts what it dropped.
func TestOutputBufCut(t *testing.T) {
	cases := []struct {
		name, in string
		limit    int
		wantHead string
	}{
		{"lines", strings.Repeat("line 0123456789\n", 100), 100, "line 0"},
		{"multibyte", strings.Repeat("ÄÖÜ", 100), 101, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := newOutputBuf(tc.limit)
			for i := 0; i < len(tc.in); i += 7 {
				o.add("stdout", tc.in[i:min(i+7, len(tc.in))])
			}
			text, size, dropped := o.render()
			body := strings.TrimPrefix(text, "--- stdout ---\n")
			if size > tc.limit || size+dropped != len(tc.in) {
				t.Fatalf("size %d dropped %d of %d (limit %d)", size, dropped, len(tc.in), tc.limit)
			}
			if !utf8.ValidString(body) || !strings.HasPrefix(body, tc.wantHead) {
				t.Fatalf("kept tail starts badly: %q", body[:min(20, len(body))])
			}
		})
	}
}

// TestValueCutInChars: the 400 of a value's cut are characters, not bytes.
func TestValueCutInChars(t *testing.T) {
	cases := []struct {
		value   string
		cut     bool
		shownAs string
	}{
		{strings.Repeat("é", 400), false, ""},
		{strings.Repeat("x", 400), false, ""},
		{strings.Repeat("é", 401), true, "(cut: 400 of 401 chars shown)"},
		{strings.Repeat("😀", 1000), true, "(cut: 400 of 1000 chars shown)"},
	}
	for _, tc := range cases {
		v := toVariable("v", tc.value, "str", 0, 0)
		if v.Cut != tc.cut || !utf8.ValidString(v.Value) {
			t.Fatalf("%d chars: cut %v, want %v", utf8.RuneCountInString(tc.value), v.Cut, tc.cut)
		}
		if tc.cut && (!strings.HasSuffix(v.Value, tc.shownAs) || !strings.HasPrefix(v.Value, strings.Repeat(tc.value[:len(tc.value)/utf8.RuneCountInString(tc.value)], 400)+"…")) {
			t.Fatalf("cut value: %q", v.Value[len(v.Value)-60:])
		}
		if !tc.cut && v.Value != tc.value {
			t.Fatal("a value of 400 characters is not cut")
		}
	}
}

// TestValueCutKeepsMoreMark: delve's "...+488 more" at the end of a value
// it loaded in part survives tether's cut, so the value's length is known.
func TestValueCutKeepsMoreMark(t *testing.T) {
	value := `"` + strings.Repeat("abcdefghij", 51) + `...+488 more"`
	v := toVariable("long", value, "string", 0, 0)
	if !v.Cut || !strings.HasSuffix(v.Value, `ends ...+488 more"`) {
		t.Fatalf("%q", v.Value[len(v.Value)-80:])
	}
}
