package matcher

import "bytes"
import "context"
import "errors"
import "fmt"
import "regexp"
import "sort"
import "strings"
import "unicode"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"

// Parser parses source with a language's grammar. *engine.Engine and
// *engine.Parser implement it.
type Parser interface {
	Parse(ctx context.Context, lang *grammars.Language, src []byte) (*engine.Tree, error)
}

// ErrUnparseable is wrapped by the error Compile returns for a pattern that no
// context of the language's ladder accepts.
var ErrUnparseable = errors.New("matcher: pattern does not parse")

// errNoLanguage is what a compile given no language returns.
var errNoLanguage = errors.New("matcher: no language for the pattern: pass a language id such as go, python or dart")

// pnode is one node of a compiled pattern.
type pnode struct {
	kind  string
	named bool
	extra bool // a comment: only a pattern that is one comment has such a root
	leaf  bool
	text  string // a leaf's text, compared with the candidate's
	meta  metaVar
	kids  []*pnode
	// alts are other kinds the node matches (anyClause)
	alts []string
}

// Pattern is a compiled structural pattern for one language. It is immutable
// and safe for concurrent use.
type Pattern struct {
	lang        *grammars.Language
	spec        *langSpec
	src         string
	contextName string
	// fault is the first ERROR or MISSING node of the tree the reading came
	// from: "" for every pattern Compile returns (checkClean)
	fault string
	// nodes are the reading's nodes in its tree, the pattern starting at
	// byte base of it (Debug)
	nodes []engine.Node
	base  uint32
	roots []*pnode
	// alts are the pattern's other clean readings (union.go), matched too
	alts   []*Pattern
	tokens []string
	vars   []string
	// varMulti: each bound name, and whether it is a $$$ capture
	varMulti map[string]bool
	// strict is how closely a match must follow the pattern
	strict Strictness
	// mended: the reading came from the pattern read again without its
	// faults (mend)
	mended bool
}

// WithinDeclaration reports whether every match of p lies inside one
// top-level declaration, so that a file may be parsed and matched one
// declaration at a time: each reading is one node that is neither a
// metavariable nor a whole file.
func (p *Pattern) WithinDeclaration() bool {
	for _, a := range p.alts {
		if !a.WithinDeclaration() {
			return false
		}
	}
	if len(p.roots) != 1 || p.roots[0].meta.kind != metaNone {
		return false
	}
	switch p.roots[0].kind {
	case "source_file", "program", "module", "translation_unit":
		return false
	}
	return true
}

// Language returns the language id the pattern was compiled for.
func (p *Pattern) Language() string { return p.lang.ID }

// Source returns the pattern text as given.
func (p *Pattern) Source() string { return p.src }

// Context returns the name of the ladder rung that accepted the pattern
// ("statement", "expression", "member", ...).
func (p *Pattern) Context() string { return p.contextName }

// Tokens returns the literal tokens every match must contain, longest first.
// Files lacking any of them are skipped before parsing.
func (p *Pattern) Tokens() []string { return append([]string(nil), p.tokens...) }

// Vars returns the names of the pattern's binding metavariables, sorted.
func (p *Pattern) Vars() []string { return append([]string(nil), p.vars...) }

// String returns the compiled pattern as an S-expression, metavariables shown
// as written ($X, $$$ARGS), for debugging and golden files.
func (p *Pattern) String() string {
	var b strings.Builder
	for i, r := range p.roots {
		if i > 0 {
			b.WriteByte(' ')
		}
		r.sexp(&b)
	}
	return b.String()
}

func (n *pnode) sexp(b *strings.Builder) {
	switch n.meta.kind {
	case metaSingle, metaAny, metaMulti:
		b.WriteString(strings.Repeat("$", int(n.meta.kind)))
		if n.meta.name == "" && n.meta.kind != metaMulti {
			b.WriteString("_")
		}
		b.WriteString(n.meta.name)
		return
	}
	if n.leaf {
		if n.named {
			fmt.Fprintf(b, "(%s %q)", n.kind, n.text)
		} else {
			fmt.Fprintf(b, "%q", n.text)
		}
		return
	}
	b.WriteString("(")
	b.WriteString(n.kind)
	for _, a := range n.alts {
		b.WriteString("|" + a)
	}
	for _, k := range n.kids {
		b.WriteByte(' ')
		k.sexp(b)
	}
	b.WriteString(")")
}

