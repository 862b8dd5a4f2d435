package search

import (
	"context"
	"slices"
	"testing"
)

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
		{"<template><p>{{ a }}</p></template>\n<script>export default {}</script>\n<style>p{}</style>\n", []string{"javascript", "css"}},
		{"<script setup lang=\"ts\">let a: number = 1</script>\n<style scoped lang=\"scss\">.a{.b{}}</style>\n", []string{"typescript", "scss"}},
		{"<script lang=\"tsx\">let a = <b/></script>\n<style lang=\"less\">.a{}</style>\n", []string{"tsx"}},
		{"<template><button @click=\"go()\">{{ go() }}</button></template>\n", nil},
	}
	for _, c := range cases {
		tree, err := p.Parse(context.Background(), "vue", []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		if tree.HasError() {
			t.Fatalf("%q parses with errors", c.src)
		}
		var got []string
		for _, r := range hosts["vue"].regions(tree) {
			got = append(got, r.lang)
			if !hosts["vue"].may([]byte(c.src), r.lang) {
				t.Errorf("%q: a region of %s, and the look at its bytes rules it out", c.src, r.lang)
			}
		}
		if !slices.Equal(got, c.langs) {
			t.Errorf("%q: regions %v, want %v", c.src, got, c.langs)
		}
	}
	if !embeds("vue", "javascript") || !embeds("vue", "scss") || embeds("vue", "go") {
		t.Error("vue embeds: want javascript and scss, not go")
	}
}
