package nodeadapter

import "regexp"
import "testing"

// TestPageURLRegex: a breakpoint of web/js/app.js binds to the script a
// page loads by its file: URL, or by an http(s) URL whose path is a
// trailing part of web/js/app.js, with any query; not to another file's.
func TestPageURLRegex(t *testing.T) {
	re := regexp.MustCompile(pageURLRegex("/p", "/p/web/js/app.js"))
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"file:///p/web/js/app.js", true},
		{"http://localhost:8080/web/js/app.js", true},
		{"https://example.test/js/app.js?v=3", true},
		{"http://127.0.0.1:5173/app.js#x", true},
		{"http://localhost/lib/app.js", false},
		{"http://localhost/js/app.jsx", false},
		{"file:///q/web/js/app.js", false},
		{"http://localhost/xapp.js", false},
	} {
		if got := re.MatchString(tc.url); got != tc.want {
			t.Errorf("%s: matched %v, want %v (%s)", tc.url, got, tc.want, re)
		}
	}
}
