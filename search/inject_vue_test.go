package search_test

import "strings"
import "testing"

import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/store"

// injectVue is a Vue single-file component with every kind of region: a
// script without lang (JavaScript), a <script setup lang="ts">, a scoped
// style (CSS), an SCSS style, and a Less style (no shipped grammar: no
// region); and the template's directives and interpolations, TypeScript as
// the script setup is, and text, which is not a region.
const injectVue = `<template>
  <button @click="console.log(1)">{{ console.log(2) }}</button>
  <p>console.log(3)</p>
</template>

<script>
export default { created() { console.log("options") } }
</script>

<script setup lang="ts">
const n: number = 1
console.log(n)
</script>

<style scoped>
.a { color: red; }
</style>

<style lang="scss">
.b { .c { color: red; } }
</style>

<style lang="less">
.d { color: red; }
</style>
`

// TestInjectedVue: a Vue component is a host as HTML is: its script and
// style blocks are searched as their lang says, matches are reported in
// the component's coordinates, and a rewrite edits the component in place.
func TestInjectedVue(t *testing.T) {
	p := parser(t)
	dir := writeFiles(t, map[string]string{"App.vue": injectVue, "main.ts": "console.log(\"file\")\n"})
	cases := []struct {
		name, lang, pattern string
		want                []string
	}{
		{"javascript", "javascript", "console.log($A)", []string{`App.vue:7:30 javascript console.log("options")`}},
		{"typescript", "ts", "console.log($A)", []string{
			`App.vue:2:19 typescript console.log(1)`,
			`App.vue:2:38 typescript console.log(2)`,
			`App.vue:12:1 typescript console.log(n)`,
			`main.ts:1:1 typescript console.log("file")`,
		}},
		{"typescript type annotation", "typescript", "const $N: number = $V", []string{`App.vue:11:1 typescript const n: number = 1`}},
		{"css", "css", "$S { color: red; }", []string{`App.vue:16:1 css .a { color: red; }`}},
		{"scss", "scss", ".c { $$$ }", []string{`App.vue:20:6 scss .c { color: red; }`}},
	}
	s := search.NewSearcher(p, search.Config{Cache: store.NewCache(0)})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantWheres(t, s, search.Query{Pattern: c.pattern, Language: c.lang, Paths: []string{dir}}, c.want)
		})
	}

	t.Run("rewrite", func(t *testing.T) {
		got := stageLogToInfo(t, s, dir, "App.vue", "typescript", 3)
		// the script setup's call and the template's (TypeScript too)
		// change; the template's text and the other script's stay
		want := strings.Replace(injectVue, "\nconsole.log(n)\n", "\nconsole.info(n)\n", 1)
		want = strings.Replace(want, `"console.log(1)">{{ console.log(2) }}`, `"console.info(1)">{{ console.info(2) }}`, 1)
		if got != want {
			t.Errorf("after the staged edit App.vue is\n%s\nwant\n%s", got, want)
		}
	})
}
