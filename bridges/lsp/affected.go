package lsp

import "bytes"
import "context"
import "fmt"
import "io/fs"
import "path"
import "path/filepath"
import "regexp"
import "slices"
import "sort"
import "strings"
import "sync"

import "github.com/tetherhq/tether/grammars"

// Bounds of the search for the files a write can break.
const (
	// MaxAffected is how many other files AffectedFiles names to diagnose.
	MaxAffected = 20
	// AffectedScanBytes is the largest file the search reads: a larger
	// written file's declarations are not looked at, a larger other file
	// is not searched.
	AffectedScanBytes = 2 << 20
	// affectedScanEntries is how many directory entries the search walks.
	affectedScanEntries = 20000
	// maxChangedNames bounds the names searched for.
	maxChangedNames = 30
)

// WrittenFile is a file a write changed, as AffectedFiles and
// HiddenHeaderChange read it; its content now is read from the workspace.
type WrittenFile struct {
	// Path is workspace-relative, with forward slashes.
	Path string
	// Old is its content before the write, nil when the write created it
	// (or it was not kept). A moved file's is its content at MovedFrom.
	Old []byte
	// Moved is, for a file a write moves, the path at the move's other
	// end: where it was (after the move) or where it goes (before). What
	// imports it by either path can change.
	Moved string
	// Now is its content after the write, for a write not made yet (a
	// move's baseline is taken before it); nil: read from the workspace.
	Now []byte
}

// LineDiff returns the byte ranges of old and of now that a line diff
// between them replaces: a pure insertion or deletion is an empty range
// where it happens, and with old nil now is changed throughout.
type LineDiff func(old, now []byte) (oldR, nowR [][2]int)

// Affected is what a write can have broken elsewhere: the other files of
// the written files' servers that mention a declaration the write
// changed, or include a written C or C++ header.
type Affected struct {
	// Names are the changed declarations' names, sorted.
	Names []string
	// Headers are the base names of the written C and C++ headers: the
	// files including one are affected too.
	Headers []string
	// Files are the files to diagnose, at most MaxAffected, sorted.
	Files []string
	// More are the files that mention them and were not named in Files
	// (over MaxAffected).
	More []string
	// Incomplete says why the search itself stopped short.
	Incomplete string
	// NoParser says the search did not run: a written file has a server
	// but no parser was given to tell its changed declarations with.
	NoParser bool
}

// AffectedFiles finds the files other than written that mention, as a
// whole word, the name of a declaration (function, method, class, type,
// top-level variable) the write changed, or that include a written C or
// C++ header. Those are the files whose diagnostics a changed signature
// can change: callers and importers. Only the files of the written files'
// servers are searched. Files beside a written one, or naming its module,
// come first, then those that mention more of the names; a build's output
// comes last.
func (s *Supervisor) AffectedFiles(ctx context.Context, parse Parser, diff LineDiff, written []WrittenFile) Affected {
	a, exts := s.changedDeclarations(ctx, parse, diff, written)
	if a.NoParser || len(a.Names) == 0 && len(a.Headers) == 0 || len(exts) == 0 {
		return a
	}
	hits, incomplete := s.mentions(ctx, &a, exts, written)
	a.Incomplete = incomplete
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].near != hits[j].near {
			return hits[i].near > hits[j].near
		}
		if hits[i].n != hits[j].n {
			return hits[i].n > hits[j].n
		}
		return hits[i].path < hits[j].path
	})
	for i, h := range hits {
		if i < MaxAffected {
			a.Files = append(a.Files, h.path)
		} else {
			a.More = append(a.More, h.path)
		}
	}
	sort.Strings(a.Files)
	sort.Strings(a.More)
	return a
}

