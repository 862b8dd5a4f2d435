package inject

import "context"
import "slices"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"

// TestVueHostRegions: a Vue component's regions come from its own tree
// (tree-sitter-vue names script and style elements as tree-sitter-html
// does), and the cheap look at its bytes never rules out a language it
// has a region of.
func TestVueHostRegions(t *testing.T) {
	p := fuzzParser(t)
	cases := []struct {
		src   string
		langs []string // the languages with a region, in order
	}{
		{"<template><p>{{ a }}</p></template>\n<script>export default {}</script>\n<style>p{}</style>\n", []string{"javascript", "javascript", "css"}},
		{"<script setup lang=\"ts\">let a: number = 1</script>\n<style scoped lang=\"scss\">.a{.b{}}</style>\n", []string{"typescript", "scss"}},
		{"<script lang=\"tsx\">let a = <b/></script>\n<style lang=\"less\">.a{}</style>\n", []string{"tsx"}},
		{"<template><button @click=\"go()\">{{ go() }}</button></template>\n", []string{"javascript", "javascript"}},
		{"<template><li v-for=\"x in xs\" #item=\"{ y }\" title=\"t\">{{ }}</li></template>\n<script lang=\"ts\"></script>", []string{"typescript", "typescript"}},
	}
	for _, c := range cases {
		tree, err := p.Parse(context.Background(), enginetest.Language(t, "vue"), []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		if tree.HasError() {
			t.Fatalf("%q parses with errors", c.src)
		}
		var got []string
		for _, r := range hosts["vue"].regions(tree) {
			got = append(got, r.Lang)
			if !hosts["vue"].may([]byte(c.src), r.Lang) {
				t.Errorf("%q: a region of %s, and the look at its bytes rules it out", c.src, r.Lang)
			}
		}
		if !slices.Equal(got, c.langs) {
			t.Errorf("%q: regions %v, want %v", c.src, got, c.langs)
		}
	}
	// Vue's and HTML's grammars read a tag with white space after its "<"
	// and compare its name upper-cased rune by rune (towupper: "ſ" is S,
	// "ı" is I), so the look at the bytes must too (Svelte's reads fewer
	// such tags; the look may say yes for more).
	for _, host := range []string{"vue", "html", "svelte"} {
		for _, src := range []string{"< stYle</stYle ", "<\n\tstyle>p{}</style>", "<ſtyle>p{}</style>", "<scrıpt>a</script>", "<\u3000style>p{}</style>"} {
			tree, err := p.Parse(context.Background(), enginetest.Language(t, host), []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, r := range hosts[host].regions(tree) {
				n++
				if !hosts[host].may([]byte(src), r.Lang) {
					t.Errorf("%s %q: a region of %s, and the look at its bytes rules it out", host, src, r.Lang)
				}
			}
			if n == 0 && host != "svelte" {
				t.Errorf("%s %q: no region", host, src)
			}
		}
	}
	if !Embeds("vue", "javascript") || !Embeds("vue", "scss") || Embeds("vue", "go") {
		t.Error("vue embeds: want javascript and scss, not go")
	}
}

// FuzzVueRegions: any text parses as Vue (the C++ scanner never traps on
// it) and gives regions inside the file, in order, that the look at its
// bytes never rules out.
func FuzzVueRegions(f *testing.F) {
	f.Add("<template><p v-if=\"a\">{{ b }}</p></template>\n<script setup lang=\"ts\">let a</script><style lang=scss>p{}</style>")
	f.Add("<template><x-a><x-b><x-c></template><script>")
	f.Add("<!-- a --><script>a</SCRIPT><style>b</style ><br><img/></p></div>")
	p := fuzzParser(f)
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<12 {
			return
		}
		tree, err := p.Parse(context.Background(), enginetest.Language(t, "vue"), []byte(src))
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		last := 0
		for _, r := range hosts["vue"].regions(tree) {
			if r.Start < last || r.End < r.Start || r.End > len(src) {
				t.Fatalf("region %+v out of order or bounds (after %d, in %d bytes)", r, last, len(src))
			}
			last = r.End
			if !hosts["vue"].may([]byte(src), r.Lang) {
				t.Fatalf("a region of %s at %d, and the look at the bytes rules it out", r.Lang, r.Start)
			}
		}
	})
}