// Compile parses pattern for lang with the language's context ladder and
// returns the reading the ladder ranks first.
//
// It works in two steps. readings parses the pattern in each rung of the
// ladder, as written and (for a "$$$" before a "}") with the ";" the
// grammar needs, and once with a ";" added in the first rung; each parse is
// made the first time the ranking asks for it. choose then ranks those
// candidate readings by explicit rules (see choose). Past them come the
// readings that give a metavariable the code its grammar needs there
// (compilePlaceholders) and, last, one that reads a metavariable as the
// string it stands for. A pattern none of them accepts is ErrUnparseable.
func Compile(ctx context.Context, p Parser, lang *grammars.Language, pattern string) (*Pattern, error) {
	pat, err := compile(ctx, p, lang, pattern)
	if err != nil {
		return nil, err
	}
	if err := pat.checkClean(); err != nil {
		return nil, err
	}
	return pat, nil
}

func compile(ctx context.Context, p Parser, lang *grammars.Language, pattern string) (*Pattern, error) {
	src := strings.TrimSpace(pattern)
	if src == "" {
		return nil, errors.New("matcher: empty pattern: pass the code shape to find, e.g. fmt.Errorf($$$ARGS)")
	}
	if lang == nil {
		return nil, errNoLanguage
	}
	if standaloneMulti(src) {
		return nil, fmt.Errorf("%w: %q alone stands for any run of code: use $X for one node, or write the code around the $$$ (f($$$ARGS), { $$$BODY })", ErrUnparseable, src)
	}
	rs := newReadings(ctx, p, lang, src)
	pat, err := rs.choose()
	if err != nil {
		return nil, fmt.Errorf("matcher: cannot parse the pattern as %s: %w", lang.ID, err)
	}
	if pat != nil {
		if pat, err = rs.withOthers(pat); err != nil {
			return nil, fmt.Errorf("matcher: cannot parse the pattern as %s: %w", lang.ID, err)
		}
		return pat, nil
	}
	// Then: metavariables standing for statements or a loop header, given
	// the code the grammar needs there ("for ($$$) { $$$ }" everywhere,
	// "while ($C) $S" in C#).
	pat, err = rs.compilePlaceholders()
	if err != nil {
		return nil, fmt.Errorf("matcher: cannot parse the pattern as %s: %w", lang.ID, err)
	}
	if pat != nil {
		return pat, nil
	}
	// Then: metavariables standing where PHP wants a $variable.
	if pat, err = rs.compileVariables(); err != nil {
		return nil, fmt.Errorf("matcher: cannot parse the pattern as %s: %w", lang.ID, err)
	}
	if pat != nil {
		return pat, nil
	}
	// Last: one metavariable standing where the grammar wants a string
	// literal (JavaScript's "import { $$$N } from $M") is read as the string
	// it stands for, the way ast-grep searches such a pattern anyway.
	if pat, err = rs.quotedReading(); err != nil {
		return nil, fmt.Errorf("matcher: cannot parse the pattern as %s: %w", lang.ID, err)
	}
	if pat != nil {
		return pat, nil
	}
	spec := rs.spec
	hint := ""
	if m := lowerMeta.FindString(src); m != "" && spec.expando != '$' {
		hint = fmt.Sprintf("; metavariable names are upper case ($X, $$$ARGS): %s is not one", m)
	}
	broke := ""
	if name, at := rs.breakAt(); at != "" {
		broke = "; as " + article(name) + " (the reading that gets furthest) it breaks here: " + at
	}
	return nil, fmt.Errorf("%w as %s for %s: %q%s; check its syntax there (a complete expression, statement, member or declaration of the language, with metavariables like $X, $$$ARGS), or write the code around it as the pattern and pass selector (--selector KIND on the command line) naming the kind of the node to match%s",
		ErrUnparseable, contextNames(spec.ladder), lang.ID, src, broke, hint)
}

