package search

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tetherhq/tether/engine"
	"github.com/tetherhq/tether/grammars"
	"github.com/tetherhq/tether/matcher"
	"github.com/tetherhq/tether/matcher/rule"
	"github.com/tetherhq/tether/search/store"
)

// Embedded languages. A host file holds regions written in another
// language: JavaScript in an HTML <script>, CSS in a <style>, Go in a
// markdown fence. A query of language L searches the files of L and the host
// files that may embed L; in a host file it parses the host, lists its
// regions of L from the host's tree, parses each region as L (through the
// same tree store as files, keyed by the region's content) and reports the
// matches in the host file's coordinates. A rewrite edits the host file at
// those offsets. Regions are one level deep: a region is not itself a host.

// MaxRegionsPerFile bounds the regions of the query's language searched in
// one host file; past it the result names the file (Result.RegionsCut).
const MaxRegionsPerFile = 500

// region is one contiguous part of a host file written in lang.
type region struct {
	lang       string // canonical language id
	start, end int    // byte offsets in the host file
	line, col  int    // zero-based row and byte column of start
	// wrap: the region is an expression, parsed as "(" + text + ")" so that
	// an object literal or a function reads as one; matches of the wrapper
	// itself are not reported
	wrap bool
}

// text returns what is parsed of the region of host file src, and the base
// that maps the parsed text's positions to src's.
func (r region) text(src []byte) ([]byte, base) {
	if !r.wrap {
		return src[r.start:r.end], base{off: r.start, line: r.line, col: r.col, host: src}
	}
	b := make([]byte, 0, r.end-r.start+2)
	b = append(b, '(')
	b = append(b, src[r.start:r.end]...)
	b = append(b, ')')
	return b, base{off: r.start - 1, line: r.line, col: r.col - 1, host: src, lo: 1, hi: len(b) - 1}
}

// host is how regions are found in one host language's tree.
type host struct {
	// embeds are the languages its regions may be in; nil: any shipped
	// language. It decides which host files a query reads at all.
	embeds []string
	// regions lists the regions of t, in source order.
	regions func(t *engine.Tree) []region
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

// embeds reports whether files of hostLang may hold regions of lang.
func embeds(hostLang, lang string) bool {
	if hostLang == "" || hostLang == lang {
		return false
	}
	h, ok := hosts[hostLang]
	return ok && (h.embeds == nil || slices.Contains(h.embeds, lang))
}

// regionsOf returns t's regions of lang, at most max, and how many it has.
func regionsOf(hostLang string, t *engine.Tree, lang string, max int) ([]region, int) {
	h, ok := hosts[hostLang]
	if !ok {
		return nil, 0
	}
	var out []region
	n := 0
	for _, r := range h.regions(t) {
		if r.lang != lang {
			continue
		}
		if n++; len(out) < max {
			out = append(out, r)
		}
	}
	return out, n
}

// regionOf returns the region of node n's text in lang.
func regionOf(n engine.Node, lang string) region {
	rg := n.Range()
	return region{lang: lang, start: int(rg.StartByte), end: int(rg.EndByte), line: int(rg.StartPoint.Row), col: int(rg.StartPoint.Column)}
}

// tagRegions lists the <script> and <style> elements' raw text. A lang
// attribute names the language (lang="ts": TypeScript, lang="scss": SCSS);
// without one, a script's type decides: none or a JavaScript type is
// JavaScript, a JSON type (application/json, importmap, ...) JSON, and any
// other type (a template, a data block) is not code; a style is CSS. A
// lang no shipped grammar knows is no region.
func tagRegions(t *engine.Tree) []region {
	var out []region
	t.Root().Walk(func(n engine.Node) bool {
		kind := n.Kind()
		if kind != "script_element" && kind != "style_element" {
			return true
		}
		var attrs map[string]string
		var text engine.Node
		for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
			switch c.Kind() {
			case "start_tag":
				attrs = tagAttributes(c)
			case "raw_text":
				text = c
			}
		}
		if !text.Valid() {
			return false
		}
		if lang := elementLanguage(kind == "script_element", attrs); lang != "" {
			out = append(out, regionOf(text, lang))
		}
		return false
	})
	return out
}

