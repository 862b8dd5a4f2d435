package tools

import "context"
import "errors"
import "fmt"
import "path/filepath"
import "slices"
import "strings"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/search"

// symbolRefsShown is how many remaining references a refused delete lists.
const symbolRefsShown = 20

// symbolEditArgs are symbol_edit's arguments.
type symbolEditArgs struct {
	File   string `json:"file" jsonschema:"workspace-relative file that declares the symbol" bounds:"minLength=1"`
	Symbol string `json:"symbol" jsonschema:"the symbol's name path: Class/method, Outer/Inner/method, Type/Method or pkg.Func (a prefix the file's symbols lack is dropped), or its name alone when one symbol has it; name#2 is the second of several of that path (overloads)" bounds:"minLength=1"`
	Action string `json:"action" jsonschema:"replace the declaration (or its body, with body); insert_before or insert_after it new code; delete it" bounds:"enum=replace|insert_before|insert_after|delete"`
	Text   string `json:"text,omitempty" jsonschema:"replace and inserts: the new code in any indentation (it is indented as the symbol is); a whole replace includes the doc comment and decorators, which the old ones give way to"`
	Body   bool   `json:"body,omitempty" jsonschema:"replace: only the inside of the body (between its braces; a Python block), keeping the signature, doc comment and decorators"`
	Force  bool   `json:"force,omitempty" jsonschema:"delete: delete even while references to the symbol remain"`
	serverTimeout
}

// symbolEditTool is symbol_edit, bound to s.
func (s *structural) symbolEditTool() Tool {
	return Typed(Tool{
		Name: "symbol_edit",
		Tier: TierWrite,
		Description: "Edit a declaration by its name path (Class/method, Outer/Inner/method, pkg.Func; name#2 for the second overload): " +
			"replace it whole (its doc comment and decorators or attributes included) or only its body (body: true), insert_before it " +
			"(before its doc comment and decorators) or insert_after it, or delete it. The symbol is found through the language server's " +
			"document symbols when one runs for the file, else through the tree-sitter grammar, and the result says which. New text is " +
			"indented as the symbol and separated by blank lines as the file does. delete is refused, with the references listed, while " +
			"any remain (the server's references, else same-named identifiers in the workspace's parsed trees) unless force: true. " +
			"Nothing is written: the change is staged and the result names an edit_id and shows the diff; resolve accept applies it " +
			"(rejected whole if the file changed since) and reports new diagnostics. An unknown or ambiguous name path lists the candidates with their lines.",
	}, s.symbolEdit)
}

