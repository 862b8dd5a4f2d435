package search

import "context"
import "errors"
import "fmt"
import "path/filepath"
import "strconv"
import "strings"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/search/store"

// Declaration is one definition of a file, as the map's outline table
// (outlineKinds) knows it, with the extent a symbol edit replaces.
type Declaration struct {
	Name string `json:"name"`
	// Path is the names of the declarations that hold it, then Name
	// (a Go method is held by its receiver's type).
	Path []string `json:"path"`
	Kind string   `json:"kind"`
	// Line is the 1-based line of the name.
	Line int `json:"line"`
	// Start and End bound the declaration's text: its doc comment and
	// decorators or attributes, through the end of its last line (with
	// the newline) when nothing else shares its lines.
	Start int `json:"start"`
	End   int `json:"end"`
	// BodyStart and BodyEnd bound the inside of its body (between the
	// braces; a Python block's statements); BodyStart is -1 when it has
	// none.
	BodyStart int `json:"body_start"`
	BodyEnd   int `json:"body_end"`
	// Indent is the indentation of the declaration's first line.
	Indent string `json:"indent"`
	// Parent is the index of the declaration that holds it, -1 for none.
	Parent int `json:"parent"`

	// NameStart is the byte offset of its name.
	NameStart int `json:"name_start"`
}

// PathString is the declaration's name path, "Outer/Inner/method".
func (d Declaration) PathString() string { return strings.Join(d.Path, "/") }

// FileDecls is a file's declarations with the source they were found in.
type FileDecls struct {
	// Path is the file as it was asked for.
	Path     string
	Language string
	Src      []byte
	Decls    []Declaration
	// Errors is set when the file's tree has syntax errors.
	Errors bool
}

// ErrNoOutline is wrapped when a file's language has no table of
// definitions: its symbols cannot be found from its tree.
var ErrNoOutline = errors.New("search: no definition table for this language")

// Declarations parses the file at path (relative to the searcher's root,
// through it) and lists its declarations in source order.
func (s *Searcher) Declarations(ctx context.Context, path string) (*FileDecls, error) {
	fsys, err := s.openRoot()
	if err != nil {
		return nil, err
	}
	defer fsys.close()
	abs := s.abs(path)
	var u unread
	src, _, ok := s.readText(fsys, abs, &u)
	switch {
	case ok:
	case u.err != nil:
		return nil, fmt.Errorf("search: cannot read %s: %w", path, u.err)
	default:
		return nil, fmt.Errorf("search: %s is %s: it has no symbols to edit", path, u.skip)
	}
	return s.DeclarationsOf(ctx, path, src)
}

// DeclarationsOf lists the declarations of src, parsed as the language
// of path.
func (s *Searcher) DeclarationsOf(ctx context.Context, path string, src []byte) (*FileDecls, error) {
	lang := langForPath(path)
	if lang == nil {
		return nil, fmt.Errorf("%w: %s is of no known language", ErrNoOutline, path)
	}
	kinds := outlineKinds[lang.ID]
	if kinds == nil {
		return nil, fmt.Errorf("%w: %s (%s)", ErrNoOutline, path, lang.ID)
	}
	tree, _, err := s.wholeTree(ctx, lang, store.KeyOf(s.partition, lang, src), src)
	if err != nil {
		return nil, fmt.Errorf("search: cannot parse %s: %w", path, err)
	}
	f := &FileDecls{Path: path, Language: lang.ID, Src: src, Errors: tree.HasError()}
	f.Decls = declsOf(ctx, tree, kinds)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("search: cancelled: %w", err)
	}
	return f, nil
}

// openRoot opens the searcher's root for one search (nil without one).
func (s *Searcher) openRoot() (*files, error) {
	if s.rootErr != nil {
		return nil, s.rootErr
	}
	return openFiles(s.root)
}

// abs is path joined to the searcher's root when it is relative.
func (s *Searcher) abs(path string) string {
	if s.root == nil || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(s.root.Dir(), path)
}

// wrapperKinds hold one declaration with what belongs to it: a Python
// decorated definition, an export, a Go type or const declaration of one
// spec, a JavaScript declaration of one variable, a Python assignment's
// statement. The declaration's extent is the wrapper's.
var wrapperKinds = map[string]bool{
	"decorated_definition": true, "export_statement": true, "ambient_declaration": true,
	"type_declaration": true, "const_declaration": true,
	"lexical_declaration": true, "variable_declaration": true, "expression_statement": true,
}

// leadKinds are the nodes before a declaration that belong to it (with
// comments that start a line and touch it).
var leadKinds = map[string]bool{"decorator": true, "attribute_item": true, "annotation": true}