// elementLanguage is the language of a script (or style) element with the
// given attributes, "" for none shipped.
func elementLanguage(script bool, attrs map[string]string) string {
	if v, ok := attrs["lang"]; ok {
		if l, ok := grammars.Lookup(v); ok {
			return l.ID
		}
		return ""
	}
	typ := strings.ToLower(strings.TrimSpace(attrs["type"]))
	if !script {
		if typ == "" || typ == "text/css" {
			return "css"
		}
		return ""
	}
	switch typ {
	case "", "module", "text/javascript", "application/javascript", "text/ecmascript", "application/ecmascript", "text/jsx", "text/babel":
		return "javascript"
	case "text/typescript", "application/typescript":
		return "typescript"
	case "application/json", "importmap", "application/ld+json", "speculationrules":
		return "json"
	}
	return ""
}

// tagAttributes reads a start tag's attributes: name (lower case) to value.
func tagAttributes(tag engine.Node) map[string]string {
	attrs := map[string]string{}
	for a, ok := tag.FirstChild(); ok; a, ok = a.NextSibling() {
		if a.Kind() != "attribute" {
			continue
		}
		var name, value string
		for c, ok := a.FirstChild(); ok; c, ok = c.NextSibling() {
			switch c.Kind() {
			case "attribute_name":
				name = strings.ToLower(c.Text())
			case "attribute_value":
				value = c.Text()
			case "quoted_attribute_value":
				for v, ok := c.FirstChild(); ok; v, ok = v.NextSibling() {
					if v.Kind() == "attribute_value" {
						value = v.Text()
					}
				}
			}
		}
		if _, dup := attrs[name]; name != "" && !dup {
			attrs[name] = value
		}
	}
	return attrs
}

// fenceRegions lists markdown's fenced code blocks whose info string names a
// shipped language or alias (```go, ```py, ```ts), and that parsed without
// an error. Only fences at the top
// level (in the document and its sections) are regions: inside a block
// quote or a list item every line of the code carries the container's
// prefix ("> ", indentation), so the code is no contiguous text; such a
// fence is not searched.
func fenceRegions(t *engine.Tree) []region {
	var out []region
	t.Root().Walk(func(n engine.Node) bool {
		switch n.Kind() {
		case "document", "section":
			return true
		case "fenced_code_block":
			if n.HasError() {
				// an info string the grammar could not read: no language
				return false
			}
			lang, content := "", engine.Node{}
			for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
				switch c.Kind() {
				case "info_string":
					for i, ok := c.FirstChild(); ok; i, ok = i.NextSibling() {
						if i.Kind() == "language" {
							if l, ok := grammars.Lookup(i.Text()); ok {
								lang = l.ID
							}
							break
						}
					}
				case "code_fence_content":
					content = c
				}
			}
			if lang != "" && content.Valid() {
				out = append(out, regionOf(content, lang))
			}
		}
		return false
	})
	return out
}

// mayHoldTag says whether src has a <script (for a script's languages) or
// a <style (for CSS and SCSS) tag as the grammars read one: white space may
// follow the "<", and the name is compared upper-cased rune by rune, as
// their scanners' towupper does ("< STYLE", "<ſcript").
func mayHoldTag(src []byte, lang string) bool {
	tag := "SCRIPT"
	if lang == "css" || lang == "scss" {
		tag = "STYLE"
	}
	for i := 0; i < len(src); {
		k := bytes.IndexByte(src[i:], '<')
		if k < 0 {
			return false
		}
		i += k + 1
		j := i
		for j < len(src) {
			r, n := utf8.DecodeRune(src[j:])
			if !unicode.IsSpace(r) {
				break
			}
			j += n
		}
		if hasUpperPrefix(src[j:], tag) {
			return true
		}
	}
	return false
}

// hasUpperPrefix says whether b starts with runes whose upper case spells
// upper (ASCII).
func hasUpperPrefix(b []byte, upper string) bool {
	for _, want := range upper {
		if len(b) == 0 {
			return false
		}
		r, n := utf8.DecodeRune(b)
		if unicode.ToUpper(r) != want {
			return false
		}
		b = b[n:]
	}
	return true
}

// mayHoldFence says whether src has a code fence (``` or ~~~ at the start
// of a line, after any container prefix: spaces, "> ", list markers) whose
// info string holds a name of lang.
func mayHoldFence(src []byte, lang string) bool {
	seen := map[string]bool{}
	for i := 0; i < len(src); {
		k := bytes.IndexAny(src[i:], "`~")
		if k < 0 {
			return false
		}
		i += k
		c := src[i]
		j := i
		for j < len(src) && src[j] == c {
			j++
		}
		if j-i < 3 || !fenceStart(src, i) {
			i = j
			continue
		}
		// a language id or alias is letters, digits and _ + # -: every
		// such run of the rest of the line is looked up (the grammar may
		// find the language after punctuation, as in {go})
		eol := bytes.IndexByte(src[j:], '\n')
		if eol < 0 {
			eol = len(src) - j
		}
		for w := j; w < j+eol; {
			if !isNameByte(src[w]) {
				w++
				continue
			}
			start := w
			for w < j+eol && isNameByte(src[w]) {
				w++
			}
			if name := string(src[start:w]); !seen[name] {
				seen[name] = true
				if l, ok := grammars.Lookup(name); ok && l.ID == lang {
					return true
				}
			}
		}
		i = j + eol
	}
	return false
}