// symbolEdit stages one symbol edit for resolve.
func (s *structural) symbolEdit(ctx context.Context, call *Call, a symbolEditArgs) (*Result, *StagedDiff, error) {
	if a.Action != search.SymbolReplace && a.Body {
		return nil, nil, fmt.Errorf("tools: symbol_edit: body goes with action \"replace\", not %q", a.Action)
	}
	if a.Action != search.SymbolDelete && a.Force {
		return nil, nil, fmt.Errorf("tools: symbol_edit: force goes with action \"delete\", not %q", a.Action)
	}
	if a.Action == search.SymbolDelete && a.Text != "" {
		return nil, nil, errors.New("tools: symbol_edit: delete takes no text (to put other code in its place, use replace)")
	}
	if a.Action != search.SymbolDelete && strings.TrimSpace(a.Text) == "" {
		return nil, nil, fmt.Errorf("tools: symbol_edit: %s needs text: the new code", a.Action)
	}
	ctx, cancel := withTimeout(ctx, a.Timeout)
	defer cancel()
	file := filepath.ToSlash(filepath.Clean(a.File))
	fd, err := s.search.Declarations(ctx, file)
	if err != nil {
		if errors.Is(err, search.ErrNoOutline) {
			return nil, nil, fmt.Errorf("tools: symbol_edit: %w: edit %s with ast_edit or the harness's edit instead", err, file)
		}
		return nil, nil, s.relErr(err)
	}
	d, via, err := s.locateSymbol(ctx, fd, a.Symbol)
	if err != nil {
		return nil, nil, timeoutErr(ctx, a.Timeout, err)
	}
	var note string
	if a.Action == search.SymbolDelete {
		refs, err := s.symbolRefs(ctx, fd, d, via)
		if err != nil {
			return nil, nil, timeoutErr(ctx, a.Timeout, err)
		}
		if refs.count > 0 && !a.Force {
			return nil, nil, fmt.Errorf("tools: symbol_edit: delete of %s refused: %s; remove or change them first, or pass force: true to delete it anyway", d.PathString(), refs)
		}
		if refs.count > 0 {
			note = fmt.Sprintf("note: deleted although %s\n", refs)
		} else {
			note = fmt.Sprintf("no references remain (%s)\n", refs.how)
		}
	}
	out, err := fd.EditSymbol(d, search.SymbolEdit{Action: a.Action, Text: a.Text, Body: a.Body})
	if err != nil {
		return nil, nil, fmt.Errorf("tools: symbol_edit: %w", err)
	}
	if string(out) == string(fd.Src) {
		return Text(fmt.Sprintf("nothing staged: the %s leaves %s as it is", a.Action, file)), nil, nil
	}
	if after, err := s.search.DeclarationsOf(ctx, file, out); err == nil && after.Errors && !fd.Errors {
		return nil, nil, fmt.Errorf("tools: symbol_edit: nothing staged: the %s of %s would leave %s with syntax errors; check that text is whole, balanced code of the file's language", a.Action, d.PathString(), file)
	}
	plan := &search.Plan{Source: "symbol_edit", Replacements: 1, Edits: 1, Changes: []search.FileChange{{
		Path: filepath.Join(s.run.root.Dir(), filepath.FromSlash(file)), Display: file, Old: fd.Src, New: out, Replacements: 1,
	}}}
	id, dropped := s.stage.StageDropping(plan)
	var b strings.Builder
	from, to := d.Start, d.End
	if a.Body {
		from, to = d.BodyStart, d.BodyEnd
	}
	fmt.Fprintf(&b, "(proposed) %s of %s (lines %d-%d of %s; found through %s); nothing written yet: call resolve with edit_id %q and action \"accept\" to apply or \"discard\" to drop it\n",
		what(a), d.PathString(), lineOf(fd.Src, from), lineOf(fd.Src, max(from, to-1)), file, via.how, id)
	if fd.Errors {
		fmt.Fprintf(&b, "note: %s had syntax errors before the edit: check the diff\n", file)
	}
	b.WriteString(note)
	b.WriteString(droppedNote(dropped))
	return stagedResult(b.String(), id, plan, "", 0)
}

// what names a symbol edit's action for its result.
func what(a symbolEditArgs) string {
	if a.Body {
		return "replace of the body"
	}
	return strings.ReplaceAll(a.Action, "_", " ")
}

// lineOf is the 1-based line of byte offset at in src.
func lineOf(src []byte, at int) int {
	return strings.Count(string(src[:min(at, len(src))]), "\n") + 1
}

// symbolSource says how a symbol was found: through a language server's
// document symbols (server names it) or the tree-sitter grammar.
type symbolSource struct {
	server string
	how    string
}

