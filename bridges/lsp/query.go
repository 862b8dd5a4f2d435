package lsp

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "slices"
import "sort"
import "strings"

import "github.com/tetherhq/tether/internal/fsutil"
import "github.com/tetherhq/tether/internal/jsontree"
import "github.com/tetherhq/tether/internal/textcut"

// ErrNoLanguage is wrapped when no server in the table serves a file's
// extension (a README, a picture): nothing could look at it.
var ErrNoLanguage = errors.New("lsp: no server for this kind of file")

// Location is a place in a file: a workspace-relative path (absolute when
// outside the workspace), a 1-based line and 1-based character column, and
// the text of that line.
type Location struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Text string `json:"text"`
	// Outside is set when the path leads outside the workspace (a path
	// elsewhere, or through a symbolic link in it that leads out): the file
	// was not read, so Text is empty and Col is the server's own count.
	Outside bool `json:"outside,omitempty"`
}

// OutsideNote marks a place outside the workspace, shown as its path alone.
const OutsideNote = "(outside the workspace: not shown)"

// String renders "path:line:col: text", or "path:line:col (outside the
// workspace: not shown)".
func (l Location) String() string {
	if l.Outside {
		return fmt.Sprintf("%s:%d:%d %s", l.Path, l.Line, l.Col, OutsideNote)
	}
	return fmt.Sprintf("%s:%d:%d: %s", l.Path, l.Line, l.Col, strings.TrimSpace(l.Text))
}

// locationLess orders locations by path, line and column.
func locationLess(a, b Location) bool {
	if a.Path != b.Path {
		return a.Path < b.Path
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Col < b.Col
}

// Locations is the answer of a navigation query.
type Locations struct {
	Items []Location `json:"items"`
	// Total is how many the server returned; more than len(Items) when capped.
	Total int `json:"total"`
	// Start is how many were skipped before Items (a page past the cap).
	Start int `json:"start,omitempty"`
	// Notes report events around the query (a crash and restart).
	Notes []string `json:"notes,omitempty"`
	// For references: Name is the identifier at the position, All every
	// location the server returned (Items is one page of them), and
	// Extensions the file kinds its server reads, so a caller can look for
	// same-name identifiers the server did not return.
	Name       string     `json:"-"`
	All        []Location `json:"-"`
	Extensions []string   `json:"-"`
}

// Hover is the answer of a hover query.
type Hover struct {
	Text  string   `json:"text"`
	Notes []string `json:"notes,omitempty"`
}

// Symbol is one symbol from a document or workspace search.
type Symbol struct {
	Name      string   `json:"name"`
	Kind      string   `json:"kind"`
	Detail    string   `json:"detail,omitempty"`
	Container string   `json:"container,omitempty"`
	Depth     int      `json:"depth,omitempty"`
	Location  Location `json:"location"`
}

// Symbols is the answer of a symbols query.
type Symbols struct {
	Items []Symbol `json:"items"`
	// Total counts the symbols of the kind asked for (all kinds by default).
	Total int `json:"total"`
	// Start is how many were skipped before Items (a page past the cap).
	Start int      `json:"start,omitempty"`
	Notes []string `json:"notes,omitempty"`
	// Capped is true when a server returned as many symbols as its own cap
	// (gopls: 100): Total then counts what it returned, not every match.
	Capped bool `json:"capped,omitempty"`
	// Locals counts the parameters and local variables and constants of
	// functions left out of a document's symbols (Page.Locals lists them).
	Locals int `json:"locals,omitempty"`
}

// Page selects part of a references or symbols answer.
type Page struct {
	// Start skips that many results (0-based), to page past the cap.
	Start int
	// Kind keeps only symbols of one of symbolKindFilters' kinds ("" keeps
	// all); references ignore it.
	Kind string
	// Locals keeps, in a document's symbols, the parameters and the local
	// variables and constants of functions and methods (pyright lists them
	// all: over a thousand in a large module); they are left out otherwise.
	Locals bool
}

// symbolKindFilters are the kinds a symbols query may keep, each with the
// LSP symbol kinds it covers.
var symbolKindFilters = map[string][]string{
	"function": {"function"},
	"method":   {"method", "constructor"},
	"type":     {"class", "interface", "enum", "struct"},
	"field":    {"field", "property", "enum member"},
	"variable": {"variable", "constant"},
}

func (pg Page) check() error {
	if pg.Start < 0 {
		return fmt.Errorf("lsp: start %d is negative: pass 0 or the number of results to skip", pg.Start)
	}
	if _, ok := symbolKindFilters[pg.Kind]; pg.Kind != "" && !ok {
		return fmt.Errorf("lsp: unknown symbol kind %q: use function, method, type, field or variable", pg.Kind)
	}
	return nil
}

func (pg Page) keeps(kind string) bool {
	return pg.Kind == "" || slices.Contains(symbolKindFilters[pg.Kind], kind)
}

// take reports whether the n-th (0-based) kept result goes into a page of
// at most max items holding have.
func (pg Page) take(n, have, max int) bool {
	return n >= pg.Start && have < max
}

// CodeAction is one action a server offers at a position.
type CodeAction struct {
	Title     string `json:"title"`
	Kind      string `json:"kind,omitempty"`
	Preferred bool   `json:"preferred,omitempty"`
	// Refused says why tether would refuse the action's edit whole (it
	// touches a file outside the workspace); "" when it would not.
	Refused string `json:"refused,omitempty"`
	// Command is the command the action runs when it carries no edit:
	// lsp_apply stages what the command sends back.
	Command string `json:"command,omitempty"`
}

// CodeActions is the answer of a code_actions query.
type CodeActions struct {
	Items []CodeAction `json:"items"`
	Notes []string     `json:"notes,omitempty"`
}

// Caps on result sizes: a bounded answer pages on with a start offset
// (docs/tools.md, "lsp").
const (
	maxReferences       = 50
	MaxWorkspaceSymbols = 100
	maxDocumentSymbols  = 200
	maxDiagnostics      = 200
	maxHover            = 4000
)

// prepared is a file made ready for a query on its server.
type prepared struct {
	in    *instance
	path  string
	text  []byte
	notes []string
}

func (s *Supervisor) prepare(ctx context.Context, file string) (*prepared, error) {
	path, err := s.abs(file)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("lsp: %s does not exist in the workspace", file)
	}
	in, notes, err := s.acquire(ctx, path)
	if err != nil {
		return nil, err
	}
	if err := s.resyncOpen(ctx, in); err != nil {
		return nil, s.failed(in, err, notes)
	}
	if _, _, _, err := s.syncDoc(ctx, in, path, false); err != nil {
		return nil, s.failed(in, err, notes)
	}
	if err := s.ready(ctx, in); err != nil {
		return nil, s.failed(in, err, notes)
	}
	text, err := s.root.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("lsp: %w", err)
	}
	return &prepared{in: in, path: path, text: text, notes: notes}, nil
}