// isNameByte says whether c may be part of a language's id or alias.
func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '+' || c == '#' || c == '-'
}

// fenceStart says whether no letter precedes src[i] on its line: what may
// precede a fence is a container's prefix (spaces, "> ", list markers such
// as "-" or "1."), never text.
func fenceStart(src []byte, i int) bool {
	for k := i - 1; k >= 0 && src[k] != '\n' && src[k] != '\r'; k-- {
		if c := src[k] | 0x20; 'a' <= c && c <= 'z' {
			return false
		}
	}
	return true
}

// noRegions is the stat memo's key for a host file that holds no region of
// a language (as the memo's language, host ">" language).
var noRegions = store.Key{}

// RegionsCut is a host file that embeds more regions of the query's
// language than MaxRegionsPerFile: only the first were searched.
type RegionsCut struct {
	Path     string `json:"file"`
	Regions  int    `json:"regions"`
	Searched int    `json:"searched"`
}

// doHost searches the regions of lang in the host file j (of language
// j.host): the host is parsed (or taken from the store), its regions of
// lang listed, and each region that holds the pattern's tokens parsed as
// lang and matched, its matches placed in the host file.
func (s *Searcher) doHost(ctx context.Context, fsys *files, w *worker, lang string, j *fileJob, limit int) error {
	// a host file without a region of lang is no file of lang: it is not
	// counted, and while it is as it was it is not read again
	memoLang := j.host + ">" + lang
	// a project's injections find regions the grammar's own look and the
	// memo know nothing of
	custom := injectsLang(j.host, lang, w.injs)
	if custom {
		memoLang = ""
	}
	if key, ok := s.unchanged(fsys, j.path, memoLang); ok && key == noRegions && !custom {
		j.none = true
		return nil
	}
	at := s.now()
	src, fi, ok := s.readText(fsys, j.path, &j.unread)
	if !ok {
		if j.skip == "binary" {
			// a binary file embeds no code: it is no file of lang
			j.skip, j.none = "", true
		}
		return nil
	}
	if !mayHoldRegions(j.host, lang, w.injs, src) {
		s.cache.Remember(j.path, memoLang, fi, at, noRegions)
		j.none = true
		return nil
	}
	// the host's text holds every region's: a file without the tokens
	// has no region with them
	if !hasTokens(src, w.tokens) {
		j.prefilter = true
		return nil
	}
	hkey := store.KeyOf(s.partition, j.host, src)
	s.cache.Remember(j.path, j.host, fi, at, hkey)
	ht, hit, err := s.wholeTree(ctx, j.host, hkey, src)
	if err != nil {
		j.err = err
		return nil
	}
	rs, total, err := hostRegions(ctx, ht, j.host, lang, w.injs, w.runners)
	if err != nil {
		return fmt.Errorf("search: %s: %w", j.path, err)
	}
	if total == 0 {
		if !custom {
			s.cache.Remember(j.path, memoLang, fi, at, noRegions)
		}
		j.none = true
		return nil
	}
	j.regions, j.regionsTotal = len(rs), total
	hits, parsed := 0, 0
	for _, r := range rs {
		if err := ctx.Err(); err != nil {
			return err
		}
		rsrc, b := r.text(src)
		key, ok := s.regionNeeded(w.kinds, w.tokens, lang, rsrc)
		if !ok {
			continue
		}
		t, rhit, err := s.wholeTree(ctx, lang, key, rsrc)
		if err != nil {
			j.err = fmt.Errorf("the %s at line %d: %w", lang, r.line+1, err)
			return nil
		}
		parsed++
		if rhit {
			hits++
		}
		j.noteBroken(t, b)
		if err := s.collect(ctx, w, lang, j, t, b, limit); err != nil {
			return err
		}
	}
	if parsed == 0 {
		j.prefilter = true
		return nil
	}
	// regions found in a host tree with an error may be cut wrong
	j.noteBroken(ht, base{})
	j.parsed, j.cacheHit = true, hit && hits == parsed
	if w.rewrites() {
		j.src = src
	}
	return nil
}

