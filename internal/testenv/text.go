package testenv

import "strings"
import "testing"

// WantAll reports, as an error of t, each of wants that got does not hold
// ("what lacks ...", with got in full), and says whether it holds them all:
// a test that cannot go on without them calls t.FailNow when it does not.
func WantAll(t testing.TB, what, got string, wants ...string) bool {
	t.Helper()
	all := true
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
			all = false
		}
	}
	return all
}
