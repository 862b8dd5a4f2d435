package search

import (
	"context"
	"strings"
	"testing"
)

// TestMayHoldNeverMissesARegion: the cheap look at a host's bytes says yes
// for every file whose tree has a region of the language (it may say yes
// for more), and no for files with no tag or fence of it.
func TestMayHoldNeverMissesARegion(t *testing.T) {
	p := fuzzParser(t)
	cases := []struct {
		host, src string
		langs     []string // the languages with a region
		no        []string // languages it must rule out
	}{
		{"markdown", "# x\n\n```go\nx := 1\n```\n", []string{"go"}, []string{"python", "javascript"}},
		{"markdown", "   ~~~~ py title=\"a\"\nprint(1)\n~~~~\n", []string{"python"}, []string{"go"}},
		{"markdown", "```JS\nf()\n```\n\nuse ```go fences``` in prose\n", []string{"javascript"}, []string{"go"}},
		{"markdown", "- a\n\n  ```go\n  x()\n  ```\n> ```ts\n> x\n> ```\n", nil, []string{"python"}},
		{"markdown", "```\nplain\n```\n", nil, []string{"go", "javascript"}},
		{"html", "<SCRIPT>f()</SCRIPT><Style>a{}</Style>", []string{"javascript", "css"}, nil},
		{"html", "<p>no code</p>", nil, []string{"javascript", "css", "typescript"}},
		{"html", `<script lang="ts">let a: number = 1</script>`, []string{"typescript"}, []string{"css"}},
		{"svelte", "<script>let a = 1</script>\n<style>p{}</style>\n", []string{"javascript", "css"}, nil},
	}
	for _, c := range cases {
		tree, err := p.Parse(context.Background(), c.host, []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range c.langs {
			if rs, n := regionsOf(c.host, tree, l, MaxRegionsPerFile); n == 0 || len(rs) != n {
				t.Errorf("%s %q: %d regions of %s, want some", c.host, c.src, n, l)
			}
		}
		for _, l := range append(append([]string{}, c.langs...), "go", "python", "javascript", "typescript", "css", "json") {
			if _, n := regionsOf(c.host, tree, l, MaxRegionsPerFile); n > 0 && !hosts[c.host].may([]byte(c.src), l) {
				t.Errorf("%s %q: a region of %s, and the look at its bytes rules it out", c.host, c.src, l)
			}
		}
		for _, l := range c.no {
			if hosts[c.host].may([]byte(c.src), l) {
				t.Errorf("%s %q: the look at its bytes does not rule out %s", c.host, strings.TrimSpace(c.src), l)
			}
		}
	}
}