// hostRegions lists the regions of lang in ht, the tree of a host file of
// hostLang: the grammar's own and those injs find, in source order, at
// most MaxRegionsPerFile, and how many there are. A search (doHost) and
// Needs both list them here, so they cannot disagree on a host's regions.
func hostRegions(ctx context.Context, ht *engine.Tree, hostLang, lang string, injs []Injection, runners map[*rule.Rule]*rule.Runner) ([]region, int, error) {
	rs, total := regionsOf(hostLang, ht, lang, MaxRegionsPerFile)
	if !injectsLang(hostLang, lang, injs) {
		return rs, total, nil
	}
	more, err := injectedRegions(ctx, ht, hostLang, injs, runners)
	if err != nil {
		return nil, 0, err
	}
	for _, r := range more {
		if r.lang == lang {
			if total++; len(rs) < MaxRegionsPerFile {
				rs = append(rs, r)
			}
		}
	}
	slices.SortStableFunc(rs, func(a, b region) int { return a.start - b.start })
	return rs, total, nil
}

// mayHoldRegions is a cheap look at a host file's bytes src: false when it
// can hold no region of lang, so that it is not parsed at all. A project's
// injections are rules on the host's tree: a file they may apply to is
// always parsed.
func mayHoldRegions(hostLang, lang string, injs []Injection, src []byte) bool {
	if injectsLang(hostLang, lang, injs) {
		return true
	}
	h := hosts[hostLang]
	return h.may == nil || h.may(src, lang)
}

// regionNeeded reports whether a region's text rsrc, in lang, must be
// parsed: it holds every token, and its kind set, as the store knows it,
// does not rule it out (the kind sets are keyed by the region's own
// language and content, never the host's); key is its tree's key.
func (s *Searcher) regionNeeded(kinds *store.KindFilter, tokens []string, lang string, rsrc []byte) (store.Key, bool) {
	if !hasTokens(rsrc, tokens) {
		return store.Key{}, false
	}
	key := store.KeyOf(s.partition, lang, rsrc)
	return key, !s.cache.RuledOut(kinds, key)
}