// article is name after "a" or "an" ("an expression", "a statement").
func article(name string) string {
	if name != "" && strings.ContainsRune("aeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// anyClause lets Go's "case $X:" match every clause with one thing after its
// case, as ast-grep's reading of it does: a type switch's case and a
// select's send or receive clause as well as an expression switch's case.
func anyClause(pat *Pattern) {
	if pat.lang.ID != "go" || pat.contextName != "case clause" || len(pat.roots) != 1 {
		return
	}
	r := pat.roots[0]
	if r.kind == "expression_case" && len(r.kids) == 3 && r.kids[1].meta.kind == metaSingle {
		r.alts = []string{"type_case", "communication_case"}
	}
}

// lowerMeta finds a "$" before a lower-case name: not a metavariable.
var lowerMeta = regexp.MustCompile(`\$+[a-z][A-Za-z0-9_]*`)

// multiBeforeBrace finds a multi-metavariable (after substitution) right
// before a closing brace.
var multiBeforeBrace = regexp.MustCompile(`((?:\$\$\$|µµµ)[A-Z0-9_]*)(\s*\})`)

// quoteMetas writes each metavariable that is not already inside quotes as a
// string ($V becomes "$V"), for grammars without identifiers.
func quoteMetas(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); {
		if p[i] == '$' && (i == 0 || p[i-1] != '"') {
			if _, _, _, n := metaAt(p, i); n > 0 && (i+n >= len(p) || p[i+n] != '"') {
				b.WriteString(`"` + p[i:i+n] + `"`)
				i += n
				continue
			}
		}
		b.WriteByte(p[i])
		i++
	}
	return b.String()
}

// quoteMetaAt writes the k-th single metavariable of p that is not inside
// quotes as a string ($M becomes "$M"); ok is false when p has no k-th one.
func quoteMetaAt(p string, k int) (string, bool) {
	seen := 0
	for i := 0; i < len(p); i++ {
		if p[i] != '$' || i > 0 && (p[i-1] == '"' || p[i-1] == '$') {
			continue
		}
		kind, _, _, n := metaAt(p, i)
		if n == 0 {
			continue
		}
		if kind != metaSingle || i+n < len(p) && p[i+n] == '"' {
			i += n - 1
			continue
		}
		if seen == k {
			return p[:i] + `"` + p[i:i+n] + `"` + p[i+n:], true
		}
		seen++
		i += n - 1
	}
	return "", false
}

// tolerable reports whether every fault in t is a metavariable: an ERROR node
// whose text is one, or a MISSING token whose parent's text is one.
func tolerable(t *engine.Tree, expando rune) bool {
	ok := true
	t.Root().Walk(func(n engine.Node) bool {
		if !ok {
			return false
		}
		switch {
		case n.IsError():
			if _, m := parseMeta(strings.TrimSpace(n.Text()), expando); !m {
				ok = false
			}
			return false
		case n.IsMissing():
			par, has := n.Parent()
			if !has {
				ok = false
			} else if _, m := parseMeta(strings.TrimSpace(par.Text()), expando); !m {
				ok = false
			}
		}
		return true
	})
	return ok
}

// hasErrorNode reports whether t has an ERROR node (MISSING tokens aside).
func hasErrorNode(t *engine.Tree) bool {
	found := false
	t.Root().Walk(func(n engine.Node) bool {
		if found || !n.HasError() {
			return false
		}
		if n.IsError() {
			found = true
		}
		return !found
	})
	return found
}

// demotesKeyword reports whether the reading b (its snippet starting at
// bBase) has a named leaf where reading a (snippet at aBase) has a keyword
// token of the same text: b took a keyword for an identifier. A named leaf
// whose kind is a keyword's (Swift's catch_keyword, default_keyword) is a
// keyword token.
func demotesKeyword(a []engine.Node, aBase uint32, b []engine.Node, bBase uint32) bool {
	keywords := map[uint32]string{}
	for _, n := range a {
		n.Walk(func(k engine.Node) bool {
			if k.ChildCount() == 0 && (!k.IsNamed() || isKeywordKind(k.Kind())) && !k.IsMissing() && isWord(k.Text()) {
				keywords[k.StartByte()-aBase] = k.Text()
			}
			return true
		})
	}
	if len(keywords) == 0 {
		return false
	}
	demoted := false
	for _, n := range b {
		n.Walk(func(k engine.Node) bool {
			if k.ChildCount() == 0 && k.IsNamed() && !isKeywordKind(k.Kind()) && keywords[k.StartByte()-bBase] == k.Text() {
				demoted = true
			}
			return !demoted
		})
	}
	return demoted
}

// isKeywordKind reports whether a named node's kind is a keyword's: a
// grammar that names its keyword tokens (Swift's catch_keyword).
func isKeywordKind(kind string) bool {
	return strings.HasSuffix(kind, "_keyword")
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r != '_' && !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// extract returns the node that spans exactly [start, end) of the scaffold,
// descending through single named children of the same extent (a statement
// wrapping an expression becomes the expression), or the run of sibling nodes
// that together span it. It returns nil when the range is no node boundary.
func extract(t *engine.Tree, start, end uint32) []engine.Node {
	n := t.Root()
	for {
		if n.StartByte() == start && n.EndByte() == end {
			break
		}
		var next engine.Node
		found := false
		for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
			if c.StartByte() <= start && c.EndByte() >= end && !(c.StartByte() == c.EndByte()) {
				next, found = c, true
				break
			}
		}
		if !found && n.StartByte() == start && ownsTrailingSpace(t, n, end) {
			// a node whose only text past the range is a whitespace token
			// of its own (the newline ending a C preprocessor directive)
			break
		}
		if !found {
			// a run of siblings spanning exactly the range
			var run []engine.Node
			for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
				if c.IsExtra() || c.StartByte() == c.EndByte() {
					continue
				}
				if c.StartByte() >= start && c.EndByte() <= end {
					run = append(run, c)
				}
			}
			if len(run) == 0 || run[0].StartByte() != start || run[len(run)-1].EndByte() != end {
				return nil
			}
			return run
		}
		n = next
	}
	for {
		var only, extra engine.Node
		count, extras := 0, 0
		for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
			if c.IsMissing() || c.StartByte() == c.EndByte() {
				continue
			}
			if c.IsExtra() {
				extra = c
				extras++
				continue
			}
			only = c
			count++
		}
		if count == 0 && extras == 1 && !extra.IsError() && extra.StartByte() == n.StartByte() && extra.EndByte() == n.EndByte() {
			// a pattern that is only a comment stands for comments
			return []engine.Node{extra}
		}
		if count > 1 && n.Index() == t.Root().Index() {
			// several statements read bare: the file node is not the
			// pattern, its statements are (a sequence, matched anywhere)
			var run []engine.Node
			for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
				if !c.IsExtra() && !c.IsMissing() && c.StartByte() != c.EndByte() {
					run = append(run, c)
				}
			}
			return run
		}
		if count != 1 || !only.IsNamed() || only.StartByte() != n.StartByte() || only.EndByte() != n.EndByte() {
			return []engine.Node{n}
		}
		n = only
	}
}