// changedDeclarations returns the names of the declarations the written
// files changed and the written headers (in a), and the extensions of
// the files their servers read.
func (s *Supervisor) changedDeclarations(ctx context.Context, parse Parser, diff LineDiff, written []WrittenFile) (a Affected, exts []string) {
	names := map[string]bool{}
	for _, w := range written {
		served := s.Extensions(w.Path)
		if len(served) == 0 {
			continue // no server reads it: nothing else can break
		}
		if parse == nil {
			// Without a parser the changed declarations cannot be told:
			// say so rather than report the other files as fine.
			a.NoParser = true
			return a, nil
		}
		now := w.Now
		if now == nil {
			var err error
			if now, err = s.root.ReadFile(w.Path); err != nil {
				continue
			}
		}
		if len(now) > AffectedScanBytes {
			continue
		}
		for _, n := range changedNames(ctx, parse, w.Path, w.Old, now, diff) {
			names[n] = true
		}
		if w.Moved != "" {
			// Its importers name it by its module or file name, the old
			// one or the new.
			for _, p := range []string{w.Path, w.Moved} {
				base := path.Base(p)
				names[strings.TrimSuffix(base, path.Ext(base))] = true
			}
		}
		for _, e := range served {
			if !slices.Contains(exts, e) {
				exts = append(exts, e)
			}
		}
	}
	if slices.Contains(exts, ".py") && !slices.Contains(exts, ".ipynb") {
		// A notebook's code cells import Python modules as a .py file
		// does; its caller checks them as Python (DiagnoseText).
		exts = append(exts, ".ipynb")
	}
	for n := range names {
		a.Names = append(a.Names, n)
	}
	sort.Strings(a.Names)
	if len(a.Names) > maxChangedNames {
		a.Names = a.Names[:maxChangedNames]
	}
	// A written C or C++ header is compiled as part of each file that
	// includes it, where code its include guards hide from a check of the
	// header alone (an implementation section) is compiled: its includers
	// are affected whatever names the write changed.
	for _, w := range written {
		if isCHeader(w.Path) && len(s.Extensions(w.Path)) > 0 && !slices.Contains(a.Headers, filepath.Base(w.Path)) {
			a.Headers = append(a.Headers, filepath.Base(w.Path))
		}
	}
	return a, exts
}

// mention is a file that mentions what a write changed: how many of the
// names (and includes), and how near the written files it is.
type mention struct {
	path string
	n    int
	near int // 2: names a written module, 1: beside a written file, -4: a build's output; they add
}

// mentions walks the workspace for the files with one of exts, other than
// the written ones, that mention a.Names as whole words or include
// a.Headers; incomplete says why the walk stopped short.
func (s *Supervisor) mentions(ctx context.Context, a *Affected, exts []string, written []WrittenFile) (hits []mention, incomplete string) {
	words := make([][]byte, len(a.Names))
	for i, n := range a.Names {
		words[i] = []byte(n)
	}
	// The written files' directories and module names: a file beside a
	// written one, or naming its module (an import of it), is likelier a
	// caller than one that only shares a word with it (a test's helper of
	// the same name), and is diagnosed first when there are more than
	// MaxAffected.
	var dirs, stems []string
	skip := map[string]bool{}
	for _, w := range written {
		skip[w.Path] = true
		dirs = append(dirs, filepath.ToSlash(filepath.Dir(w.Path)))
		for _, p := range []string{w.Path, w.Moved} {
			if stem := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)); p != "" && identRe().MatchString(stem) {
				stems = append(stems, stem)
			}
		}
	}
	root, seen := s.root.Dir(), 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if ctx.Err() != nil {
			incomplete = "the search was cancelled"
			return filepath.SkipAll
		}
		if seen++; seen > affectedScanEntries {
			incomplete = fmt.Sprintf("only the first %d entries of the workspace were searched", affectedScanEntries)
			return filepath.SkipAll
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && skippedDir(name) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !slices.Contains(exts, strings.ToLower(filepath.Ext(name))) {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if skip[rel] {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.Size() > AffectedScanBytes {
			return nil
		}
		src, err := s.root.ReadFile(rel)
		if err != nil {
			return nil
		}
		n := 0
		for i, w := range words {
			if bytes.Contains(src, w) && countWord(src, a.Names[i]) > 0 {
				n++
			}
		}
		includes := len(a.Headers) > 0 && includesAny(src, a.Headers)
		if includes {
			n++
		}
		if n > 0 {
			h := mention{path: rel, n: n}
			if includes || slices.ContainsFunc(stems, func(st string) bool { return countWord(src, st) > 0 }) {
				h.near += 2
			}
			if slices.Contains(dirs, filepath.ToSlash(filepath.Dir(rel))) {
				h.near++
			}
			if generatedPath(rel) {
				h.near -= 4 // a build's output: checked last
			}
			hits = append(hits, h)
		}
		return nil
	})
	return hits, incomplete
}