// locateSymbol finds the declaration namePath names in fd: through the
// language server's document symbols when one runs for the file (the
// declaration's extent still comes from the tree), else through the tree.
func (s *structural) locateSymbol(ctx context.Context, fd *search.FileDecls, namePath string) (search.Declaration, symbolSource, error) {
	tree := symbolSource{how: "the tree-sitter grammar"}
	sup := s.run.cfg.LSP
	if sup == nil {
		tree.how += " (no language servers in this run)"
		d, err := fd.Find(namePath)
		return d, tree, s.candidatesErr(err, fd.Path)
	}
	syms, err := sup.DocumentSymbols(ctx, fd.Path)
	switch {
	case errors.Is(err, lsp.ErrNoServer) || errors.Is(err, lsp.ErrNoLanguage):
		tree.how += " (no language server runs for the file)"
		d, err := fd.Find(namePath)
		return d, tree, s.candidatesErr(err, fd.Path)
	case err != nil:
		return search.Declaration{}, tree, fmt.Errorf("tools: symbol_edit: the language server could not list %s's symbols, so nothing was looked up: %w; retry once it is ready (lsp status)", fd.Path, err)
	}
	via := symbolSource{server: "lsp", how: "the language server's document symbols"}
	paths, lines := serverPaths(syms.Items)
	base, index := namePath, 0
	if i := strings.LastIndexByte(namePath, '#'); i >= 0 {
		if _, n, err := search.SplitNamePath(namePath); err == nil {
			base, index = namePath[:i], n
		}
	}
	at := func(i int) string { return fmt.Sprintf("%s (line %d)", strings.Join(paths[i], "/"), lines[i]) }
	idx, err := search.MatchNamePath(base, paths, at)
	if err != nil {
		return search.Declaration{}, via, s.candidatesErr(err, fd.Path)
	}
	// The tree's declarations of each path the server matched: a server
	// that merges overloads into one symbol still leaves each in the tree.
	var found []search.Declaration
	for _, i := range idx {
		d, ok := fd.At(lines[i], paths[i][len(paths[i])-1])
		if !ok {
			return search.Declaration{}, via, fmt.Errorf("tools: symbol_edit: the server lists %s at line %d of %s, but it is no declaration the edit covers (a field, variable or parameter): edit it with ast_edit", strings.Join(paths[i], "/"), lines[i], fd.Path)
		}
		for _, o := range fd.Decls {
			if o.PathString() == d.PathString() && !slices.ContainsFunc(found, func(f search.Declaration) bool { return f.Start == o.Start }) {
				found = append(found, o)
			}
		}
	}
	slices.SortFunc(found, func(x, y search.Declaration) int { return x.Start - y.Start })
	list := func(ds []search.Declaration) string {
		var names []string
		for _, d := range ds {
			names = append(names, fmt.Sprintf("%s (line %d)", d.PathString(), d.Line))
		}
		return strings.Join(firstN(names, symbolRefsShown), ", ")
	}
	switch {
	case index > len(found):
		return search.Declaration{}, via, fmt.Errorf("tools: symbol_edit: %w: %q: there are %d of that name: %s", search.ErrNoSymbol, namePath, len(found), list(found))
	case index > 0:
		return found[index-1], via, nil
	case len(found) > 1:
		return search.Declaration{}, via, fmt.Errorf("tools: symbol_edit: %w %q: %s; add #N for the N-th (e.g. %s#2), or the path of the one meant", search.ErrAmbiguousSymbol, namePath, list(found), base)
	}
	return found[0], via, nil
}

// candidatesErr says what to do after a name path that names no symbol or
// several.
func (s *structural) candidatesErr(err error, file string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, search.ErrNoSymbol) || errors.Is(err, search.ErrAmbiguousSymbol) {
		return fmt.Errorf("tools: symbol_edit: %w (in %s; lsp symbols with file lists them all)", err, file)
	}
	return fmt.Errorf("tools: symbol_edit: %w", err)
}

// serverPaths are the name paths of a server's document symbols (their
// depth gives their parents; "(*T).M" is T/M) and their lines.
func serverPaths(items []lsp.Symbol) ([][]string, []int) {
	var paths [][]string
	var lines []int
	var stack [][]string // stack[d] is the path of the symbol last seen at depth d
	for _, it := range items {
		names, _, err := search.SplitNamePath(strings.ReplaceAll(it.Name, "#", ""))
		if err != nil {
			names = []string{it.Name}
		}
		d := min(it.Depth, len(stack))
		stack = stack[:d]
		var p []string
		if d > 0 {
			p = append(p, stack[d-1]...)
		}
		p = append(p, names...)
		stack = append(stack, p)
		paths = append(paths, p)
		lines = append(lines, it.Location.Line)
	}
	return paths, lines
}