// ownsTrailingSpace reports whether n's only text past end is whitespace
// that belongs to no child (a C "#include" ends with a hidden newline token),
// so n is the node a pattern written without that whitespace stands for. A
// list of named nodes (Go's statement_list with its newline) is not such a
// node: a pattern of several statements stays a sequence.
func ownsTrailingSpace(t *engine.Tree, n engine.Node, end uint32) bool {
	if n.EndByte() <= end || len(bytes.TrimSpace(t.Source()[end:n.EndByte()])) != 0 {
		return false
	}
	anonymous := false
	for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
		if c.EndByte() > end {
			return false
		}
		if !c.IsNamed() && !c.IsExtra() {
			anonymous = true
		}
	}
	return anonymous
}

// convert turns a pattern tree node into a pnode.
func convert(n engine.Node, expando rune, quoted bool) *pnode {
	return converter{expando: expando, quoted: quoted}.node(n)
}

// converter turns pattern tree nodes into pnodes; the nodes inside a
// placeholder become its metavariable.
type converter struct {
	expando rune
	quoted  bool
	ph      []placeholder
	// omit and metas are a mended reading's: the tokens it wrote in, left
	// out, and the "$$$"s it took out, put back (done: those put back)
	omit  []span
	metas []metaPoint
	done  map[uint32]bool
}

// within returns the placeholder n lies in, if any.
func (cv converter) within(n engine.Node) (placeholder, bool) {
	for _, ph := range cv.ph {
		if n.StartByte() >= ph.start && n.EndByte() <= ph.end && n.EndByte() > n.StartByte() {
			return ph, true
		}
	}
	return placeholder{}, false
}