// skippedDir reports whether the workspace scans skip a directory named
// name: hidden ones, and those of installed packages and caches.
func skippedDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "__pycache__" || name == "venv"
}

// generatedPath reports whether rel looks like a build's output rather
// than a source: under build/, dist/ or out/, or a TypeScript declaration
// file (.d.ts, .d.cts, .d.mts), which a build emits.
func generatedPath(rel string) bool {
	for _, d := range strings.Split(filepath.ToSlash(filepath.Dir(rel)), "/") {
		if d == "build" || d == "dist" || d == "out" {
			return true
		}
	}
	base := filepath.Base(rel)
	return strings.HasSuffix(base, ".d.ts") || strings.HasSuffix(base, ".d.cts") || strings.HasSuffix(base, ".d.mts")
}

// isCHeader reports whether path names a C or C++ header.
func isCHeader(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".h", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp", ".tcc":
		return true
	}
	return false
}

// includeRe matches a preprocessor include and captures the path it names.
var includeRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]`) })

// includesAny reports whether src includes a file whose base name is one
// of headers (the search path is the compile command's: a base name that
// matches is taken as the header, erring towards checking one more file).
func includesAny(src []byte, headers []string) bool {
	if !bytes.Contains(src, []byte("include")) {
		return false
	}
	for _, m := range includeRe().FindAllSubmatch(src, -1) {
		if slices.Contains(headers, filepath.Base(string(m[1]))) {
			return true
		}
	}
	return false
}

// identRe is what a declaration's name must look like to be searched for.
var identRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`) })

