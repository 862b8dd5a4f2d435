package inject

import "context"
import "strings"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"

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
		tree, err := p.Parse(context.Background(), enginetest.Language(t, c.host), []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range c.langs {
			if rs, n := Regions(c.host, tree, l, MaxRegionsPerFile); n == 0 || len(rs) != n {
				t.Errorf("%s %q: %d regions of %s, want some", c.host, c.src, n, l)
			}
		}
		for _, l := range append(append([]string{}, c.langs...), "go", "python", "javascript", "typescript", "css", "json") {
			if _, n := Regions(c.host, tree, l, MaxRegionsPerFile); n > 0 && !hosts[c.host].may([]byte(c.src), l) {
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

// FuzzRegions: any markdown or HTML text gives regions inside the file, in
// order, never overlapping, each of a shipped language, and the cheap look
// at its bytes never rules out a language it has a region of.
func FuzzRegions(f *testing.F) {
	f.Add("markdown", "```go\nx()\n```\n> ```py\n> y\n> ```\n")
	f.Add("markdown", "~~~~js title=\"a\"\n~~~\n~~~~\n```\n```ts\n")
	f.Add("html", "<script lang=ts>let a</script><style type=text/css>a{}</style><script type=module>")
	f.Add("svelte", "<script context=\"module\">x</script>{a}<style>p{}</style>")
	f.Add("svelte", "<b on:click={f} {...r}>{#if a}{#each xs as x (x.id)}{x}{/each}{:else if b}{@html h}{/if}</b>")
	f.Add("vue", "<template><a :x=\"{a: 1}\" @click=\"a++; b()\" v-for=\"(x, i)\n of xs\" #s=\"{ y }\">{{ x }}</a></template>")
	p := fuzzParser(f)
	f.Fuzz(func(t *testing.T, host, src string) {
		h, ok := hosts[host]
		if !ok || len(src) > 1<<12 {
			return
		}
		hl, _ := grammars.Lookup(host)
		tree, err := p.Parse(context.Background(), hl, []byte(src))
		if err != nil {
			return
		}
		last := 0
		for _, r := range h.regions(tree) {
			if r.Start < last || r.End < r.Start || r.End > len(src) {
				t.Fatalf("region %+v out of order or bounds (after %d, in %d bytes)", r, last, len(src))
			}
			last = r.End
			if _, ok := grammars.Lookup(r.Lang); !ok {
				t.Fatalf("region of unknown language %q", r.Lang)
			}
			if !h.may([]byte(src), r.Lang) {
				t.Fatalf("a region of %s at %d, and the look at the bytes rules it out", r.Lang, r.Start)
			}
		}
	})
}

func fuzzParser(t testing.TB) matcher.Parser {
	t.Helper()
	return enginetest.Engine(t)
}