// failed adds the crash story to err when the server died under it.
func (s *Supervisor) failed(in *instance, err error, notes []string) error {
	if dead, why := in.dead(); dead && !in.stopping() {
		err = fmt.Errorf("lsp: %s exited (%s) during the request; %s: %w", in.spec.Name, crashReport(in, why), s.afterCrash(in), err)
	}
	if len(notes) > 0 {
		err = fmt.Errorf("%s; %w", strings.Join(notes, "; "), err)
	}
	return err
}

func (s *Supervisor) positionParams(ctx context.Context, pos Position) (*prepared, wPositionParams, error) {
	if strings.TrimSpace(pos.Symbol) == "" {
		// Say so before starting any server, showing the line.
		path, err := s.abs(pos.File)
		if err != nil {
			return nil, wPositionParams{}, err
		}
		text, err := s.root.ReadFile(path)
		if err != nil {
			return nil, wPositionParams{}, fmt.Errorf("lsp: %s does not exist in the workspace", pos.File)
		}
		_, _, err = resolveSymbol(text, pos.Line, "", s.rel(path))
		return nil, wPositionParams{}, err
	}
	p, err := s.prepare(ctx, pos.File)
	if err != nil {
		return nil, wPositionParams{}, err
	}
	line, col, err := resolveSymbol(p.text, pos.Line, pos.Symbol, s.rel(p.path))
	if err != nil {
		return nil, wPositionParams{}, err
	}
	starts := lineStarts(p.text)
	lt := lineText(p.text, starts, line)
	return p, wPositionParams{
		TextDocument: wTextDocumentIdentifier{URI: pathToURI(p.path)},
		Position:     wPosition{Line: line, Character: p.in.enc.col(lt, col)},
	}, nil
}

