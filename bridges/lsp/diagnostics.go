package lsp

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "os"
import "sort"
import "strings"
import "sync"
import "time"

import "github.com/tetherhq/tether/internal/ipynb"

// Diagnostic is one error, warning or hint in a file.
type Diagnostic struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Severity string `json:"severity"`
	Code     string `json:"code,omitempty"`
	Source   string `json:"source,omitempty"`
	Message  string `json:"message"`
	// Outside is set for a diagnostic in a file outside the workspace (a
	// checker's finding in a dependency elsewhere): its path is shown
	// alone, without its message or that file's content.
	Outside bool `json:"outside,omitempty"`
	// Cell is, for a diagnostic of a notebook's code cell, that cell:
	// Line and Col are then in the cell's source. Nil for a file's.
	Cell *ipynb.CellRef `json:"cell,omitempty"`
}

// String renders "path:line:col: severity: message [source code]" (path
// "nb.ipynb[cell 3 id=a1b2]" for a notebook's cell), or
// "path:line:col: severity (outside the workspace: not shown)".
func (d Diagnostic) String() string {
	if d.Outside {
		return fmt.Sprintf("%s:%d:%d: %s %s", d.Path, d.Line, d.Col, d.Severity, OutsideNote)
	}
	s := fmt.Sprintf("%s:%d:%d: %s: %s", ipynb.Where(d.Path, d.Cell), d.Line, d.Col, d.Severity, d.Message)
	tag := strings.TrimSpace(d.Source + " " + d.Code)
	if tag != "" {
		s += " [" + tag + "]"
	}
	return s
}

// Diagnostics is the answer of a diagnostics query for files.
type Diagnostics struct {
	Items []Diagnostic `json:"items"`
	// Ready is false when the server did not publish diagnostics for the
	// current content within the bound: Items may then be stale or missing,
	// and silence must not be read as a clean file.
	Ready bool `json:"ready"`
	// Waited is the bound that passed when Ready is false.
	Waited time.Duration `json:"waited,omitempty"`
	// Partial, when Ready, says why Items may still not be the file's
	// whole set: they come from a publication of a server whose
	// publications can hold part of a file's diagnostics (tsserver's
	// syntactic ones before its semantic ones), or a linter did not
	// answer. Empty when the set is whole: ended by the server's own
	// signal (a pull answer, tsserver's synchronous diagnostics, gopls's
	// diagnose_files answer, a publication stamped with the version sent).
	// A set that is not whole must not be compared with another.
	Partial string   `json:"partial,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	// Others are, after a write (AfterWrite), the other files the server
	// published diagnostics for since the write: a changed signature breaks
	// its callers elsewhere. At most maxOtherFiles, sorted by path;
	// OthersCut counts those left out.
	Others    []OtherFile `json:"others,omitempty"`
	OthersCut int         `json:"others_cut,omitempty"`
	// NeedsTypes is set when the file's server computes its warnings only
	// for a package without type errors (Server.AnalysisNeedsTypes).
	NeedsTypes bool `json:"needs_types,omitempty"`
}

// Whole reports whether d is a file's whole set of diagnostics for its
// current content (Ready, and not Partial), and else why not.
func (d *Diagnostics) Whole() (bool, string) {
	switch {
	case d == nil:
		return false, "no answer"
	case !d.Ready:
		return false, fmt.Sprintf("the server did not answer within %s", d.Waited)
	case d.Partial != "":
		return false, d.Partial
	}
	return true, ""
}

// OtherFile is the diagnostics of a file published after another file
// was written.
type OtherFile struct {
	Path  string       `json:"path"`
	Items []Diagnostic `json:"items"`
	// Whole is set when Items and Before are whole sets: the server
	// publishes a file's whole set at once and brings its publications up
	// to date before it answers (gopls). Otherwise a publication may be
	// part of a set, or predate the write: ask Diagnostics for the file.
	Whole bool `json:"whole,omitempty"`
	// Before are its diagnostics as last published before the write, when
	// HadBefore: what the write did not cause.
	Before    []Diagnostic `json:"before,omitempty"`
	HadBefore bool         `json:"had_before,omitempty"`
}

// maxOtherFiles bounds the other files AfterWrite reports.
const maxOtherFiles = 100

var severities = []string{"", "error", "warning", "info", "hint"}

func (s *Supervisor) diagnostic(files fileCache, enc encoding, uri string, d wDiagnostic) Diagnostic {
	l := s.location(files, enc, wLocation{URI: uri, Range: d.Range})
	sev := "error"
	if d.Severity > 0 && d.Severity < len(severities) {
		sev = severities[d.Severity]
	}
	code := strings.Trim(string(d.Code), `"`)
	if code == "null" {
		code = ""
	}
	if l.Outside {
		return Diagnostic{Path: l.Path, Line: l.Line, Col: l.Col, Severity: sev, Code: code, Source: d.Source, Outside: true}
	}
	return Diagnostic{Path: l.Path, Line: l.Line, Col: l.Col, Severity: sev, Code: code, Source: d.Source, Message: s.relMessage(strings.TrimSpace(d.Message))}
}

