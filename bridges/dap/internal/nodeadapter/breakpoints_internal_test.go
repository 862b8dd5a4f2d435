package nodeadapter

import "strings"
import "testing"

import godap "github.com/google/go-dap"

// TestBreakpointCondition: conditions, hit counts and log messages become
// one JavaScript condition.
func TestBreakpointCondition(t *testing.T) {
	for _, tc := range []struct {
		bp   godap.SourceBreakpoint
		want []string
		err  string
	}{
		{bp: godap.SourceBreakpoint{Condition: "i === 3"}, want: []string{"(i === 3\n)"}},
		{bp: godap.SourceBreakpoint{HitCondition: ">=2"}, want: []string{`[7] || 0) + 1) >= 2)`}},
		{bp: godap.SourceBreakpoint{HitCondition: "%3"}, want: []string{` % 3 === 0)`}},
		{bp: godap.SourceBreakpoint{LogMessage: "x={x} `y` {a.b({c: 1})} $z"}, want: []string{"console.log(`x=${x} \\`y\\` ${a.b({c: 1})} \\$z`), false"}},
		{bp: godap.SourceBreakpoint{HitCondition: "sometimes"}, err: "not a count"},
	} {
		got, err := breakpointCondition(7, tc.bp)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: error %v, want %q", tc.bp, err, tc.err)
			}
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%+v: %q lacks %q", tc.bp, got, w)
			}
		}
	}
}