// symbolRefList is what may still use a symbol a delete would remove.
type symbolRefList struct {
	count int
	shown []string // path:line, at most symbolRefsShown
	how   string   // where they were looked for
}

func (r symbolRefList) String() string {
	if r.count == 0 {
		return "no references remain (" + r.how + ")"
	}
	more := ""
	if r.count > len(r.shown) {
		more = fmt.Sprintf(" and %d more", r.count-len(r.shown))
	}
	verb := "remain"
	if r.count == 1 {
		verb = "remains"
	}
	return fmt.Sprintf("%s %s (%s): %s%s", plural(r.count, "reference"), verb, r.how, strings.Join(r.shown, ", "), more)
}

// symbolRefs lists the references to d outside d itself: the language
// server's when it found the symbol, else the same-named identifiers of
// the workspace's parsed trees.
func (s *structural) symbolRefs(ctx context.Context, fd *search.FileDecls, d search.Declaration, via symbolSource) (symbolRefList, error) {
	first, last := lineOf(fd.Src, d.Start), lineOf(fd.Src, max(d.Start, d.End-1))
	if via.server != "" {
		locs, err := s.run.cfg.LSP.References(ctx, lsp.Position{File: fd.Path, Line: d.Line, Symbol: d.Name})
		if err != nil {
			return symbolRefList{}, fmt.Errorf("tools: symbol_edit: the language server could not list the references to %s, so the delete was not checked: %w; retry, or pass force: true", d.PathString(), err)
		}
		out := symbolRefList{how: "the language server's references"}
		for _, l := range locs.All {
			if filepath.ToSlash(l.Path) == fd.Path {
				if _, decl := fd.At(l.Line, d.Name); decl || l.Line >= first && l.Line <= last {
					continue // itself, or another declaration of the name (an overload)
				}
			}
			if out.count++; len(out.shown) < symbolRefsShown {
				out.shown = append(out.shown, fmt.Sprintf("%s:%d", l.Path, l.Line))
			}
		}
		if out.count > 0 {
			return out, nil
		}
		// A server answers from what it has indexed (clangd: the open
		// files, until its background index is done): its "none" is
		// checked against the trees before a delete goes ahead.
		byName, err := s.nameUses(ctx, fd, d)
		if err != nil || byName.count == 0 {
			return out, err
		}
		byName.how = "the language server found none, but " + byName.how
		return byName, nil
	}
	out, err := s.nameUses(ctx, fd, d)
	if err == nil {
		out.how += "; no language server runs for the file"
	}
	return out, err
}

// nameUses lists the identifiers spelling d's name in the workspace's
// parsed trees, outside d.
func (s *structural) nameUses(ctx context.Context, fd *search.FileDecls, d search.Declaration) (symbolRefList, error) {
	uses, err := s.search.NameUses(ctx, fd.Path, d, symbolRefsShown)
	if err != nil {
		return symbolRefList{}, fmt.Errorf("tools: symbol_edit: could not look for references to %s, so the delete was not checked: %w; pass force: true to delete it unchecked", d.PathString(), s.relErr(err))
	}
	out := symbolRefList{count: uses.Total, how: fmt.Sprintf("identifiers named %s in the parsed trees of %s", d.Name, plural(uses.Files, "file"))}
	if uses.OverCap > 0 {
		out.how += fmt.Sprintf("; %s past the cap of %d were not read", plural(uses.OverCap, "file"), search.DefaultMapFiles)
	}
	for _, u := range uses.Uses {
		out.shown = append(out.shown, fmt.Sprintf("%s:%d", u.Path, u.Line))
	}
	return out, nil
}