// relMessage names the workspace's files in msg by their paths relative to
// it, as every other part of an answer does: clangd's notes ("In included
// file: ...", "note: previous definition is here") carry absolute paths,
// which would tell the agent where the workspace lives on the host.
func (s *Supervisor) relMessage(msg string) string {
	if !strings.Contains(msg, "/") {
		return msg
	}
	for _, dir := range []string{s.root.RealDir(), s.root.Dir()} {
		if dir == "" || dir == "/" {
			continue
		}
		msg = strings.ReplaceAll(msg, "file://"+dir+"/", "")
		msg = strings.ReplaceAll(msg, dir+"/", "")
	}
	return msg
}

// Diagnostics returns the server's diagnostics for file's current content,
// waiting (bounded) for them after syncing the file.
func (s *Supervisor) Diagnostics(ctx context.Context, file string) (*Diagnostics, error) {
	return s.fileDiagnostics(ctx, file, false)
}

// AfterWrite tells file's server that file changed on disk (didOpen or
// didChange, then didSave) and waits (bounded) for the diagnostics of that
// version. It is the diagnostics-on-write hook. The error wraps ErrNoLanguage
// when no server serves the file's kind, ErrNoServer when one would but cannot
// start here.
func (s *Supervisor) AfterWrite(ctx context.Context, file string) (*Diagnostics, error) {
	return s.fileDiagnostics(ctx, file, true)
}

func (s *Supervisor) fileDiagnostics(ctx context.Context, file string, save bool) (*Diagnostics, error) {
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	path, err := s.abs(file)
	if err != nil {
		return nil, err
	}
	if _, err := s.specFor(path); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrNoLanguage, strings.TrimPrefix(err.Error(), "lsp: "))
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("lsp: %s does not exist in the workspace", file)
	}
	in, notes, err := s.acquire(ctx, path)
	if err != nil {
		if errors.Is(err, ErrNoServer) {
			// The project's linters may still answer (biome.json and
			// no package.json): their findings, saying what is missing.
			out := &Diagnostics{Ready: true, Notes: []string{reason(err) + "; only its linters answered"}}
			if s.addLinters(ctx, path, save, out) > 0 {
				return out, nil
			}
		}
		return nil, err
	}
	var before map[string]*diagEntry
	seq0 := 0
	if save {
		before, seq0 = in.publications()
	}
	out, err := s.diagnoseFile(ctx, in, path, save, notes)
	if err == nil {
		out.NeedsTypes = in.spec.AnalysisNeedsTypes
	}
	if err == nil && save {
		s.addOthers(in, path, out, before, seq0)
	}
	if err == nil {
		s.addLinters(ctx, path, save, out)
	}
	return out, err
}

func (s *Supervisor) diagnoseFile(ctx context.Context, in *instance, path string, save bool, notes []string) (*Diagnostics, error) {
	if err := s.resyncOpen(ctx, in); err != nil {
		return nil, s.failed(in, err, notes)
	}
	version, seq, _, err := s.syncDoc(ctx, in, path, save)
	if err != nil {
		return nil, s.failed(in, err, notes)
	}
	if len(in.spec.Refresh) == 0 && !in.spec.PullDiagnostics {
		// A pull answer accounts for every change sent; nothing to touch.
		v, sq, touched, err := s.touch(ctx, in, path)
		if err != nil {
			return nil, s.failed(in, err, notes)
		}
		if touched {
			version, seq = v, sq
		}
	}
	if err := s.ready(ctx, in); err != nil {
		return nil, s.failed(in, err, notes)
	}
	refreshed, err := s.refresh(ctx, in, path)
	if err != nil {
		if dead, _ := in.dead(); dead || ctx.Err() != nil {
			return nil, s.failed(in, err, notes)
		}
		// Fall back to waiting for a publication, saying what it may miss.
		notes = append(notes, reason(err)+"; these diagnostics may predate changes to other files")
	}
	if refreshed {
		// Everything the server had to publish for path arrived before
		// its answer.
		uri := pathToURI(path)
		in.mu.Lock()
		e := in.diags[uri]
		in.mu.Unlock()
		if e != nil {
			return s.wholeSet(in, uri, e.diags, notes), nil
		}
	}
	return s.collect(ctx, in, path, version, seq, notes)
}