// maxDeclDepth bounds how deep declarations nest (and the walk recurses).
const maxDeclDepth = 64

// declsOf lists a tree's declarations in source order, each with the path
// of the declarations that hold it.
func declsOf(ctx context.Context, t *engine.Tree, kinds map[string]defKind) []Declaration {
	var out []Declaration
	src := t.Source()
	seen := 0
	var visit func(n engine.Node, parent int, path []string, depth int)
	visit = func(n engine.Node, parent int, path []string, depth int) {
		if depth > maxDeclDepth {
			return
		}
		for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
			if seen++; seen&1023 == 0 && ctx.Err() != nil {
				return
			}
			if !c.IsNamed() {
				continue
			}
			d, known := kinds[c.Kind()]
			if !known {
				visit(c, parent, append(path, scopeOf(c)...), depth+1)
				continue
			}
			at := parent
			inner := path
			if d.role != "" && d.holds(c) {
				if name, ok := defNameNode(c); ok && (!d.constant || capitals().MatchString(name.Text())) {
					decl := declaration(src, c, name)
					decl.Parent, decl.Kind = parent, d.role
					decl.Path = append(append(append(append([]string(nil), path...), receiverOf(c)...), qualifierOf(c, name)...), decl.Name)
					out = append(out, decl)
					at, inner = len(out)-1, decl.Path
				}
			}
			if !d.opaque {
				visit(c, at, inner, depth+1)
			}
		}
	}
	visit(t.Root(), -1, nil, 0)
	return out
}

// receiverOf is the type a Go method's receiver names, as the path that
// holds the method (none for anything else).
func receiverOf(n engine.Node) []string {
	if n.Kind() != "method_declaration" {
		return nil
	}
	r, ok := n.ChildByField("receiver")
	if !ok {
		return nil
	}
	var name string
	r.Walk(func(c engine.Node) bool {
		if name == "" && c.Kind() == "type_identifier" {
			name = c.Text()
		}
		return name == ""
	})
	if name == "" {
		return nil
	}
	return []string{name}
}

// scopeOf is the path a node that is no declaration adds for what it
// holds: a Rust impl block's type, a Rust module's name, a C++
// namespace's names (a::b is two; an anonymous one adds none).
func scopeOf(n engine.Node) []string {
	switch n.Kind() {
	case "impl_item":
		t, ok := n.ChildByField("type")
		if !ok {
			return nil
		}
		if base, ok := t.ChildByField("type"); ok { // Foo<T>
			t = base
		}
		return []string{t.Text()}
	case "mod_item", "namespace_definition":
		name, ok := n.ChildByField("name")
		if !ok {
			return nil
		}
		return splitScope(name.Text())
	}
	return nil
}

// qualifierOf is the scope a C++ definition's qualified name spells
// before its name (Foo for Foo::bar, ns/Foo for ns::Foo::bar); none for
// an unqualified one.
func qualifierOf(decl, name engine.Node) []string {
	q, ok := name.Parent()
	if !ok || q.Kind() != "qualified_identifier" || q.StartByte() < decl.StartByte() {
		return nil
	}
	// the outermost qualified_identifier spells the whole qualifier
	for {
		p, ok := q.Parent()
		if !ok || p.Kind() != "qualified_identifier" {
			break
		}
		q = p
	}
	return splitScope(string(q.Bytes()[:name.StartByte()-q.StartByte()]))
}