// Definition returns where the symbol at pos is declared.
func (s *Supervisor) Definition(ctx context.Context, pos Position) (*Locations, error) {
	return s.navigate(ctx, "textDocument/definition", pos, 0)
}

// TypeDefinition returns where the type of the symbol at pos is declared.
func (s *Supervisor) TypeDefinition(ctx context.Context, pos Position) (*Locations, error) {
	return s.navigate(ctx, "textDocument/typeDefinition", pos, 0)
}

// Implementation returns the concrete implementations of the symbol at pos.
func (s *Supervisor) Implementation(ctx context.Context, pos Position) (*Locations, error) {
	return s.navigate(ctx, "textDocument/implementation", pos, 0)
}

// References returns every use of the symbol at pos (declaration included),
// at most maxReferences, with the total.
func (s *Supervisor) References(ctx context.Context, pos Position) (*Locations, error) {
	return s.ReferencesPage(ctx, pos, 0)
}

// ReferencesPage is References from the start-th reference (0-based) on, in
// the same order: a page past the cap.
func (s *Supervisor) ReferencesPage(ctx context.Context, pos Position, start int) (*Locations, error) {
	if err := (Page{Start: start}).check(); err != nil {
		return nil, err
	}
	out, err := s.navigate(ctx, "textDocument/references", pos, 0)
	if err != nil {
		return nil, err
	}
	out.All = out.Items
	out.Start = min(start, len(out.Items))
	out.Items = out.Items[out.Start:]
	if len(out.Items) > maxReferences {
		out.Items = out.Items[:maxReferences]
	}
	return out, nil
}

func (s *Supervisor) navigate(ctx context.Context, method string, pos Position, max int) (*Locations, error) {
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	p, params, err := s.positionParams(ctx, pos)
	if err != nil {
		return nil, err
	}
	var req any = params
	if method == "textDocument/references" {
		rp := wReferenceParams{TextDocument: params.TextDocument, Position: params.Position}
		rp.Context.IncludeDeclaration = true
		req = rp
	}
	raw, err := p.in.call(ctx, s.requestTimeout, method, req)
	if err != nil {
		return nil, s.failed(p.in, err, p.notes)
	}
	locs, err := decodeLocations(raw)
	if err != nil {
		return nil, fmt.Errorf("lsp: %s answered %s with something unreadable: %w", p.in.spec.Name, method, err)
	}
	out := &Locations{Notes: p.notes}
	if method == "textDocument/references" {
		lt := lineText(p.text, lineStarts(p.text), params.Position.Line)
		at := p.in.enc.byteOf(lt, params.Position.Character)
		out.Name, out.Extensions = lt[at:identEnd(lt, at)], p.in.spec.Extensions
	}
	if method == "textDocument/references" || method == "textDocument/implementation" {
		if why := p.in.spec.partialView(p.in.root, s.relRoot(p.in.root)); why != "" {
			out.Notes = append(out.Notes, fmt.Sprintf("%s, so this answer may miss other files; %s for complete answers", why, p.in.spec.indexHint()))
		}
	}
	seen := map[string]bool{}
	files := fileCache{}
	for _, l := range locs {
		loc := s.location(files, p.in.enc, l)
		k := loc.Path + fmt.Sprint(loc.Line, loc.Col)
		if seen[k] {
			continue
		}
		seen[k] = true
		out.Items = append(out.Items, loc)
	}
	sort.SliceStable(out.Items, func(i, j int) bool { return locationLess(out.Items[i], out.Items[j]) })
	out.Total = len(out.Items)
	if max > 0 && len(out.Items) > max {
		out.Items = out.Items[:max]
	}
	return out, nil
}

