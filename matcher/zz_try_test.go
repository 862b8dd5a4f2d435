package matcher_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/tetherhq/tether/matcher"
)

func TestTryCompile(t *testing.T) {
	p := parser(t)
	for _, l := range strings.Split(os.Getenv("PATS"), "\n") {
		lang, pat, _ := strings.Cut(l, " ")
		if lang == "" {
			continue
		}
		cp, err := matcher.Compile(context.Background(), p, lang, pat)
		if err != nil {
			t.Logf("%s %q: ERR %v", lang, pat, err)
			continue
		}
		for _, r := range cp.Readings() {
			t.Logf("%s %q: %s: %s", lang, pat, r.Context(), r.String())
		}
	}
}