// splitScope splits a C++ or Rust scope ("a::b::", "outer") into its
// names, template arguments dropped ("Foo<T>::" is Foo).
func splitScope(s string) []string {
	var out []string
	for _, part := range strings.Split(s, "::") {
		if i := strings.IndexByte(part, '<'); i >= 0 {
			part = part[:i]
		}
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// declaration is n's extent (its wrappers, leading comments and
// decorators, its whole lines) and body.
func declaration(src []byte, n, name engine.Node) Declaration {
	r := name.Range()
	d := Declaration{Name: name.Text(), Line: int(r.StartPoint.Row) + 1, BodyStart: -1, NameStart: int(name.StartByte())}
	if b, ok := n.ChildByField("body"); ok {
		d.BodyStart, d.BodyEnd = bodyInside(src, b)
		if src[b.StartByte()] != '{' {
			// a block's leading comments are the parser's siblings of it
			if c, ok := b.Parent(); ok {
				kids := c.Children()
				for i := len(kids) - 1; i > 0; i-- {
					if kids[i].StartByte() == b.StartByte() {
						for j := i - 1; j >= 0 && isComment(kids[j]) && blankTo(src, int(kids[j].StartByte())); j-- {
							d.BodyStart = int(kids[j].StartByte())
						}
						break
					}
				}
			}
		}
	}
	ext := n
	for p, ok := ext.Parent(); ok && wrapperKinds[p.Kind()] && soleContent(p); p, ok = ext.Parent() {
		ext = p
	}
	start, end := int(ext.StartByte()), contentEnd(ext)
	if p, ok := ext.Parent(); ok {
		kids := p.Children()
		i := 0
		for i < len(kids) && kids[i].StartByte() != ext.StartByte() {
			i++
		}
		for j := i - 1; j >= 0; j-- {
			k := kids[j]
			gap := src[k.EndByte():start]
			lead := leadKinds[k.Kind()] && strings.TrimSpace(string(gap)) == ""
			note := isComment(k) && strings.Count(string(gap), "\n") <= 1 && strings.TrimSpace(string(gap)) == "" &&
				lineStart(src, int(k.StartByte())) == int(k.StartByte())-len(leadingSpace(src, int(k.StartByte())))
			if !lead && !note {
				break
			}
			start = int(k.StartByte())
		}
		// a C struct's semicolon, then a comment after it on its last
		// line, are its own
		if i+1 < len(kids) && !kids[i+1].IsNamed() && kids[i+1].Text() == ";" && int(kids[i+1].StartByte()) == end {
			end = int(kids[i+1].EndByte())
			i++
		}
		if i+1 < len(kids) && isComment(kids[i+1]) && !strings.Contains(string(src[end:kids[i+1].StartByte()]), "\n") {
			end = int(kids[i+1].EndByte())
		}
	}
	d.Indent = leadingSpace(src, start)
	if ls := lineStart(src, start); ls == start-len(d.Indent) {
		start = ls
	}
	if rest := lineEnd(src, end); strings.TrimSpace(string(src[end:rest])) == "" {
		end = rest
		if end < len(src) {
			end++ // the newline
		}
	}
	d.Start, d.End = start, end
	return d
}

// soleContent reports whether p holds one node besides comments,
// decorators and punctuation: a wrapper of one declaration.
func soleContent(p engine.Node) bool {
	n := 0
	for c, ok := p.FirstChild(); ok; c, ok = c.NextSibling() {
		if c.IsNamed() && !isComment(c) && !leadKinds[c.Kind()] {
			n++
		}
	}
	return n == 1
}

// contentEnd is where n's last token that is no comment ends: a comment
// the parser put at the end of a block belongs to what follows it.
func contentEnd(n engine.Node) int {
	for depth := 0; depth < maxDeclDepth; depth++ {
		kids := n.Children()
		j := len(kids) - 1
		for j >= 0 && isComment(kids[j]) {
			j--
		}
		if j < 0 {
			break
		}
		if j == len(kids)-1 {
			return int(n.EndByte())
		}
		n = kids[j]
	}
	return int(n.EndByte())
}

func isComment(n engine.Node) bool { return strings.Contains(n.Kind(), "comment") }

// bodyInside is the inside of a body: between its braces, or a block's
// statements.
func bodyInside(src []byte, b engine.Node) (int, int) {
	s, e := int(b.StartByte()), int(b.EndByte())
	if e-s >= 2 && (src[s] == '{' && src[e-1] == '}' || src[s] == '(' && src[e-1] == ')') {
		return s + 1, e - 1
	}
	return s, contentEnd(b)
}

// lineStart is the offset of the start of the line that holds at.
func lineStart(src []byte, at int) int {
	for at > 0 && src[at-1] != '\n' {
		at--
	}
	return at
}

// lineEnd is the offset of the newline that ends the line holding at (or
// the end of src).
func lineEnd(src []byte, at int) int {
	for at < len(src) && src[at] != '\n' {
		at++
	}
	return at
}

// leadingSpace is the whitespace that starts the line holding at, up to at.
func leadingSpace(src []byte, at int) string {
	ls := lineStart(src, at)
	i := ls
	for i < at && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return string(src[ls:i])
}

// Bad name paths, wrapped by FileDecls.Find.
var (
	ErrNoSymbol        = errors.New("search: no such symbol")
	ErrAmbiguousSymbol = errors.New("search: the name path names several symbols")
)

// maxCandidates bounds the candidates an error lists.
const maxCandidates = 20

// SplitNamePath splits a name path ("Outer/Inner/method", "pkg.Func",
// "ns::f", "f#2") into its names and its 1-based overload index (0 for
// none).
func SplitNamePath(p string) ([]string, int, error) {
	index := 0
	if i := strings.LastIndexByte(p, '#'); i >= 0 {
		n, err := strconv.Atoi(p[i+1:])
		if err != nil || n < 1 {
			return nil, 0, fmt.Errorf("search: name path %q: after # comes the overload's number, 1 for the first", p)
		}
		p, index = p[:i], n
	}
	p = strings.NewReplacer("::", "/", ".", "/", "(*", "", "(", "", ")", "").Replace(dropTemplateArgs(p))
	var names []string
	for _, n := range strings.Split(p, "/") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, 0, fmt.Errorf("search: empty name path: name the symbol, e.g. Class/method")
	}
	return names, index, nil
}

// dropTemplateArgs drops the template arguments of a C++ or Rust name
// path (Box<std::string>::get is Box::get); an operator's < and > stay.
func dropTemplateArgs(p string) string {
	if !strings.Contains(p, "<") {
		return p
	}
	var b strings.Builder
	depth := 0
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '<' && !strings.HasSuffix(p[:i], "operator") && !strings.HasSuffix(p[:i], "<"):
			depth++
		case c == '>' && depth > 0:
			depth--
		case depth == 0:
			b.WriteByte(c)
		}
	}
	if depth > 0 { // unbalanced: not template arguments
		return p
	}
	return b.String()
}