// embedded returns the languages with rules (keys of byLang) that files of
// hostLang may embed, sorted.
func embedded(hostLang string, byLang map[string][]*scanRule) []string {
	if _, ok := hosts[hostLang]; !ok {
		return nil
	}
	var out []string
	for l := range byLang {
		if embeds(hostLang, l) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// scanHost is scanFile for a host file: the rules of its own language (rs)
// on its tree, and those of each embedded language in inner on its
// regions of that language.
func (s *Searcher) scanHost(ctx context.Context, fsys *files, lang string, rs []*scanRule, inner []string, byLang map[string][]*scanRule, pick func([]*scanRule) []*scanRule, runners map[*rule.Rule]*rule.Runner, injs []Injection, j *scanJob, fix bool) error {
	at := s.now()
	src, fi, ok := s.readText(fsys, j.path, &j.unread)
	if !ok {
		if j.skip == "binary" && len(rs) == 0 {
			// a binary file embeds no code, and no rule is for its own
			// language: it is not counted
			j.skip = ""
		}
		return nil
	}
	key := store.KeyOf(s.partition, lang, src)
	s.cache.Remember(j.path, lang, fi, at, key)
	withTokens := func(srs []*scanRule, text []byte) []*scanRule {
		var out []*scanRule
		for _, sr := range srs {
			if hasTokens(text, sr.r.Tokens()) {
				out = append(out, sr)
			}
		}
		return out
	}
	live := func(srs []*scanRule, k store.Key) []*scanRule {
		var out []*scanRule
		for _, sr := range srs {
			if !s.cache.RuledOut(sr.kinds, k) {
				out = append(out, sr)
			}
		}
		return out
	}
	h := hosts[lang]
	custom, _ := injects(lang, injs, byLang, nil)
	var mayInner []string
	for _, l := range inner {
		// the look at the bytes knows the grammar's regions, not a
		// project's injections
		if custom || h.may == nil || h.may(src, l) {
			mayInner = append(mayInner, l)
		}
	}
	if len(rs) > 0 {
		j.searched = true
	}
	if rs = live(withTokens(rs, src), key); len(rs) == 0 && len(mayInner) == 0 {
		j.prefiltered = j.searched
		return nil
	}
	tree, _, err := s.wholeTree(ctx, lang, key, src)
	if err != nil {
		j.searched = true
		j.err = err
		return nil
	}
	if len(rs) > 0 {
		j.parsed = true
		if err := s.runRules(ctx, j, tree, lang, rs, runners, base{}, src, fix); err != nil {
			return err
		}
	}
	var extra []region
	if custom {
		if extra, err = injectedRegions(ctx, tree, lang, injs, runners); err != nil {
			return fmt.Errorf("search: %s: %w", j.path, err)
		}
	}
	for _, l := range mayInner {
		regions, total := regionsOf(lang, tree, l, MaxRegionsPerFile)
		for _, r := range extra {
			if r.lang == l {
				if total++; len(regions) < MaxRegionsPerFile {
					regions = append(regions, r)
				}
			}
		}
		if total == 0 {
			continue
		}
		j.searched = true
		if total > len(regions) {
			j.regionsCut = append(j.regionsCut, RegionsCut{Path: j.path, Regions: total, Searched: len(regions)})
		}
		lrs := withTokens(pick(byLang[l]), src)
		for _, r := range regions {
			if err := ctx.Err(); err != nil {
				return err
			}
			rsrc, b := r.text(src)
			rk := store.KeyOf(s.partition, l, rsrc)
			rrs := live(withTokens(lrs, rsrc), rk)
			if len(rrs) == 0 {
				continue
			}
			t, _, err := s.wholeTree(ctx, l, rk, rsrc)
			if err != nil {
				j.err = fmt.Errorf("the %s at line %d: %w", l, r.line+1, err)
				return nil
			}
			j.parsed = true
			if err := s.runRules(ctx, j, t, l, rrs, runners, b, src, fix); err != nil {
				return err
			}
		}
	}
	if j.searched && !j.parsed {
		j.prefiltered = true
	}
	return nil
}

// atFileStart is the base of a whole file's tree.
var atFileStart = base{}

// hostHint says, for a search whose language was inferred as a host
// language, how to search the code its files embed ("" for another
// language).
func hostHint(lang string) string {
	h, ok := hosts[lang]
	if !ok {
		return ""
	}
	l, _ := grammars.Lookup(lang)
	if h.embeds == nil {
		return fmt.Sprintf("searched as %s; to search the code in its fences pass their language (go, python, ...)", l.Name)
	}
	what := "scripts and styles"
	if lang == "svelte" || lang == "vue" {
		what = "scripts, styles and template expressions"
	}
	return fmt.Sprintf("searched as %s; to search the code in its %s pass their language (%s)", l.Name, what, strings.Join(h.embeds, ", "))
}

// Injection is one of a project's languageInjections (sgconfig.yml), as
// ast-grep reads them: in files of Host, every match of Rule is a region,
// the text its $CONTENT metavariable captured, written in the language
// its $LANG captured or, without one, in Static.
type Injection struct {
	Host string
	Rule *rule.Rule
	// Injected are the languages its regions may be in; Static is the
	// one language given as a name ("" when a list was given).
	Injected []string
	Static   string
}

// injectionKeys are the keys of a languageInjections entry.
var injectionKeys = []string{"hostLanguage", "injected", "rule", "constraints", "utils", "transform"}

// compileInjections compiles an sgconfig.yml's languageInjections (v, nil
// for none) read from source.
func compileInjections(ctx context.Context, p matcher.Parser, v any, source string) ([]Injection, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s: languageInjections must be a list of {hostLanguage, rule, injected}", rule.ErrInvalid, source)
	}
	var out []Injection
	for i, x := range list {
		at := fmt.Sprintf("%s: languageInjections[%d]", source, i)
		m, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: %s: want an object with hostLanguage, rule and injected", rule.ErrInvalid, at)
		}
		core := map[string]any{}
		for k, val := range m {
			if !slices.Contains(injectionKeys, k) {
				return nil, fmt.Errorf("%w: %s: %s: unknown key (%s)", rule.ErrInvalid, at, k, strings.Join(injectionKeys, ", "))
			}
			if k != "hostLanguage" && k != "injected" {
				core[k] = val
			}
		}
		hostName, _ := m["hostLanguage"].(string)
		if hostName == "" {
			return nil, fmt.Errorf("%w: %s: hostLanguage is missing: name the language of the files that hold the code (js, html, ...)", rule.ErrInvalid, at)
		}
		host, err := canonicalLang(hostName)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: hostLanguage: %v", rule.ErrInvalid, at, err)
		}
		inj := Injection{Host: host}
		switch t := m["injected"].(type) {
		case string:
			l, err := canonicalLang(t)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: injected: %v", rule.ErrInvalid, at, err)
			}
			inj.Injected, inj.Static = []string{l}, l
		case []any:
			for _, n := range t {
				name, _ := n.(string)
				l, err := canonicalLang(name)
				if err != nil {
					return nil, fmt.Errorf("%w: %s: injected: %v", rule.ErrInvalid, at, err)
				}
				inj.Injected = append(inj.Injected, l)
			}
		}
		if len(inj.Injected) == 0 {
			return nil, fmt.Errorf("%w: %s: injected is missing: give a language (css) or a list of them ([css, scss]) that $LANG names", rule.ErrInvalid, at)
		}
		if _, ok := core["rule"]; !ok {
			return nil, fmt.Errorf("%w: %s: rule is missing: a rule whose $CONTENT captures the embedded code", rule.ErrInvalid, at)
		}
		if inj.Rule, err = rule.Compile(ctx, p, host, core, rule.Options{Source: at}); err != nil {
			return nil, err
		}
		out = append(out, inj)
	}
	return out, nil
}