func decodeLocations(raw json.RawMessage) ([]wLocation, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '{' {
		var l wLocation
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, err
		}
		return []wLocation{l}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	var out []wLocation
	for _, it := range items {
		var probe struct {
			URI       string `json:"uri"`
			TargetURI string `json:"targetUri"`
		}
		if err := json.Unmarshal(it, &probe); err != nil {
			return nil, err
		}
		if probe.TargetURI != "" {
			var ll wLocationLink
			if err := json.Unmarshal(it, &ll); err != nil {
				return nil, err
			}
			out = append(out, wLocation{URI: ll.TargetURI, Range: ll.TargetSelectionRange})
			continue
		}
		var l wLocation
		if err := json.Unmarshal(it, &l); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// fileCache reads each file once per answer.
type fileCache map[string]*cachedFile

type cachedFile struct {
	text    []byte
	starts  []int
	outside bool // not read: the path leads outside the workspace
}

// get reads the file at path, a path a server named, through the workspace
// root: a path outside it, or one that leads out through a symbolic link,
// is never opened. It returns nil when the file cannot be read.
func (c fileCache) get(root *fsutil.Root, path string) *cachedFile {
	if f, ok := c[path]; ok {
		return f
	}
	var f *cachedFile
	text, err := root.ReadFile(path)
	switch {
	case err == nil:
		f = &cachedFile{text: text, starts: lineStarts(text)}
	case errors.Is(err, fsutil.ErrOutside):
		f = &cachedFile{outside: true}
	}
	c[path] = f
	return f
}

// location converts a server's location, reading its line's text through
// the workspace root; a location outside the workspace keeps its path
// alone, marked Outside.
func (s *Supervisor) location(files fileCache, enc encoding, l wLocation) Location {
	path := uriToPath(l.URI)
	loc := Location{Path: s.rel(path), Line: l.Range.Start.Line + 1, Col: l.Range.Start.Character + 1}
	if path == "" {
		loc.Path = l.URI
		return loc
	}
	f := files.get(s.root, path)
	if f != nil && f.outside {
		loc.Outside = true
		return loc
	}
	if f != nil {
		lt := lineText(f.text, f.starts, l.Range.Start.Line)
		loc.Text = lt
		loc.Col = runeCol1(lt, enc.byteOf(lt, l.Range.Start.Character))
	}
	return loc
}

// Hover returns the signature and doc comment of the symbol at pos.
func (s *Supervisor) Hover(ctx context.Context, pos Position) (*Hover, error) {
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	p, params, err := s.positionParams(ctx, pos)
	if err != nil {
		return nil, err
	}
	raw, err := p.in.call(ctx, s.requestTimeout, "textDocument/hover", params)
	if err != nil {
		return nil, s.failed(p.in, err, p.notes)
	}
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &h); err != nil {
			return nil, fmt.Errorf("lsp: %s answered hover with something unreadable: %w", p.in.spec.Name, err)
		}
	}
	text := strings.TrimSpace(markupText(h.Contents))
	return &Hover{Text: cutHover(text, maxHover), Notes: p.notes}, nil
}

// markupText flattens MarkupContent, MarkedString or MarkedString[].
func markupText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	case '[':
		var parts []json.RawMessage
		_ = json.Unmarshal(raw, &parts)
		var out []string
		for _, p := range parts {
			if t := markupText(p); t != "" {
				out = append(out, t)
			}
		}
		return strings.Join(out, "\n\n")
	case '{':
		var m struct {
			Kind     string `json:"kind"`
			Language string `json:"language"`
			Value    string `json:"value"`
		}
		_ = json.Unmarshal(raw, &m)
		if m.Language != "" {
			return "```" + m.Language + "\n" + m.Value + "\n```"
		}
		return m.Value
	}
	return ""
}

// DocumentSymbols lists the symbols of file, flattened in document order with
// their nesting depth, at most maxDocumentSymbols.
func (s *Supervisor) DocumentSymbols(ctx context.Context, file string) (*Symbols, error) {
	return s.DocumentSymbolsPage(ctx, file, Page{})
}