// publications returns the last publication for each URI and the
// publication sequence number now.
func (in *instance) publications() (map[string]*diagEntry, int) {
	in.mu.Lock()
	defer in.mu.Unlock()
	m := make(map[string]*diagEntry, len(in.diags))
	for uri, e := range in.diags {
		m[uri] = e
	}
	return m, in.pubSeq
}

// addOthers sets out.Others to the files other than path that in's server
// published diagnostics for after seq0, with their publications from
// before (a publication replaces an entry, never changes it).
func (s *Supervisor) addOthers(in *instance, path string, out *Diagnostics, before map[string]*diagEntry, seq0 int) {
	self := pathToURI(path)
	now, _ := in.publications()
	var uris []string
	for uri, e := range now {
		if uri == self || e.seq <= seq0 || uriToPath(uri) == "" {
			continue
		}
		if _, err := s.abs(uriToPath(uri)); err != nil {
			continue // outside the workspace (the module cache, GOROOT)
		}
		uris = append(uris, uri)
	}
	sort.Strings(uris)
	if len(uris) > maxOtherFiles {
		out.OthersCut = len(uris) - maxOtherFiles
		uris = uris[:maxOtherFiles]
	}
	files := fileCache{}
	conv := func(uri string, ws []wDiagnostic) []Diagnostic {
		ds := make([]Diagnostic, 0, len(ws))
		for _, d := range ws {
			ds = append(ds, s.diagnostic(files, in.enc, uri, d))
		}
		sortDiagnostics(ds)
		return ds
	}
	for _, uri := range uris {
		o := OtherFile{Path: s.rel(uriToPath(uri)), Items: conv(uri, now[uri].diags), Whole: len(in.spec.Refresh) > 0}
		if b := before[uri]; b != nil {
			o.Before, o.HadBefore = conv(uri, b.diags), true
		}
		out.Others = append(out.Others, o)
	}
}

// refresh runs in.spec's Refresh commands for path when anything was sent
// to the server since they last ran for it (path's own change, other
// documents, files changed on disk: a change elsewhere may make the last
// publication for path stale), so that the server's publications are up to
// date when it answers. It reports whether it ran them.
func (s *Supervisor) refresh(ctx context.Context, in *instance, path string) (bool, error) {
	if len(in.spec.Refresh) == 0 {
		return false, nil
	}
	uri := pathToURI(path)
	in.mu.Lock()
	d := in.docs[uri]
	edits := in.edits
	in.mu.Unlock()
	if d == nil || d.refreshed == edits {
		return false, nil
	}
	for _, c := range in.spec.Refresh {
		args, _ := expandFile(c.Arguments, path).([]any)
		// Bounded as a wait for diagnostics is: in a large workspace the
		// server may take long, and then the publications are awaited.
		if _, err := in.call(ctx, s.diagTimeout, "workspace/executeCommand", map[string]any{"command": c.Command, "arguments": args}); err != nil {
			return false, fmt.Errorf("lsp: asking %s to bring the diagnostics of %s up to date failed: %w", in.spec.Name, s.rel(path), err)
		}
	}
	in.mu.Lock()
	d.refreshed = edits
	in.mu.Unlock()
	return true, nil
}

