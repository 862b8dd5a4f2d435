package lsp

import "bytes"
import "context"
import "fmt"
import "io/fs"
import "path/filepath"
import "slices"
import "strings"
import "unicode/utf8"

import "github.com/tetherhq/tether/grammars"

// Bounds of a same-name scan (what a rename left behind, what references
// did not confirm).
const (
	// sameNameScanFiles is how many directory entries a scan looks at.
	sameNameScanFiles = 20000
	// sameNameParsed is how many files holding the name a scan parses.
	sameNameParsed = 2000
	// sameNameScanBytes skips larger files.
	sameNameScanBytes = 2 << 20
)

// DocExts are the non-code files a same-name scan counts mentions in.
var DocExts = []string{".md", ".markdown", ".rst", ".txt", ".adoc"}

// SameName is one identifier spelled as the name a scan looks for.
type SameName struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	// Col is the 1-based column in characters, as lsp.Location's.
	Col int `json:"col"`
	// Decl is the kind of declaration the identifier is the name of
	// ("method_declaration", "function_definition"), "" for a mention.
	Decl string `json:"decl,omitempty"`
	// Sig is a declared function's parameter count and result ("2|error"),
	// "" when it declares no function.
	Sig string `json:"-"`
}

// At is where the identifier is: "path:line".
func (s SameName) At() string { return fmt.Sprintf("%s:%d", s.Path, s.Line) }

// SameNameScan is what a scan found besides the identifiers it visited.
type SameNameScan struct {
	// Docs counts the whole-word mentions per non-code file, in DocNames'
	// order (when the scan counted them).
	Docs     map[string]int
	DocNames []string
	// Incomplete says why the scan did not look at everything.
	Incomplete []string
}

// ScanSameName walks the workspace's files with one of exts for identifiers
// spelled name, parsed with parse (tether's tree-sitter parser: strings
// and comments do not count), and calls visit for each in path order. With
// docs it also counts the non-code files (DocExts) mentioning name as a
// word. The walk is
// bounded (sameNameScanFiles entries, sameNameParsed parsed files,
// sameNameScanBytes per file) and stops when ctx is done; the result says
// when it did not look at everything. A file in over (workspace-relative)
// is read from there instead of the disk: a staged edit's new content.
func (s *Supervisor) ScanSameName(ctx context.Context, parse Parser, name string, exts []string, docs bool, over map[string][]byte, visit func(SameName)) *SameNameScan {
	out := &SameNameScan{Docs: map[string]int{}}
	if name == "" || parse == nil {
		out.Incomplete = append(out.Incomplete, "no parser to look with")
		return out
	}
	seen, parsed, failed := 0, 0, 0
	cut, capped := false, false
	word := []byte(name)
	root := s.root.Dir()
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || ctx.Err() != nil {
			return nil
		}
		if seen++; seen > sameNameScanFiles {
			cut = true
			return filepath.SkipAll
		}
		base := d.Name()
		if d.IsDir() {
			if p != root && skippedDir(base) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		ext := strings.ToLower(filepath.Ext(base))
		code := slices.Contains(exts, ext)
		if !code && !(docs && slices.Contains(DocExts, ext)) {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.Size() > sameNameScanBytes {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		src, err := s.root.ReadFile(rel)
		if o, ok := over[rel]; ok {
			src, err = o, nil
		}
		if err != nil || !bytes.Contains(src, word) {
			return nil
		}
		if !code {
			if n := countWord(src, name); n > 0 {
				out.Docs[rel] = n
				out.DocNames = append(out.DocNames, rel)
			}
			return nil
		}
		if parsed++; parsed > sameNameParsed {
			capped = true
			return filepath.SkipAll
		}
		ids, err := Identifiers(ctx, parse, rel, src, name)
		if err != nil {
			failed++
			return nil
		}
		for _, id := range ids {
			visit(id)
		}
		return nil
	})
	if cut {
		out.Incomplete = append(out.Incomplete, fmt.Sprintf("only the first %d entries of the workspace were looked at", sameNameScanFiles))
	}
	if capped {
		out.Incomplete = append(out.Incomplete, fmt.Sprintf("only the first %d files holding %s were parsed", sameNameParsed, name))
	}
	if failed > 0 {
		out.Incomplete = append(out.Incomplete, fmt.Sprintf("%d file(s) could not be parsed", failed))
	}
	if ctx.Err() != nil {
		out.Incomplete = append(out.Incomplete, "the search was cancelled")
	}
	return out
}

// Identifiers returns the identifier nodes of src, the file rel, spelled
// name (identifier, field_identifier, type_identifier, ...; PHP's name and
// Ruby's constant), parsed with parse: never text inside a string or a
// comment. Each says whether it is the name of a declaration.
func Identifiers(ctx context.Context, parse Parser, rel string, src []byte, name string) ([]SameName, error) {
	lang, ok := grammars.ForPath(rel)
	if !ok {
		return nil, fmt.Errorf("lsp: no grammar for %s", rel)
	}
	tree, err := parse(ctx, lang, src)
	if err != nil {
		return nil, err
	}
	var out []SameName
	for i := range tree.Nodes {
		n := tree.node(i)
		if n.ChildCount() != 0 || !n.IsNamed() {
			continue
		}
		k := n.Kind()
		if !strings.Contains(k, "identifier") && k != "name" && k != "constant" {
			continue
		}
		if n.Text() != name {
			continue
		}
		row, column := n.start()
		lineStart := n.StartByte() - column
		id := SameName{Path: rel, Line: row + 1,
			Col: utf8.RuneCount(src[max(lineStart, 0):n.StartByte()]) + 1}
		id.Decl, id.Sig = declaration(n)
		out = append(out, id)
	}
	return out, nil
}

// declKindSuffixes end the kinds of the nodes whose name field declares
// something, across the grammars: Go's method_declaration and method_elem,
// Python's function_definition, TypeScript's method_signature, Rust's
// function_item, C's function_declarator.
var declKindSuffixes = []string{"_declaration", "_definition", "_spec", "_signature", "_elem", "_item", "_declarator"}

// declaration returns the kind of declaration n is the name of ("" for a
// mention) and, for a function or method, its signature: the parameter
// count and the result as written, without spaces.
func declaration(n node) (kind, sig string) {
	f := n.Field()
	if f != "name" && f != "declarator" {
		return "", ""
	}
	p, ok := n.Parent()
	if !ok {
		return "", ""
	}
	pk := p.Kind()
	decl := false
	for _, s := range declKindSuffixes {
		decl = decl || strings.HasSuffix(pk, s)
	}
	if !decl {
		return "", ""
	}
	params, ok := p.ChildByField("parameters")
	if !ok {
		return pk, ""
	}
	count := 0
	for _, c := range params.NamedChildren() {
		if !strings.Contains(c.Kind(), "comment") {
			count++
		}
	}
	result := ""
	for _, field := range []string{"result", "return_type", "type"} {
		if r, ok := p.ChildByField(field); ok {
			result = strings.Join(strings.Fields(r.Text()), "")
			break
		}
	}
	return pk, fmt.Sprintf("%d|%s", count, result)
}

// countWord counts the occurrences of name in src that are whole words.
func countWord(src []byte, name string) int {
	n := 0
	for i := 0; ; {
		j := bytes.Index(src[i:], []byte(name))
		if j < 0 {
			return n
		}
		at, end := i+j, i+j+len(name)
		if (at == 0 || !isWordByte(src[at-1])) && (end == len(src) || !isWordByte(src[end])) {
			n++
		}
		i = end
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