// DocumentSymbolsPage is DocumentSymbols keeping the symbols of pg.Kind, from
// the pg.Start-th on.
func (s *Supervisor) DocumentSymbolsPage(ctx context.Context, file string, pg Page) (*Symbols, error) {
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	if err := pg.check(); err != nil {
		return nil, err
	}
	p, err := s.prepare(ctx, file)
	if err != nil {
		return nil, err
	}
	raw, err := p.in.call(ctx, s.requestTimeout, "textDocument/documentSymbol",
		wDocumentSymbolParams{TextDocument: wTextDocumentIdentifier{URI: pathToURI(p.path)}})
	if err != nil {
		return nil, s.failed(p.in, err, p.notes)
	}
	var syms []wDocumentSymbol
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &syms); err != nil {
			return nil, fmt.Errorf("lsp: %s answered documentSymbol with something unreadable: %w", p.in.spec.Name, err)
		}
	}
	out := &Symbols{Notes: p.notes, Start: pg.Start}
	files := fileCache{}
	var walk func([]wDocumentSymbol, int, string, bool)
	walk = func(list []wDocumentSymbol, depth int, container string, inFunc bool) {
		for _, d := range list {
			sym := Symbol{Name: d.Name, Kind: symbolKindName(d.Kind), Detail: d.Detail, Container: container, Depth: depth}
			if inFunc && !pg.Locals && (sym.Kind == "variable" || sym.Kind == "constant") {
				out.Locals++
				continue
			}
			if d.Location != nil { // SymbolInformation
				sym.Location = s.location(files, p.in.enc, *d.Location)
				sym.Container = d.ContainerName
			} else {
				sym.Location = s.location(files, p.in.enc, wLocation{URI: pathToURI(p.path), Range: d.SelectionRange})
			}
			if pg.keeps(sym.Kind) {
				if pg.Kind != "" {
					sym.Depth = 0 // listed without its parents; Container names the parent
				}
				if pg.take(out.Total, len(out.Items), maxDocumentSymbols) {
					out.Items = append(out.Items, sym)
				}
				out.Total++
			}
			walk(d.Children, depth+1, d.Name, sym.Kind == "function" || sym.Kind == "method" || sym.Kind == "constructor")
		}
	}
	walk(syms, 0, "", false)
	return out, nil
}

// WorkspaceSymbols searches the workspace for symbols matching query, at most
// MaxWorkspaceSymbols. With file set, only that file's server is asked;
// otherwise every server with a root marker in the workspace root.
func (s *Supervisor) WorkspaceSymbols(ctx context.Context, query, file string) (*Symbols, error) {
	return s.WorkspaceSymbolsPage(ctx, query, file, Page{})
}

// WorkspaceSymbolsPage is WorkspaceSymbols keeping the symbols of pg.Kind,
// from the pg.Start-th on.
func (s *Supervisor) WorkspaceSymbolsPage(ctx context.Context, query, file string, pg Page) (*Symbols, error) {
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	if err := pg.check(); err != nil {
		return nil, err
	}
	type target struct {
		in    *instance
		notes []string
	}
	var targets []target
	var why []string
	if file != "" {
		p, err := s.prepare(ctx, file)
		if err != nil {
			return nil, err
		}
		targets = append(targets, target{p.in, p.notes})
	} else {
		for _, spec := range s.servers {
			roots := s.projectRoots(spec)
			if len(roots) > maxSymbolRoots {
				why = append(why, fmt.Sprintf("%s searched in the first %d of %d project roots (%s, ...); pass file to search another's",
					spec.Name, maxSymbolRoots, len(roots), s.rel(roots[0].dir)))
				roots = roots[:maxSymbolRoots]
			}
			for _, pr := range roots {
				marker := pr.marker
				if pr.dir != s.workdir {
					marker = s.rel(filepath.Join(pr.dir, marker))
				}
				if _, bin := spec.binary(s.env, s.workdir); bin == "" && s.dial == nil {
					why = append(why, fmt.Sprintf("%s found, %s not on PATH", marker, spec.Binaries[0]))
					continue
				}
				in, notes, err := s.acquireRoot(ctx, spec, pr.dir, pr.marker)
				if err != nil {
					why = append(why, reason(err))
					continue
				}
				if err := s.primeRoot(ctx, in); err != nil {
					why = append(why, reason(err))
					continue
				}
				// Files created or changed by other means since it started.
				if err := s.resyncOpen(ctx, in); err != nil {
					why = append(why, reason(s.failed(in, err, nil)))
					continue
				}
				if err := s.ready(ctx, in); err != nil {
					why = append(why, reason(err))
					continue
				}
				targets = append(targets, target{in, notes})
			}
		}
		if len(targets) == 0 {
			if len(why) == 0 {
				why = append(why, fmt.Sprintf("no server has a root marker in the workspace root or in its subdirectories (%d levels down); pass file to search with that file's server", checkerDepth))
			}
			return nil, fmt.Errorf("%w: cannot search symbols: %s", ErrNoServer, strings.Join(why, "; "))
		}
	}
	out := &Symbols{Start: pg.Start}
	files := fileCache{}
	var failed []error
	answered := 0 // symbols the servers returned, of every kind
	for _, t := range targets {
		out.Notes = append(out.Notes, t.notes...)
		raw, err := t.in.call(ctx, s.requestTimeout, "workspace/symbol", wWorkspaceSymbolParams{Query: query})
		if err != nil {
			if len(targets) == 1 {
				return nil, s.failed(t.in, err, out.Notes)
			}
			// The other servers' answers stand; this one says why it is missing.
			err = s.failed(t.in, err, nil)
			failed = append(failed, err)
			why = append(why, fmt.Sprintf("%s (root %s) did not search: %s", t.in.spec.Name, s.relRoot(t.in.root), reason(err)))
			continue
		}
		var syms []wWorkspaceSymbol
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &syms); err != nil {
				return nil, fmt.Errorf("lsp: %s answered workspace/symbol with something unreadable: %w", t.in.spec.Name, err)
			}
		}
		for _, w := range syms {
			var l wLocation
			_ = json.Unmarshal(w.Location, &l)
			sym := Symbol{Name: w.Name, Kind: symbolKindName(w.Kind), Container: w.ContainerName, Location: s.location(files, t.in.enc, l)}
			answered++
			if !pg.keeps(sym.Kind) {
				continue
			}
			if pg.take(out.Total, len(out.Items), MaxWorkspaceSymbols) {
				out.Items = append(out.Items, sym)
			}
			out.Total++
		}
	}
	if len(failed) == len(targets) {
		return nil, errors.Join(failed...)
	}
	out.Notes = append(out.Notes, why...)
	if answered == MaxWorkspaceSymbols {
		// Servers cap the search themselves (gopls at 100): the cap reached
		// is not "all of them".
		out.Capped = true
	}
	return out, nil
}