func (s *Supervisor) collect(ctx context.Context, in *instance, path string, version, seq int, notes []string) (*Diagnostics, error) {
	uri := pathToURI(path)
	if in.spec.PullDiagnostics {
		ds, err := s.pullDiagnostics(ctx, in, path)
		if err != nil {
			return nil, s.failed(in, err, notes)
		}
		return s.wholeSet(in, uri, ds, notes), nil
	}
	if ds, ok := s.pullCheck(ctx, in, path); ok {
		return s.wholeSet(in, uri, ds, notes), nil
	}
	if s.stillClean(ctx, in, path, seq) {
		return &Diagnostics{Ready: true, Notes: notes}, nil
	}
	e, ok, err := s.waitDiagnostics(ctx, in, uri, version, seq, s.diagTimeout)
	if err != nil {
		return nil, fmt.Errorf("lsp: waiting for diagnostics of %s: %w", s.rel(path), err)
	}
	if dead, _ := in.dead(); dead {
		return nil, s.failed(in, fmt.Errorf("lsp: no diagnostics for %s", s.rel(path)), notes)
	}
	out := &Diagnostics{Ready: ok, Notes: notes}
	if ok && in.spec.PartialPublish {
		out.Partial = fmt.Sprintf("%s's publication may hold part of the diagnostics of %s, and its own check did not answer", in.spec.Name, s.rel(path))
	}
	if !ok {
		out.Waited = s.diagTimeout
		out.Notes = append(out.Notes, fmt.Sprintf("diagnostics not ready after %s for %s: %s did not publish them for this version; what follows may be stale", s.diagTimeout, s.rel(path), in.spec.Name))
	}
	if e != nil {
		files := fileCache{}
		for _, d := range e.diags {
			out.Items = append(out.Items, s.diagnostic(files, in.enc, uri, d))
		}
	}
	sortDiagnostics(out.Items)
	return out, nil
}

// wholeSet is the answer for the file of uri when ds are all its
// diagnostics, known to be current: ready, converted and sorted.
func (s *Supervisor) wholeSet(in *instance, uri string, ds []wDiagnostic, notes []string) *Diagnostics {
	out := &Diagnostics{Ready: true, Notes: notes}
	files := fileCache{}
	for _, d := range ds {
		out.Items = append(out.Items, s.diagnostic(files, in.enc, uri, d))
	}
	sortDiagnostics(out.Items)
	return out
}

// pullCheck runs in.spec's CleanCheck requests, when their answers are
// tsserver diagnostics ({"body": [{start, end, text, code, category}]}), and
// returns those as path's diagnostics: computed now, after every change sent
// (tsserver orders its requests after open and change), where a publication
// may combine a fresh kind of diagnostic (syntactic) with a stale one
// (semantic, after another file changed). ok is false when a request failed
// or answered something else: then the publication is awaited.
func (s *Supervisor) pullCheck(ctx context.Context, in *instance, path string) ([]wDiagnostic, bool) {
	if len(in.spec.CleanCheck) == 0 {
		return nil, false
	}
	type tsLoc struct {
		Line   int `json:"line"`
		Offset int `json:"offset"`
	}
	out := []wDiagnostic{}
	for _, c := range in.spec.CleanCheck {
		args, _ := expandFile(c.Arguments, path).([]any)
		raw, err := in.call(ctx, s.requestTimeout, "workspace/executeCommand", map[string]any{"command": c.Command, "arguments": args})
		if err != nil {
			return nil, false
		}
		var ans struct {
			Body *[]struct {
				Start    *tsLoc          `json:"start"`
				End      *tsLoc          `json:"end"`
				Text     string          `json:"text"`
				Code     json.RawMessage `json:"code"`
				Category string          `json:"category"`
				Source   string          `json:"source"`
			} `json:"body"`
		}
		if json.Unmarshal(raw, &ans) != nil || ans.Body == nil {
			return nil, false
		}
		for _, d := range *ans.Body {
			if d.Start == nil || d.End == nil {
				return nil, false
			}
			sev := 1 // as typescript-language-server maps categories
			switch d.Category {
			case "warning":
				sev = 2
			case "suggestion":
				sev = 4
			}
			src := d.Source
			if src == "" {
				src = "typescript"
			}
			out = append(out, wDiagnostic{
				Range: wRange{Start: wPosition{Line: d.Start.Line - 1, Character: d.Start.Offset - 1},
					End: wPosition{Line: d.End.Line - 1, Character: d.End.Offset - 1}},
				Severity: sev, Code: d.Code, Source: src, Message: d.Text})
		}
	}
	return out, true
}

// stillClean reports whether in's CleanCheck confirms that path, whose last
// publication (before the change sent after seq) was empty, still has no
// diagnostics. Any doubt (no check, a failed request, a non-empty answer)
// is false: then the publication is awaited.
func (s *Supervisor) stillClean(ctx context.Context, in *instance, path string, seq int) bool {
	if len(in.spec.CleanCheck) == 0 {
		return false
	}
	in.mu.Lock()
	e := in.diags[pathToURI(path)]
	in.mu.Unlock()
	if e == nil || e.seq > seq || len(e.diags) > 0 {
		return false // never published, already answered, or not clean before
	}
	for _, c := range in.spec.CleanCheck {
		args, _ := expandFile(c.Arguments, path).([]any)
		raw, err := in.call(ctx, s.requestTimeout, "workspace/executeCommand", map[string]any{"command": c.Command, "arguments": args})
		if err != nil || !emptyAnswer(raw) {
			return false
		}
	}
	return true
}