// injectedRegions lists the regions the injections of lang (the host
// file's language) find in t, with runners keeping each rule's runner.
func injectedRegions(ctx context.Context, t *engine.Tree, lang string, injs []Injection, runners map[*rule.Rule]*rule.Runner) ([]region, error) {
	var out []region
	for _, inj := range injs {
		if inj.Host != lang {
			continue
		}
		rn := runners[inj.Rule]
		if rn == nil {
			rn = rule.NewRunner(inj.Rule)
			runners[inj.Rule] = rn
		}
		ms, err := rn.Find(ctx, t)
		if err != nil {
			return nil, fmt.Errorf("languageInjections rule for %s: %w", lang, err)
		}
		for _, m := range ms {
			var content, name []engine.Node
			for _, c := range m.Captures {
				switch c.Name {
				case "CONTENT":
					content = c.Nodes
				case "LANG":
					name = c.Nodes
				}
			}
			if len(content) == 0 {
				continue
			}
			l := inj.Static
			if len(name) > 0 {
				if g, ok := grammars.Lookup(name[0].Text()); ok {
					l = g.ID
				} else {
					l = ""
				}
			}
			if l == "" {
				continue
			}
			r := regionOf(content[0], l)
			r.end = int(content[len(content)-1].EndByte())
			out = append(out, r)
		}
	}
	return out, nil
}

// injects reports whether some injection of hostLang has regions of a
// language with rules in byLang, and adds those languages to langs.
func injects(hostLang string, injs []Injection, byLang map[string][]*scanRule, langs []string) (bool, []string) {
	found := false
	for _, inj := range injs {
		if inj.Host != hostLang {
			continue
		}
		for _, l := range inj.Injected {
			if len(byLang[l]) > 0 {
				found = true
				if !slices.Contains(langs, l) {
					langs = append(langs, l)
				}
			}
		}
	}
	slices.Sort(langs)
	return found, langs
}

// injectionHosts returns the host languages of injections that may embed
// lang (other than lang itself).
func injectionHosts(injs []Injection, lang string) []string {
	var out []string
	for _, inj := range injs {
		if inj.Host != lang && slices.Contains(inj.Injected, lang) && !slices.Contains(out, inj.Host) {
			out = append(out, inj.Host)
		}
	}
	return out
}

// injectsLang reports whether an injection of files of host may embed lang.
func injectsLang(host, lang string, injs []Injection) bool {
	for _, inj := range injs {
		if inj.Host == host && slices.Contains(inj.Injected, lang) {
			return true
		}
	}
	return false
}

// LoadInjections reads only the languageInjections of the sgconfig.yml
// file config, for a search (as ast-grep run reads them); nil when it has
// none.
func LoadInjections(ctx context.Context, p matcher.Parser, config string) ([]Injection, error) {
	data, err := os.ReadFile(config)
	if err != nil {
		return nil, fmt.Errorf("search: project config: %w", err)
	}
	return ParseInjections(ctx, p, data, config)
}

// ParseInjections compiles the languageInjections of an sgconfig.yml's
// text data, named source in errors; nil when it has none.
func ParseInjections(ctx context.Context, p matcher.Parser, data []byte, config string) ([]Injection, error) {
	docs, err := ParseRuleDocs(data, config)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("%w: %s: want one document", rule.ErrInvalid, config)
	}
	return compileInjections(ctx, p, docs[0]["languageInjections"], config)
}
