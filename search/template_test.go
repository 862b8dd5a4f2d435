package search_test

import "context"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/inject"
import "github.com/tetherhq/tether/search/store"

// templateSvelte has JavaScript in every kind of Svelte template
// expression, and the same calls where they are no expression: a string
// attribute, an each block's "as" part, and text.
const templateSvelte = `<script>
  let x = { value: 1 }
</script>

<button on:click={() => console.log("click")} bind:value={x.value} title="console.log(no)">{console.log("text")}</button>
{#if console.log("if")}a{:else if y.value}b{/if}
{#each console.log("list") as console (console.log("key"))}{console}{/each}
{@html console.log("html")}
{#key console.log("k")}k{/key}
<p>console.log("plain")</p>
{#await console.log("await") then v}{v}{/await}
{#await p then console}{console.log("then")}{/await}{#await q catch console}{/await}
{#if x}{@const c = console.log("const")}{/if}
`

// templateVue has JavaScript in Vue's interpolations and directives, and
// the same calls where they are no expression: text, a plain attribute, a
// v-for's alias and slot props.
const templateVue = `<template>
  <div v-if="console.log('if')" :class="{ on: state.value }" @click="console.log('click'); n++" v-for="(console, i) in console.log('list')" #default="{ console }" title="console.log('no')">
    {{ console.log('text') }} console.log('plain')
    <input v-model="form.value" v-bind:x="console.log('bind')">
    <li v-for="item
      of console.log('multi')">{{ (w) }}{{ w2 }}</li>
  </div>
  <i v-for="z in
console.log('col0')"></i>
</template>
<script>
export default {}
</script>
`

// templateSvelteTS is a component whose script is TypeScript: so are its
// template's expressions.
const templateSvelteTS = `<script lang="ts">let n: unknown = 1</script>
<p>{(n as number).toFixed(1)}</p>
`

// templateVueTS is a component whose script is TypeScript: so are its
// template's expressions.
const templateVueTS = `<template>
  <p :title="(n as number).toFixed(2)">{{ console.log(n as number) }}</p>
</template>
<script setup lang="ts">
const n: unknown = 1
</script>
`