func sortDiagnostics(ds []Diagnostic) {
	rank := map[string]int{"error": 0, "warning": 1, "info": 2, "hint": 3}
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if rank[a.Severity] != rank[b.Severity] {
			return rank[a.Severity] < rank[b.Severity]
		}
		return a.Line < b.Line
	})
}

// Seen is a run's registry of diagnostics already reported, per file,
// keyed by (severity, code, message) with the position deliberately
// excluded (a diagnostic that merely moved is not new) and the message
// compared by meaning (its first line, NormalizeMessage: a union printed
// in another order is the same type), and counted: a key
// whose count in a file grows is new once per extra occurrence, so two
// identical errors on two lines are two. It is safe for concurrent use.
type Seen struct {
	mu sync.Mutex
	m  map[string]map[[3]string]int // file -> key -> occurrences known
	// unshown holds, per file, the new occurrences the last FreshN left
	// out (over its max): not known, so still new next time, but when
	// they vanish they were cleared all the same.
	unshown map[string]map[[3]string]int
}

func seenKey(d Diagnostic) [3]string {
	return [3]string{d.Severity, d.Code, NormalizeMessage(messageHead(d.Message))}
}

// messageHead is a message's first line. The lines below it elaborate
// (tsserver's "Type 'Beta' is not assignable to type 'number'." under
// "Type 'Beta | Alpha' is not assignable ...") and name the first member
// of a union that fails, which changes with the order the checker made
// the members in; the first line names the types.
func messageHead(msg string) string {
	head, _, _ := strings.Cut(msg, "\n")
	return strings.TrimSpace(head)
}

// Known reports whether file's diagnostics were recorded before (reported,
// or taken as its baseline).
func (s *Seen) Known(file string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[file]
	return ok
}

// Baseline records ds as file's diagnostics as they were before a change,
// without reporting them, unless file was recorded before: what the change
// did not cause is then not new.
func (s *Seen) Baseline(file string, ds []Diagnostic) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[file]; ok {
		return
	}
	if s.m == nil {
		s.m = map[string]map[[3]string]int{}
	}
	known := map[[3]string]int{}
	for _, d := range ds {
		known[seenKey(d)]++
	}
	s.m[file] = known
}

// Move records that the file from is now to (a rename or a move): what
// was known of from is known of to, and nothing of from, which is gone.
// A file moved carries its diagnostics with it; none is new or cleared
// for the move alone.
func (s *Seen) Move(from, to string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if known, ok := s.m[from]; ok {
		s.m[to] = known
		delete(s.m, from)
	}
	if u, ok := s.unshown[from]; ok {
		s.unshown[to] = u
		delete(s.unshown, from)
	}
}

// FreshN takes ds, file's current diagnostics, and returns those not
// reported before, at most max (all when max < 0), recording them: a key
// known n times shows its occurrences after the first n. Only the
// diagnostics returned are recorded, so one left out is still new next
// time; more counts the new ones left out. A key whose count fell (a fix)
// is known that many times now, so breaking it again is new.
func (s *Seen) FreshN(file string, ds []Diagnostic, max int) (shown []Diagnostic, more int) {
	return s.FreshNHolding(file, ds, max, false)
}

// FreshNHolding is FreshN that, when hold, keeps the file's known
// diagnostics other than errors known though ds lacks them: they were not
// computed (a package with type errors, Diagnostics.NeedsTypes), and when
// they come back they are not new.
func (s *Seen) FreshNHolding(file string, ds []Diagnostic, max int, hold bool) (shown []Diagnostic, more int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]map[[3]string]int{}
	}
	known := s.m[file]
	count := map[[3]string]int{}
	added := map[[3]string]int{}
	for _, d := range ds {
		k := seenKey(d)
		count[k]++
		if count[k] <= known[k] {
			continue
		}
		if max >= 0 && len(shown) >= max {
			more++
			continue
		}
		added[k]++
		shown = append(shown, d)
	}
	next := make(map[[3]string]int, len(count))
	for k, c := range count {
		if n := min(known[k], c) + added[k]; n > 0 {
			next[k] = n
		}
	}
	if hold {
		for k, c := range known {
			if k[0] != "error" && next[k] < c {
				next[k] = c
			}
		}
	}
	s.m[file] = next
	left := map[[3]string]int{}
	for k, c := range count {
		if d := c - next[k]; d > 0 {
			left[k] = d
		}
	}
	if s.unshown == nil {
		s.unshown = map[string]map[[3]string]int{}
	}
	s.unshown[file] = left
	return shown, more
}

