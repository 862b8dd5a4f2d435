package inject

import "bytes"
import "slices"

import "github.com/tetherhq/tether/engine"

// Template expressions. Svelte's and Vue's templates hold JavaScript
// expressions (TypeScript when the component's script is lang="ts"): each
// is one region, parsed wrapped in parentheses as an expression, and its
// matches are placed at the expression's own bytes. What binds a name
// rather than computing a value is not a region: a Svelte each block's
// "as item, i (key)" part, an await block's "then value", a spread or shorthand
// attribute, and a Vue v-for's alias, v-slot and #slot values.

// templateLang is the language of a component's template expressions:
// TypeScript when one of its scripts is, JavaScript otherwise.
func templateLang(tags []Region) string {
	for _, r := range tags {
		if r.Lang == "typescript" {
			return "typescript"
		}
	}
	return "javascript"
}

// exprRegion is the region of node n's text in lang, when it holds more
// than white space.
func exprRegion(out []Region, n engine.Node, lang string, wrap bool) []Region {
	if !n.Valid() || len(bytes.TrimSpace(n.Bytes())) == 0 {
		return out
	}
	r := regionOf(n, lang)
	r.Wrap = wrap
	return append(out, r)
}

// childOf returns n's first child of kind.
func childOf(n engine.Node, kind string) engine.Node {
	for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
		if c.Kind() == kind {
			return c
		}
	}
	return engine.Node{}
}

// byStart orders regions as they occur in the host file.
func byStart(rs []Region) []Region {
	slices.SortStableFunc(rs, func(a, b Region) int { return a.Start - b.Start })
	return rs
}

// svelteRegions lists a Svelte component's scripts and styles and its
// template's expressions: {expr} in text and as an attribute's value
// (on:click={handler}, bind:value={x}), {@html expr}, {#key expr}, the
// condition of {#if} and {:else if}, the list of {#each} and the promise
// of {#await}.
func svelteRegions(t *engine.Tree) []Region {
	out := tagRegions(t)
	lang := templateLang(out)
	t.Root().Walk(func(n engine.Node) bool {
		switch n.Kind() {
		case "script_element", "style_element", "each_end", "if_end":
			return false
		case "expression", "html_tag", "key_start":
			out = exprRegion(out, childOf(n, "svelte_raw_text"), lang, true)
			return false
		case "if_start", "else_if_start":
			c, _ := n.ChildByField("condition")
			out = exprRegion(out, c, lang, true)
			return false
		case "each_start":
			c, _ := n.ChildByField("identifier")
			out = exprRegion(out, c, lang, true)
			return false
		case "await_start":
			if r, ok := awaitedRegion(childOf(n, "svelte_raw_text"), lang); ok {
				out = append(out, r)
			}
			return false
		}
		return true
	})
	return byStart(out)
}

// vueRegions lists a Vue component's scripts and styles and its template's
// expressions: {{ expr }} interpolations and directive values (v-if, :prop,
// v-bind, v-model, custom directives; of v-for the part after "in" or
// "of"). An event handler (@click, v-on) may be statements ("a++; b()"),
// so it is parsed as a script rather than as one expression.
func vueRegions(t *engine.Tree) []Region {
	out := tagRegions(t)
	lang := templateLang(out)
	t.Root().Walk(func(n engine.Node) bool {
		switch n.Kind() {
		case "script_element", "style_element":
			return false
		case "interpolation":
			out = exprRegion(out, childOf(n, "raw_text"), lang, true)
			return false
		case "directive_attribute":
			name := childOf(n, "directive_name").Text()
			if name == "#" || name == "v-slot" {
				return false
			}
			v := childOf(n, "attribute_value")
			if q := childOf(n, "quoted_attribute_value"); q.Valid() {
				v = childOf(q, "attribute_value")
			}
			if !v.Valid() {
				return false
			}
			if name == "v-for" {
				if r, ok := forSource(v, lang); ok {
					out = append(out, r)
				}
				return false
			}
			out = exprRegion(out, v, lang, name != "@" && name != "v-on")
			return false
		}
		return true
	})
	return byStart(out)
}

// awaitedRegion returns the region of an {#await} block's promise: the
// text of v before a "then" or "catch" between white space
// ("p then value" binds value); false when it is only white space.
func awaitedRegion(v engine.Node, lang string) (Region, bool) {
	if !v.Valid() {
		return Region{}, false
	}
	text := v.Bytes()
	end := len(text)
	for i := 1; i < len(text); i++ {
		if !isSpace(text[i-1]) {
			continue
		}
		for _, w := range []string{"then", "catch"} {
			if bytes.HasPrefix(text[i:], []byte(w)) && (i+len(w) == len(text) || isSpace(text[i+len(w)])) {
				end = min(end, i)
			}
		}
	}
	if len(bytes.TrimSpace(text[:end])) == 0 {
		return Region{}, false
	}
	r := regionOf(v, lang)
	r.End = r.Start + end
	r.Wrap = true
	return r, true
}

// forSource returns the region of a v-for value's source list: the text
// after the first "in" or "of" between white space ("(item, i) in items"),
// as Vue's compiler splits it; false when the value has none.
func forSource(v engine.Node, lang string) (Region, bool) {
	text := v.Bytes()
	for i := 1; i+3 < len(text); i++ {
		if !isSpace(text[i-1]) || !isSpace(text[i+2]) {
			continue
		}
		if w := string(text[i : i+2]); w != "in" && w != "of" {
			continue
		}
		from := i + 3
		for from < len(text) && isSpace(text[from]) {
			from++
		}
		if from == len(text) {
			return Region{}, false
		}
		r := regionOf(v, lang)
		r.Wrap = true
		// the row and column of the source list's start
		for _, c := range text[:from] {
			if c == '\n' {
				r.Line, r.Col = r.Line+1, 0
			} else {
				r.Col++
			}
		}
		r.Start += from
		return r, true
	}
	return Region{}, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// maySvelte says whether a Svelte file may hold a region of lang: a tag
// for it, or, for a template's languages, a "{".
func maySvelte(src []byte, lang string) bool {
	if (lang == "javascript" || lang == "typescript") && bytes.IndexByte(src, '{') >= 0 {
		return true
	}
	return mayHoldTag(src, lang)
}

// mayVue says whether a Vue file may hold a region of lang: a tag for it,
// or, for a template's languages, an interpolation or a directive's mark
// ("{{", "v-", ":", "@").
func mayVue(src []byte, lang string) bool {
	if lang == "javascript" || lang == "typescript" {
		if bytes.Contains(src, []byte("{{")) || bytes.Contains(src, []byte("v-")) || bytes.ContainsAny(src, ":@") {
			return true
		}
	}
	return mayHoldTag(src, lang)
}