// TestTemplateExpressions: Svelte's and Vue's template expressions are
// searched as JavaScript (TypeScript in a component whose script is), with
// matches at the host file's lines, columns and bytes; what is no
// expression is not searched.
func TestTemplateExpressions(t *testing.T) {
	p := parser(t)
	srcs := map[string]string{"App.svelte": templateSvelte, "App.vue": templateVue, "Typed.vue": templateVueTS, "Typed.svelte": templateSvelteTS}
	dir := writeFiles(t, srcs)
	cases := []struct {
		name, lang, pattern string
		want                []string
	}{
		{"calls", "javascript", "console.log($A)", []string{
			`App.svelte:5:25 javascript console.log("click")`,
			`App.svelte:5:93 javascript console.log("text")`,
			`App.svelte:6:6 javascript console.log("if")`,
			`App.svelte:7:8 javascript console.log("list")`,
			`App.svelte:8:8 javascript console.log("html")`,
			`App.svelte:9:7 javascript console.log("k")`,
			`App.svelte:11:9 javascript console.log("await")`,
			`App.svelte:12:25 javascript console.log("then")`,
			`App.vue:2:14 javascript console.log('if')`,
			`App.vue:2:70 javascript console.log('click')`,
			`App.vue:2:120 javascript console.log('list')`,
			`App.vue:3:8 javascript console.log('text')`,
			`App.vue:4:43 javascript console.log('bind')`,
			`App.vue:6:10 javascript console.log('multi')`,
			`App.vue:9:1 javascript console.log('col0')`,
		}},
		{"members", "javascript", "$X.value", []string{
			`App.svelte:5:59 javascript x.value`,
			`App.svelte:6:35 javascript y.value`,
			`App.vue:2:47 javascript state.value`,
			`App.vue:4:21 javascript form.value`,
		}},
		{"object literal", "javascript", "{ on: $V }", []string{`App.vue:2:41 javascript { on: state.value }`}},
		{"wrapper not reported", "javascript", "($A)", []string{`App.vue:6:35 javascript (w)`}},
		{"typescript", "typescript", "$A as number", []string{
			`Typed.svelte:2:6 typescript n as number`,
			`Typed.vue:2:15 typescript n as number`,
			`Typed.vue:2:55 typescript n as number`,
		}},
		{"typescript call", "ts", "console.log($A)", []string{`Typed.vue:2:43 typescript console.log(n as number)`}},
	}
	s := search.NewSearcher(p, search.Config{Cache: store.NewCache(0)})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := wantWheres(t, s, search.Query{Pattern: c.pattern, Language: c.lang, Paths: []string{dir}}, c.want)
			if res.Total != len(c.want) {
				t.Errorf("total %d, want %d", res.Total, len(c.want))
			}
		})
	}

	// a rewrite edits exactly the expressions' bytes; the text, strings and
	// bindings that read the same stay
	rewrites := []struct {
		file, lang string
		replaced   []string // the calls replaced, in the host's text
	}{
		{"App.svelte", "javascript", []string{`console.log("click")`, `console.log("text")`, `console.log("if")`, `console.log("list")`, `console.log("html")`, `console.log("k")`, `console.log("await")`, `console.log("then")`}},
		{"App.vue", "javascript", []string{`console.log('if')`, `console.log('click')`, `console.log('list')`, `console.log('text')`, `console.log('bind')`, `console.log('multi')`, `console.log('col0')`}},
		{"Typed.vue", "typescript", []string{`console.log(n as number)`}},
	}
	for _, rw := range rewrites {
		t.Run("rewrite "+rw.file, func(t *testing.T) {
			got := stageLogToInfo(t, s, dir, rw.file, rw.lang, len(rw.replaced))
			want := srcs[rw.file]
			for _, r := range rw.replaced {
				if strings.Count(want, r) != 1 {
					t.Fatalf("%q is not once in %s", r, rw.file)
				}
				want = strings.Replace(want, r, strings.Replace(r, "log", "info", 1), 1)
			}
			if got != want {
				t.Errorf("after the staged edit %s is\n%s\nwant\n%s", rw.file, got, want)
			}
			if err := os.WriteFile(filepath.Join(dir, rw.file), []byte(srcs[rw.file]), 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}

	t.Run("scan", func(t *testing.T) {
		rules, err := search.CompileRules(context.Background(), p, []byte("id: paren\nlanguage: javascript\nrule: {pattern: ($A)}\nfix: $A\n"), "rules.yml", nil)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "App.vue")
		res, err := s.Scan(context.Background(), search.ScanQuery{Rules: rules, Paths: []string{path}, Fix: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range res.Findings {
			got = append(got, where(t, templateVue, f.Match))
		}
		// the parentheses each expression is parsed in are no finding
		if want := `App.vue:6:35 javascript (w)`; strings.Join(got, "\n") != want {
			t.Errorf("findings\n%s\nwant %s", strings.Join(got, "\n"), want)
		}
		if len(res.Plan.Changes) != 1 || string(res.Plan.Changes[0].New) != strings.Replace(templateVue, "{{ (w) }}", "{{ w }}", 1) {
			t.Errorf("the fix does not edit only (w): %d changes", len(res.Plan.Changes))
		}
	})
}

// TestTemplateHint: a component searched without a language is searched as
// Svelte or Vue; when nothing matches, the summary says how to search its
// template expressions.
func TestTemplateHint(t *testing.T) {
	p := parser(t)
	dir := writeFiles(t, map[string]string{"App.svelte": templateSvelte, "App.vue": templateVue})
	s := search.NewSearcher(p, search.Config{Cache: store.NewCache(0)})
	for _, c := range []struct{ file, name string }{{"App.svelte", "Svelte"}, {"App.vue", "Vue"}} {
		res, err := s.Search(context.Background(), search.Query{Pattern: "console.log($A)", Paths: []string{filepath.Join(dir, c.file)}})
		if err != nil {
			t.Fatal(err)
		}
		want := "searched as " + c.name + "; to search the code in its scripts, styles and template expressions pass their language"
		if sum := res.Summary(); res.Total != 0 || !strings.Contains(sum, want) {
			t.Errorf("%s: %d matches; summary %q does not say %q", c.file, res.Total, sum, want)
		}
	}
}

// TestTemplateRegionsCut: template expressions count against the regions
// searched in one file, as scripts do, and the result names the file.
func TestTemplateRegionsCut(t *testing.T) {
	p := parser(t)
	src := "<template>" + strings.Repeat("{{ f(1) }}", inject.MaxRegionsPerFile+1) + "</template>\n"
	dir := writeFiles(t, map[string]string{"Many.vue": src})
	s := search.NewSearcher(p, search.Config{Cache: store.NewCache(0)})
	res, err := s.Search(context.Background(), search.Query{Pattern: "f($A)", Language: "javascript", Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != inject.MaxRegionsPerFile {
		t.Errorf("%d matches, want the first %d regions'", res.Total, inject.MaxRegionsPerFile)
	}
	if len(res.RegionsCut) != 1 || res.RegionsCut[0].Regions != inject.MaxRegionsPerFile+1 || res.RegionsCut[0].Searched != inject.MaxRegionsPerFile {
		t.Errorf("regions cut %+v, want Many.vue with %d of %d searched", res.RegionsCut, inject.MaxRegionsPerFile, inject.MaxRegionsPerFile+1)
	}
}