// maxSymbolRoots bounds the project roots below the workspace root a
// workspace symbol search starts a server in, per server.
const maxSymbolRoots = 3

// primeRoot opens one source file of the root when none is open yet: some
// servers (typescript-language-server, clangd) answer workspace queries only
// for projects a document belongs to.
func (s *Supervisor) primeRoot(ctx context.Context, in *instance) error {
	in.mu.Lock()
	n := len(in.docs)
	in.mu.Unlock()
	if n > 0 {
		return nil
	}
	var found string
	errStop := errors.New("stop")
	visited := 0
	_ = filepath.WalkDir(in.root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		visited++
		if visited > 5000 {
			return errStop
		}
		if d.IsDir() {
			if p != in.root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "vendor" || d.Name() == "build") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && in.spec.serves(p) {
			found = p
			return errStop
		}
		return nil
	})
	if found == "" {
		return nil
	}
	_, _, _, err := s.syncDoc(ctx, in, found, false)
	return err
}

// CodeActions lists the actions (quick fixes, refactorings) the server offers
// at the symbol of pos, passing the diagnostics known for that line.
func (s *Supervisor) CodeActions(ctx context.Context, pos Position) (*CodeActions, error) {
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	if strings.TrimSpace(pos.Symbol) == "" {
		// positionParams says what is wrong, showing the line.
		if _, _, err := s.positionParams(ctx, pos); err != nil {
			return nil, err
		}
	}
	return s.CodeActionsIn(ctx, ActionQuery{Position: pos})
}

// expandFile replaces "${file}" in v's strings with path and "${uri}" with
// its URI.
func expandFile(v any, path string) any {
	return jsontree.MapStrings(v, func(t string) any {
		return strings.ReplaceAll(strings.ReplaceAll(t, "${file}", path), "${uri}", pathToURI(path))
	})
}

// cutHover bounds a hover text at max bytes, on a character boundary, and
// says where it was cut.
func cutHover(text string, max int) string {
	cut := textcut.Prefix(text, max)
	if len(cut) == len(text) {
		return text
	}
	return cut + fmt.Sprintf("\n... (hover cut at %d of %d bytes)", len(cut), len(text))
}

// emptyAnswer reports whether raw is [] or an object whose "body" is [].
func emptyAnswer(raw json.RawMessage) bool {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil && list != nil {
		return len(list) == 0
	}
	var obj struct {
		Body []json.RawMessage `json:"body"`
	}
	return json.Unmarshal(raw, &obj) == nil && obj.Body != nil && len(obj.Body) == 0
}