// changedNames returns the names of the declarations of file (at module,
// package or class level: not the locals of a function) whose text differs
// between old and now, on either side: a signature, a body a caller's
// inferred types depend on, a declaration added or removed.
func changedNames(ctx context.Context, parse Parser, file string, old, now []byte, diff LineDiff) []string {
	lang, ok := grammars.ForPath(file)
	if !ok {
		return nil
	}
	oldR, nowR := diff(old, now)
	var out []string
	var nowTree *Syntax
	add := func(src []byte, ranges [][2]int, isNow bool) {
		if len(src) == 0 {
			return
		}
		tree, err := parse(ctx, lang, src)
		if err != nil {
			return
		}
		if isNow {
			nowTree = tree
		}
		if len(ranges) == 0 {
			return
		}
		names := declarationNames(tree, ranges)
		// An import added or removed changes the declarations that use
		// what it imports (a class whose base it named), and what the
		// module itself offers (Python's from core import * hands its
		// imports on).
		if imported := importedNames(tree, ranges); len(imported) > 0 {
			names = append(names, imported...)
			names = append(names, declarationsUsing(tree, imported, false)...)
		}
		for _, n := range names {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	add(old, oldR, false)
	add(now, nowR, true)
	// A value built from a changed declaration changes with it (the
	// instance a module exports of a changed class): once more, within
	// the file. Functions that merely call it keep their signatures.
	if nowTree != nil && len(out) > 0 && len(out) < maxChangedNames {
		for _, n := range declarationsUsing(nowTree, out, true) {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// importedNames returns the names that the import statements of tree
// overlapping ranges bind (import { A as B } binds B; Go's import of
// "a/b" binds b).
func importedNames(tree *Syntax, ranges [][2]int) []string {
	var out []string
	for i := range tree.Nodes {
		n := tree.node(i)
		if !n.IsNamed() || !strings.Contains(n.Kind(), "import") || !overlaps(n.StartByte(), n.EndByte(), ranges) {
			continue
		}
		if p, ok := n.Parent(); ok && strings.Contains(p.Kind(), "import") {
			continue // its import statement is looked at whole
		}
		for j := n.Index() + 1; j <= n.Index()+n.DescendantCount(); j++ { // its descendants, in order
			d := tree.node(j)
			text := d.Text()
			switch k := d.Kind(); {
			case strings.HasSuffix(k, "identifier") && k != "property_identifier":
			case k == "interpreted_string_literal" && tree.Language == "go":
				text = path.Base(strings.Trim(text, `"`))
			default:
				continue
			}
			if identRe().MatchString(text) && !slices.Contains(out, text) {
				out = append(out, text)
			}
		}
	}
	return out
}

// declarationsUsing returns the names of tree's declarations (not inside a
// function) whose text mentions one of names as a word, other than those
// names' own; with values, only those that are not functions or methods.
func declarationsUsing(tree *Syntax, names []string, values bool) []string {
	var out []string
	src := tree.Source
	all := declarationNames(tree, [][2]int{{0, len(src)}})
	for i := 0; i < len(tree.Nodes) && len(out) < maxChangedNames; i++ {
		n := tree.node(i)
		if !n.IsNamed() || n.ChildCount() == 0 {
			continue
		}
		k := n.Kind()
		if strings.Contains(k, "parameter") || !slices.ContainsFunc(declKinds, func(d string) bool { return strings.Contains(k, d) }) || insideFunction(n) {
			continue
		}
		if values && (strings.Contains(k, "function") || strings.Contains(k, "method")) {
			continue
		}
		name := declName(n)
		if name == "" || slices.Contains(names, name) || slices.Contains(out, name) || !slices.Contains(all, name) {
			continue
		}
		body := n.Bytes()
		if slices.ContainsFunc(names, func(w string) bool { return countWord(body, w) > 0 }) {
			out = append(out, name)
		}
	}
	return out
}

// declKinds are parts of the node kinds of declarations across tree-sitter
// grammars (function_definition, method_declaration, class_specifier,
// type_spec, variable_declarator, interface_declaration, ...).
var declKinds = []string{"definition", "declaration", "declarator", "signature", "method", "function", "class", "interface", "enum", "struct", "type_alias", "type_spec", "module"}

// declarationNames returns the names of tree's declarations that overlap
// ranges and are not inside a function or method (a local).
func declarationNames(tree *Syntax, ranges [][2]int) []string {
	var out []string
	for i := range tree.Nodes {
		n := tree.node(i)
		if !n.IsNamed() || n.ChildCount() == 0 {
			continue
		}
		k := n.Kind()
		if strings.Contains(k, "parameter") || !slices.ContainsFunc(declKinds, func(d string) bool { return strings.Contains(k, d) }) {
			continue
		}
		if !overlaps(n.StartByte(), n.EndByte(), ranges) || insideFunction(n) {
			continue
		}
		if name := declName(n); name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// overlaps reports whether [from, to) meets one of ranges (an empty range
// meets the node it lies in).
func overlaps(from, to int, ranges [][2]int) bool {
	for _, r := range ranges {
		if r[0] < to && (r[1] > from || r[0] == r[1] && r[0] >= from) {
			return true
		}
	}
	return false
}

// insideFunction reports whether n lies in a function's or method's body.
func insideFunction(n node) bool {
	for p, ok := n.Parent(); ok; p, ok = p.Parent() {
		k := p.Kind()
		if strings.Contains(k, "function") || strings.Contains(k, "method") || strings.Contains(k, "lambda") {
			return true
		}
	}
	return false
}

// declName is the name a declaration node declares: its name field, or
// the innermost of a C declarator chain, however short (def f(x) has
// callers too); "" when neither is an identifier, or for a dunder method
// (__init__: never called by its name).
func declName(n node) string {
	for range 6 {
		if c, ok := n.ChildByField("name"); ok {
			n = c
			break
		}
		c, ok := n.ChildByField("declarator")
		if !ok {
			break
		}
		n = c
	}
	name := n.Text()
	if i := strings.LastIndexAny(name, ".:"); i >= 0 {
		name = name[i+1:]
	}
	if name == "" || !identRe().MatchString(name) || strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__") {
		return ""
	}
	return name
}