func (cv converter) node(n engine.Node) *pnode {
	expando, quoted := cv.expando, cv.quoted
	if ph, ok := cv.within(n); ok {
		return &pnode{meta: ph.meta, named: true}
	}
	text := n.Text()
	if mv, ok := parseMeta(text, expando); ok {
		return &pnode{meta: mv, named: true}
	}
	// a leaf some grammars lex with the spaces around it (Vue's
	// interpolation text: "{{ $X }}") is a metavariable when they are all
	// it holds besides one
	if n.ChildCount() == 0 && strings.TrimSpace(text) != text {
		if mv, ok := parseMeta(strings.TrimSpace(text), expando); ok {
			return &pnode{meta: mv, named: true}
		}
	}
	if quoted && len(text) > 2 && text[0] == '"' && text[len(text)-1] == '"' {
		if mv, ok := parseMeta(text[1:len(text)-1], expando); ok {
			return &pnode{meta: mv, named: true}
		}
	}
	// a node whose text is a metavariable once the tokens mend wrote in are
	// left out is the metavariable, as in ast-grep, where the MISSING token
	// is empty: C's "$X }" is any statement, not an expression statement
	if mv, ok := cv.metaWithoutOmitted(n); ok {
		return &pnode{meta: mv, named: true}
	}
	// "$$$;" as a statement stands for the statements themselves
	if t, cut := strings.CutSuffix(text, ";"); cut && n.ChildCount() == 2 {
		if mv, ok := parseMeta(strings.TrimSpace(t), expando); ok && mv.kind == metaMulti {
			return &pnode{meta: mv, named: true}
		}
	}
	p := &pnode{kind: n.Kind(), named: n.IsNamed(), extra: n.IsExtra()}
	var last *placeholder
	for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
		// comments are extras; error recovery may also mark an ERROR node
		// extra, and a tolerated one is a metavariable
		if c.IsExtra() && !c.IsError() || c.IsMissing() || cv.omitted(c) {
			continue
		}
		cv.place(p, n, c.StartByte())
		if ph, in := cv.within(c); in {
			// the nodes of one placeholder are its one metavariable
			if last == nil || *last != ph {
				p.kids = append(p.kids, &pnode{meta: ph.meta, named: true})
				last = &ph
			}
			continue
		}
		last = nil
		p.kids = append(p.kids, cv.node(c))
	}
	if n.ChildCount() > 0 {
		cv.place(p, n, n.EndByte())
	}
	if n.ChildCount() == 0 {
		p.leaf = true
		p.text = unsubstitute(text, expando)
	}
	return p
}

// unsubstitute undoes substitute in literal text (a '$X' inside a string of the
// pattern must stay '$X').
func unsubstitute(text string, expando rune) string {
	if expando == '$' || !strings.ContainsRune(text, expando) {
		return text
	}
	ex := string(expando)
	var b strings.Builder
	for i := 0; i < len(text); {
		if strings.HasPrefix(text[i:], ex) {
			j := i
			d := 0
			for strings.HasPrefix(text[j:], ex) && d < 3 {
				j += len(ex)
				d++
			}
			if j < len(text) && isNameStart(text[j]) || d == 3 {
				b.WriteString(strings.Repeat("$", d))
				i = j
				continue
			}
		}
		b.WriteByte(text[i])
		i++
	}
	return b.String()
}

// collect derives the prefilter tokens and the metavariable names.
func (p *Pattern) collect() {
	toks := map[string]bool{}
	vars := map[string]bool{}
	p.varMulti = map[string]bool{}
	var walk func(n *pnode)
	walk = func(n *pnode) {
		if n.meta.kind != metaNone {
			if n.meta.name != "" {
				vars[n.meta.name] = true
				p.varMulti[n.meta.name] = n.meta.kind == metaMulti
			}
			return
		}
		if n.leaf {
			t := strings.TrimSpace(n.text)
			if !n.named {
				// a token matches by kind: its text may vary in spacing
				// ("# define") and, for PHP's keywords, in case; only its
				// longest run of word characters is required
				t = longestWord(t)
				if p.lang.ID == "php" {
					t = ""
				}
			}
			if t != "" && strings.IndexFunc(t, func(r rune) bool {
				return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
			}) >= 0 {
				toks[t] = true
			}
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	for _, r := range p.roots {
		walk(r)
	}
	for t := range toks {
		p.tokens = append(p.tokens, t)
	}
	sort.Slice(p.tokens, func(i, j int) bool {
		if len(p.tokens[i]) != len(p.tokens[j]) {
			return len(p.tokens[i]) > len(p.tokens[j])
		}
		return p.tokens[i] < p.tokens[j]
	})
	for v := range vars {
		p.vars = append(p.vars, v)
	}
	sort.Strings(p.vars)
}

// longestWord returns the longest run of letters, digits and '_' in s.
func longestWord(s string) string {
	best := ""
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len(w) > len(best) {
			best = w
		}
	}
	return best
}
