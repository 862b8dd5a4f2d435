package glob_test

import "regexp"
import "testing"

import "github.com/tetherhq/tether/internal/glob"

func TestExpr(t *testing.T) {
	plain, git, ts := glob.Options{}, glob.Options{Classes: true}, glob.Options{Components: true}
	for _, c := range []struct {
		name  string
		glob  string
		o     glob.Options
		match []string
		miss  []string
	}{
		{"star stays in a component", "*.go", plain, []string{"a.go", ".go"}, []string{"d/a.go", "a.goo"}},
		{"question is one character", "a?.go", plain, []string{"ab.go"}, []string{"a.go", "a/.go", "abc.go"}},
		{"double star slash is any directories", "**/x.go", plain, []string{"x.go", "a/x.go", "a/b/x.go"}, []string{"ax.go"}},
		{"middle double star", "a/**/b", plain, []string{"a/b", "a/x/b", "a/x/y/b"}, []string{"ab", "a/xb"}},
		{"trailing double star spans components", "a/**", plain, []string{"a/x", "a/x/y"}, []string{"a", "ab"}},
		{"double star in a name spans components", "a**b", plain, []string{"ab", "a/x/b"}, []string{"a/x/c"}},
		{"meta characters are themselves", "a+(b).go", plain, []string{"a+(b).go"}, []string{"aab.go"}},
		{"plain: brackets are themselves", "a[bc].go", plain, []string{"a[bc].go"}, []string{"ab.go"}},
		{"plain: backslash is itself", `a\*`, plain, []string{`a\`, `a\x`}, []string{"a*"}},
		{"classes", "a[bc].go", git, []string{"ab.go", "ac.go"}, []string{"ad.go", "a[bc].go"}},
		{"negated class", "a[!b].go", git, []string{"ac.go"}, []string{"ab.go"}},
		{"range class", "[0-9]x", git, []string{"7x"}, []string{"ax"}},
		{"unclosed bracket is itself", "a[b", git, []string{"a[b"}, []string{"ab"}},
		{"backslash escapes", `a\*`, git, []string{"a*"}, []string{"ab", `a\b`}},
		{"classes: double star as plain", "a/**/b", git, []string{"a/b", "a/x/y/b"}, []string{"a/xb"}},
		{"components: double star slash", "src/**/*.ts", ts, []string{"src/a.ts", "src/x/y/a.ts"}, []string{"srca.ts", "src/a.tsx"}},
		{"components: double star in a name stays", "a**b", ts, []string{"ab", "axxb"}, []string{"a/x/b"}},
		{"components: only whole directories", "a**/b", ts, []string{"ab", "ax/b"}, []string{"a/x/b"}},
		{"components: no empty directory", "a/**/b", ts, []string{"a/b", "a/x/b"}, []string{"a//b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			re := regexp.MustCompile("^" + glob.Expr(c.glob, c.o) + "$")
			for _, p := range c.match {
				if !re.MatchString(p) {
					t.Errorf("%q (%s) does not match %q", c.glob, re, p)
				}
			}
			for _, p := range c.miss {
				if re.MatchString(p) {
					t.Errorf("%q (%s) matches %q", c.glob, re, p)
				}
			}
		})
	}
}