// MatchNamePath picks among paths those namePath names: the ones it
// spells from the top, else those it ends (a package or module prefix the
// paths lack is dropped: "pkg.Func" names Func); its #N keeps the N-th.
// It returns the indices of paths matched, or an error wrapping
// ErrNoSymbol or ErrAmbiguousSymbol that lists candidates with at(i).
func MatchNamePath(namePath string, paths [][]string, at func(i int) string) ([]int, error) {
	names, index, err := SplitNamePath(namePath)
	if err != nil {
		return nil, err
	}
	var exact, suffix []int
	for i, p := range paths {
		switch {
		case equalNames(p, names):
			exact = append(exact, i)
		case len(p) < len(names) && equalNames(p, names[len(names)-len(p):]),
			len(p) > len(names) && equalNames(p[len(p)-len(names):], names):
			suffix = append(suffix, i)
		}
	}
	found := exact
	if len(found) == 0 {
		found = suffix
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("%w: %q; %s", ErrNoSymbol, namePath, candidates(paths, names[len(names)-1], at))
	}
	if index > 0 {
		if index > len(found) {
			return nil, fmt.Errorf("%w: %q: there are %d of that name: %s", ErrNoSymbol, namePath, len(found), listAt(found, at))
		}
		return found[index-1 : index], nil
	}
	return found, nil
}

func equalNames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// candidates lists the symbols named last (else every top-level one)
// for an error.
func candidates(paths [][]string, last string, at func(int) string) string {
	var same, top []int
	for i, p := range paths {
		if strings.EqualFold(p[len(p)-1], last) {
			same = append(same, i)
		}
		if len(p) == 1 {
			top = append(top, i)
		}
	}
	if len(same) > 0 {
		return "symbols of that name: " + listAt(same, at)
	}
	if len(top) == 0 {
		return "the file has no symbols"
	}
	return "the file's top-level symbols: " + listAt(top, at)
}

// listAt lists the symbols at indices with at, at most maxCandidates.
func listAt(idx []int, at func(int) string) string {
	var b strings.Builder
	for k, i := range idx {
		if k == maxCandidates {
			fmt.Fprintf(&b, " and %d more", len(idx)-k)
			break
		}
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(at(i))
	}
	return b.String()
}

// Find returns the declaration namePath names (MatchNamePath), or an error
// saying which it could be.
func (f *FileDecls) Find(namePath string) (Declaration, error) {
	paths := make([][]string, len(f.Decls))
	for i, d := range f.Decls {
		paths[i] = d.Path
	}
	at := func(i int) string { return fmt.Sprintf("%s (line %d)", f.Decls[i].PathString(), f.Decls[i].Line) }
	idx, err := MatchNamePath(namePath, paths, at)
	if err != nil {
		return Declaration{}, err
	}
	if len(idx) > 1 {
		return Declaration{}, fmt.Errorf("%w %q: %s; add #N for the N-th (e.g. %s#2), or the path of the one meant", ErrAmbiguousSymbol, namePath, listAt(idx, at), namePath)
	}
	return f.Decls[idx[0]], nil
}

// At returns the declaration named name on line (1-based), as a language
// server places a symbol.
func (f *FileDecls) At(line int, name string) (Declaration, bool) {
	for _, d := range f.Decls {
		if d.Line == line && d.Name == name {
			return d, true
		}
	}
	return Declaration{}, false
}