// Cleared returns how many of the diagnostics recorded for file (reported,
// or taken as its baseline) are not among ds, its current diagnostics: what
// a change fixed. Call it before FreshN records ds.
func (s *Seen) Cleared(file string, ds []Diagnostic) int {
	n, _ := s.ClearedHolding(file, ds, false)
	return n
}

// ClearedHolding is Cleared that, when hold, counts the known diagnostics
// other than errors that ds lacks apart, as held (not computed, not
// fixed: see FreshNHolding).
func (s *Seen) ClearedHolding(file string, ds []Diagnostic, hold bool) (cleared, held int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	had := map[[3]string]int{}
	for k, c := range s.m[file] {
		had[k] += c
	}
	for k, c := range s.unshown[file] {
		had[k] += c
	}
	if len(had) == 0 {
		return 0, 0
	}
	count := map[[3]string]int{}
	for _, d := range ds {
		count[seenKey(d)]++
	}
	for k, c := range had {
		gone := max(c-count[k], 0)
		if hold && k[0] != "error" {
			held += gone
		} else {
			cleared += gone
		}
	}
	return cleared, held
}

// addLinters adds to out the diagnostics of path from every linter row
// serving it whose root marker is found (the project lints with it), each
// marked with its source (the row's name when the linter gives none). A
// linter that cannot start or answer adds a note saying so: its silence is
// never taken for a clean file. It returns how many linters answered.
func (s *Supervisor) addLinters(ctx context.Context, path string, save bool, out *Diagnostics) (answered int) {
	added := false
	for _, spec := range s.servers {
		if !spec.Linter || !spec.serves(path) {
			continue
		}
		root, marker := s.rootFor(spec, path)
		if root == "" {
			continue
		}
		in, notes, err := s.acquireRoot(ctx, spec, root, marker)
		out.Notes = append(out.Notes, notes...)
		if err != nil {
			out.Notes = append(out.Notes, fmt.Sprintf("no %s diagnostics: %s", spec.Name, reason(err)))
			if !errors.Is(err, ErrNoServer) && out.Partial == "" {
				out.Partial = spec.Name + " did not answer"
			}
			continue
		}
		d, err := s.diagnoseFile(ctx, in, path, save, nil)
		if err != nil {
			out.Notes = append(out.Notes, fmt.Sprintf("no %s diagnostics: %s", spec.Name, reason(err)))
			if out.Partial == "" {
				out.Partial = spec.Name + " did not answer"
			}
			continue
		}
		// A linter that did not publish in time says so in its notes; the
		// file's own server's answer stands, but is not a whole set.
		if whole, why := d.Whole(); !whole && out.Partial == "" {
			out.Partial = spec.Name + ": " + why
		}
		answered++
		out.Notes = append(out.Notes, d.Notes...)
		for _, it := range d.Items {
			if it.Source == "" {
				it.Source = spec.Name
			}
			out.Items = append(out.Items, it)
			added = true
		}
	}
	if added {
		sortDiagnostics(out.Items)
	}
	return answered
}

// pullDiagnostics asks in's server for path's diagnostics with
// textDocument/diagnostic (LSP 3.17), for a server that publishes none
// (vscode-eslint-language-server, pyright once told the client pulls):
// the answer is the whole set, computed after every change sent before it.
func (s *Supervisor) pullDiagnostics(ctx context.Context, in *instance, path string) ([]wDiagnostic, error) {
	// The server analyses the file to the end before it answers (a cold
	// pyright checks a 5,000-line file with its imports first): bounded as
	// a checker run is, however short the wait for a publication is set.
	raw, err := in.call(ctx, max(s.diagTimeout, s.requestTimeout, s.checkerTimeout), "textDocument/diagnostic", map[string]any{"textDocument": map[string]string{"uri": pathToURI(path)}})
	if err != nil {
		return nil, fmt.Errorf("lsp: asking %s for the diagnostics of %s: %w", in.spec.Name, s.rel(path), err)
	}
	var rep struct {
		Kind  string        `json:"kind"`
		Items []wDiagnostic `json:"items"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil || rep.Kind != "full" {
		return nil, fmt.Errorf("lsp: %s answered textDocument/diagnostic for %s with no full report (%.200s)", in.spec.Name, s.rel(path), raw)
	}
	return rep.Items, nil
}
