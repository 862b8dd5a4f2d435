package inject

import "fmt"
import "slices"
import "strings"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"

// MaxRegionsPerFile bounds the regions of one language listed in one host
// file (Regions, HostRegions); past it a search names the file.
const MaxRegionsPerFile = 500

// Region is one contiguous part of a host file written in Lang.
type Region struct {
	Lang       string // canonical language id
	Start, End int    // byte offsets in the host file
	Line, Col  int    // zero-based row and byte column of Start
	// Wrap: the region is an expression, parsed as "(" + text + ")" so
	// that an object literal or a function reads as one (Text); matches
	// of the wrapper itself are no part of the host file
	Wrap bool
}

// Text returns what is parsed of the region of host file src: its bytes,
// or for a wrapped region a copy of them in parentheses.
func (r Region) Text(src []byte) []byte {
	if !r.Wrap {
		return src[r.Start:r.End]
	}
	b := make([]byte, 0, r.End-r.Start+2)
	b = append(b, '(')
	b = append(b, src[r.Start:r.End]...)
	return append(b, ')')
}

// host is how regions are found in one host language's tree.
type host struct {
	// embeds are the languages its regions may be in; nil: any shipped
	// language. It decides which host files a query reads at all.
	embeds []string
	// regions lists the regions of t, in source order.
	regions func(t *engine.Tree) []Region
	// may is a cheap look at a host file's bytes: false when it can hold
	// no region of lang, so that it is not parsed at all.
	may func(src []byte, lang string) bool
}

// tagHost is a host whose regions are the raw text of <script> and <style>
// elements, as tree-sitter-html and grammars built on it (svelte, vue) parse
// them.
var tagHost = host{
	embeds:  []string{"javascript", "typescript", "tsx", "css", "scss", "json"},
	regions: tagRegions,
	may:     mayHoldTag,
}

// hosts are the host languages by id. A grammar whose tree names script and
// style elements as tree-sitter-html does is one more tagHost entry.
var hosts = map[string]host{
	"html":     tagHost,
	"svelte":   {embeds: tagHost.embeds, regions: svelteRegions, may: maySvelte},
	"vue":      {embeds: tagHost.embeds, regions: vueRegions, may: mayVue},
	"markdown": {regions: fenceRegions, may: mayHoldFence},
}

// IsHost reports whether lang is a host language: its files' trees have
// regions of other languages.
func IsHost(lang string) bool {
	_, ok := hosts[lang]
	return ok
}

// Embeds reports whether files of hostLang may hold regions of lang.
func Embeds(hostLang, lang string) bool {
	if hostLang == "" || hostLang == lang {
		return false
	}
	h, ok := hosts[hostLang]
	return ok && (h.embeds == nil || slices.Contains(h.embeds, lang))
}

// Regions returns t's regions of lang, at most max, and how many it has.
func Regions(hostLang string, t *engine.Tree, lang string, max int) ([]Region, int) {
	h, ok := hosts[hostLang]
	if !ok {
		return nil, 0
	}
	var out []Region
	n := 0
	for _, r := range h.regions(t) {
		if r.Lang != lang {
			continue
		}
		if n++; len(out) < max {
			out = append(out, r)
		}
	}
	return out, n
}

// May is a cheap look at the bytes src of a file of hostLang: false when it
// can hold no region of lang, so that it need not be parsed at all.
func May(hostLang, lang string, src []byte) bool {
	h := hosts[hostLang]
	return h.may == nil || h.may(src, lang)
}

// regionOf returns the region of node n's text in lang.
func regionOf(n engine.Node, lang string) Region {
	rg := n.Range()
	return Region{Lang: lang, Start: int(rg.StartByte), End: int(rg.EndByte), Line: int(rg.StartPoint.Row), Col: int(rg.StartPoint.Column)}
}

// Hint says, for a search whose language was inferred as a host
// language, how to search the code its files embed ("" for another
// language).
func Hint(lang string) string {
	h, ok := hosts[lang]
	l, known := grammars.Lookup(lang)
	if !ok || !known {
		return ""
	}
	if h.embeds == nil {
		return fmt.Sprintf("searched as %s; to search the code in its fences pass their language (go, python, ...)", l.Name)
	}
	what := "scripts and styles"
	if lang == "svelte" || lang == "vue" {
		what = "scripts, styles and template expressions"
	}
	return fmt.Sprintf("searched as %s; to search the code in its %s pass their language (%s)", l.Name, what, strings.Join(h.embeds, ", "))
}
