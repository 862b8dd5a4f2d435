package tools

import "context"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "slices"
import "sort"
import "strings"
import "sync"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/inject"

// maxWriteDiagnostics bounds the new diagnostics a write (or a rename) adds
// to its result, over all its files.
const maxWriteDiagnostics = 50

// WriteDiagnostics is what diagnostics on write found after a call that
// wrote files (Result.Diagnostics): the diagnostics it caused, what it
// fixed, and which files could not be compared. Paths are
// workspace-relative with forward slashes.
type WriteDiagnostics struct {
	// New are the diagnostics the write caused, in the written files and
	// in others, as shown (at most maxWriteDiagnostics); More counts
	// those left out.
	New  []lsp.Diagnostic
	More int
	// Cleared counts, per file, the diagnostics the write fixed.
	Cleared map[string]int
	// Checked are the files whose whole sets before and after the write
	// were compared.
	Checked []string
	// Incomplete are the files whose diagnostics after the write could
	// not be had whole, and why: nothing of theirs is in New or Cleared.
	Incomplete map[string]string
	// Unknown are the files without a whole set from before the write,
	// and why: their diagnostics are listed apart (Unlisted), not in New.
	Unknown  map[string]string
	Unlisted []lsp.Diagnostic
	// NotChecked are the other files that mention a changed declaration
	// and were not diagnosed (more than the bound): the report names them.
	NotChecked []string
	// SearchIncomplete says why the search for the other files a write
	// can break stopped short ("" when it did not): files it did not reach
	// were not checked, and are not named in NotChecked.
	SearchIncomplete string
	// Unseen are written files whose change lies where their server does
	// not look (a C header's section under a conditional only an includer
	// enables), and why: their diagnostics hold for the rest of the file.
	Unseen map[string]string
	// Held counts, per file, the warnings that vanished while its package
	// has type errors, from a server that computes them only for code
	// that type-checks (gopls's analyzers): not computed, not fixed, so
	// neither cleared nor, when they come back, new.
	Held map[string]int
	// Formatted is what format on write did to each written file whose
	// server formats on write (lsp.WithFormatOnWrite), before the
	// diagnostics above were taken; nil when it is off.
	Formatted []FormatOutcome
}

func newWriteDiagnostics() *WriteDiagnostics {
	return &WriteDiagnostics{Cleared: map[string]int{}, Incomplete: map[string]string{}, Unknown: map[string]string{}, Unseen: map[string]string{}, Held: map[string]int{}}
}

// writeCall is what diagnostics on write learned of one call's files
// before it wrote them.
type writeCall struct {
	mu    sync.Mutex
	taken map[string]bool   // files prepared, by seenPath
	old   map[string][]byte // their content before the write, when they existed
	// unknown are the files whose diagnostics before the write could not
	// be had, and why: none of theirs can be told new.
	unknown map[string]string
	// movedFrom holds, for each file the write moved, where it was.
	movedFrom map[string]string
}

func newWriteCall() *writeCall {
	return &writeCall{taken: map[string]bool{}, old: map[string][]byte{}, unknown: map[string]string{}, movedFrom: map[string]string{}}
}

// moved carries what was learned of each file the call moved (res's
// FileChanges with MovedFrom) to its new path: its old content and its
// baseline, so that a move alone makes none of its diagnostics new, and
// the move itself, so that what imported it by its old path is checked.
func (l *lspTools) moved(w *writeCall, res *Result) {
	for _, c := range ChangedFiles(res) {
		if c.MovedFrom == "" {
			continue
		}
		from, to := l.seenPath(c.MovedFrom), l.seenPath(c.Path)
		w.mu.Lock()
		if old, ok := w.old[from]; ok {
			w.old[to] = old
		}
		if why, ok := w.unknown[from]; ok {
			w.unknown[to] = why
			delete(w.unknown, from)
		}
		w.movedFrom[to] = from
		w.mu.Unlock()
		l.seen.Move(from, to)
	}
}

// movedAway returns the old path of one of written that the call moved,
// "" when it moved none of them.
func (w *writeCall) movedAway(l *lspTools, written []string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, f := range written {
		if from := w.movedFrom[l.seenPath(f)]; from != "" {
			return from
		}
	}
	return ""
}

func (w *writeCall) unknownWhy(key string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.unknown[key]
}

// seenPath is the key of a workspace file in the run's Seen registry: its
// workspace-relative path with forward slashes.
func (l *lspTools) seenPath(p string) string {
	if l.root != nil {
		if _, rel, err := l.root.Resolve(p); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// prepare keeps, for each of paths about to be written, its content now
// and (unless this run looked at it before) its diagnostics now, as its
// baseline: what was wrong before is not what the write caused. A file
// that does not exist yet has neither (all its diagnostics will be new);
// one whose diagnostics could not be had is marked unknown.
func (l *lspTools) prepare(ctx context.Context, w *writeCall, paths []string) {
	var wg sync.WaitGroup
	for _, p := range paths {
		key := l.seenPath(p)
		w.mu.Lock()
		done := w.taken[key]
		w.taken[key] = true
		w.mu.Unlock()
		if done || l.root == nil {
			continue
		}
		old, err := l.root.ReadFile(key)
		if err != nil {
			continue // created by the write, or not a file
		}
		if len(old) <= lsp.AffectedScanBytes {
			w.mu.Lock()
			w.old[key] = old
			w.mu.Unlock()
		}
		if l.seen.Known(key) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			why := ""
			d, err := l.diagnoseNow(ctx, key, old)
			switch {
			case errors.Is(err, lsp.ErrNoLanguage) || errors.Is(err, lsp.ErrNoServer):
				return // no server reads it: nothing to compare
			case err != nil:
				why = strings.TrimPrefix(err.Error(), "lsp: ")
			default:
				whole, partial := d.Whole()
				if !whole {
					why = "not a whole set: " + partial
					break
				}
				items, _ := errorsAndWarnings(d.Items)
				l.seen.Baseline(key, items)
				return
			}
			w.mu.Lock()
			w.unknown[key] = why
			w.mu.Unlock()
		}()
	}
	wg.Wait()
}

// prepareMoves takes, before plan moves files, the baseline of the files
// the move can break or fix: those that mention the moved files' module
// or file names, old or new (their importers), or a declaration plan
// changes (on an import line it rewrites), as afterWrite finds them. A
// server resolves imports on disk, so after the move their state before
// it cannot be shown to it (baselineAffected).
func (l *lspTools) prepareMoves(ctx context.Context, w *writeCall, plan *search.Plan) {
	if l.root == nil || plan == nil {
		return
	}
	var written []lsp.WrittenFile
	moving := false
	for _, c := range plan.Changes {
		if c.Create || c.Delete || len(c.Old) > lsp.AffectedScanBytes || len(c.New) > lsp.AffectedScanBytes {
			continue
		}
		wf := lsp.WrittenFile{Path: l.seenPath(l.run.rel(c.Path)), Old: c.Old, Now: c.New}
		if c.From != "" {
			moving = true
			wf.Path, wf.Moved = l.seenPath(l.run.rel(c.From)), wf.Path
		}
		written = append(written, wf)
	}
	if !moving {
		return
	}
	l.prepare(ctx, w, l.affectedFiles(ctx, written).Files)
}

// writtenFiles are the files call wrote that still exist: those its result
// reports (FileChanges), else those it declared that exist now.
func (l *lspTools) writtenFiles(res *Result, declared []string) []string {
	var files []string
	if changed := ChangedFiles(res); changed != nil {
		for _, c := range changed {
			if c.Action != "deleted" {
				files = append(files, c.Path)
			}
		}
		return files
	}
	for _, p := range declared {
		if l.root == nil {
			break
		}
		if real, _, err := l.root.Resolve(p); err == nil {
			if fi, err := os.Stat(real); err == nil && fi.Mode().IsRegular() && !slices.Contains(files, l.seenPath(p)) {
				files = append(files, l.seenPath(p))
			}
		}
	}
	return files
}

// diagnosticsOnWrite is the middleware on every tool that declares the
// files it writes (Tool.Writes: write, edit, apply_patch, resolve,
// lsp_rename, and any other). Before the write it takes the baseline of
// the files about to change (those the call declares, and those the tool
// names with WillWrite as it runs). After a successful write it syncs and
// saves each written file through its server and waits (bounded) for that
// version's diagnostics; it then diagnoses the other files that mention a
// declaration the write changed (callers, importers: servers such as
// pyright and tsserver diagnose only the files open in them), with their
// baseline taken against the written files' old text, and appends only
// the diagnostics not reported before in this run, what the write
// cleared, and which files were not checked.
func (l *lspTools) diagnosticsOnWrite(next Handler) Handler {
	return func(ctx context.Context, call *Call) (*Result, error) {
		w := newWriteCall()
		declared := declaredWrites(l.run.reg, call)
		l.prepare(ctx, w, declared)
		hooked := withWillWrite(ctx, func(paths []string) { l.prepare(ctx, w, paths) })
		hooked = withWillMove(hooked, func(plan *search.Plan) { l.prepareMoves(ctx, w, plan) })
		res, err := next(hooked, call)
		if err != nil || res == nil || res.IsError {
			return res, err
		}
		res.Diagnostics = newWriteDiagnostics()
		l.moved(w, res)
		files := l.writtenFiles(res, declared)
		// Format on write comes first: the diagnostics are the formatted
		// files'.
		formatted, lines := l.formatWritten(ctx, files)
		res.Diagnostics.Formatted = formatted
		lines = append(lines, l.afterWrite(ctx, w, files, res.Diagnostics)...)
		if len(lines) > 0 {
			res.Content = append(res.Content, Content{Type: TextContent, Text: "lsp: " + strings.Join(lines, "\nlsp: ")})
		}
		return res, nil
	}
}

// diagnoseAll runs diag on each of files at once (the bound applies once).
func diagnoseAll(files []string, diag func(string) (*lsp.Diagnostics, error)) ([]*lsp.Diagnostics, []error) {
	diags := make([]*lsp.Diagnostics, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			diags[i], errs[i] = diag(f)
		}()
	}
	wg.Wait()
	return diags, errs
}

// afterWrite diagnoses files, just written, and the other files the write
// can have broken, and says what is new, what was cleared and what was not
// checked.
func (l *lspTools) afterWrite(ctx context.Context, w *writeCall, files []string, rep *WriteDiagnostics) []string {
	written := l.written(w, files)
	aff := l.affectedFiles(ctx, written)
	otherUnknown := l.baselineAffected(ctx, w, files, aff.Files)
	diags, errs := diagnoseAll(files, func(f string) (*lsp.Diagnostics, error) { return l.diagnoseWritten(ctx, f) })
	var lines, clean []string
	for _, wf := range written {
		if why := l.sup.HiddenHeaderChange(ctx, lspParser(l.parser), changedRanges, wf); why != "" {
			rep.Unseen[wf.Path] = why
		}
	}
	// The directories (Go packages) with errors after the write, where a
	// server whose analyzers need types computed no warnings.
	errDirs := map[string]bool{}
	for i, d := range diags {
		if d == nil {
			continue
		}
		noteErrDirs(errDirs, l.seenPath(files[i]), d.Items)
		for _, o := range d.Others {
			noteErrDirs(errDirs, l.seenPath(o.Path), o.Items)
		}
	}
	budget := maxWriteDiagnostics // for the whole call, however many files
	for i, path := range files {
		d, err := diags[i], errs[i]
		if err != nil {
			if line, show := l.notChecked(path, err); show {
				lines = append(lines, line)
			}
			continue
		}
		lines = append(lines, d.Notes...)
		key := l.seenPath(path)
		if whole, why := d.Whole(); !whole {
			// A part of a set compared with a whole one would call what
			// it lacks cleared, and what it has next time new: the file's
			// record stays as it was.
			lines = append(lines, incompleteLine(path, why))
			rep.Incomplete[key] = why
			continue
		}
		items, _ := errorsAndWarnings(d.Items)
		hold := d.NeedsTypes && errDirs[pathDir(key)]
		cleared, held := l.seen.ClearedHolding(key, items, hold)
		fresh, more := l.seen.FreshNHolding(key, items, budget, hold)
		if held > 0 {
			rep.Held[key] = held
		}
		budget -= len(fresh)
		if why := w.unknownWhy(key); why != "" {
			rep.Unknown[key] = why
			rep.Unlisted = append(rep.Unlisted, fresh...)
		} else {
			rep.Checked = append(rep.Checked, key)
			rep.New = append(rep.New, fresh...)
			rep.More += more
			if cleared > 0 {
				rep.Cleared[key] = cleared
			}
		}
		tail := ""
		if cleared > 0 {
			tail = fmt.Sprintf(" (%d diagnostic(s) cleared)", cleared)
		}
		switch why := w.unknownWhy(key); {
		case why != "" && len(fresh)+more > 0:
			head := fmt.Sprintf("baseline unknown for %s (its diagnostics before the write could not be had: %s): all its %d diagnostic(s) are listed, old and new alike", path, why, len(fresh)+more)
			if more > 0 {
				head += fmt.Sprintf(" (%d shown; ask lsp diagnostics for %s for the rest)", len(fresh), path)
			}
			lines = append(lines, head+":")
			lines = append(lines, groupedLines(fresh, "  ")...)
		case len(fresh) > 0 || more > 0:
			if more > 0 {
				lines = append(lines, fmt.Sprintf("new diagnostics in %s (%d of %d shown; ask lsp diagnostics for %s for the rest)%s:", path, len(fresh), len(fresh)+more, path, tail))
			} else {
				lines = append(lines, fmt.Sprintf("new diagnostics in %s%s:", path, tail))
			}
			lines = append(lines, groupedLines(fresh, "  ")...)
		case d.Ready && len(items) == 0 && rep.Unseen[key] != "":
			lines = append(lines, fmt.Sprintf("%s: no errors or warnings where checked%s", path, tail))
		case d.Ready && len(items) == 0 && tail == "":
			clean = append(clean, path)
		case d.Ready && len(items) == 0:
			lines = append(lines, fmt.Sprintf("%s: no errors or warnings%s", path, tail))
		case d.Ready:
			lines = append(lines, fmt.Sprintf("%s: no new diagnostics (%d already reported)%s", path, len(items), tail))
		}
	}
	switch {
	case len(clean) == 1:
		lines = append(lines, fmt.Sprintf("%s: no errors or warnings", clean[0]))
	case len(clean) > 1:
		lines = append(lines, fmt.Sprintf("%d files clean (no errors or warnings)", len(clean)))
	}
	for _, path := range files {
		if why := rep.Unseen[l.seenPath(path)]; why != "" {
			lines = append(lines, fmt.Sprintf("%s: not checked where it changed: %s", path, why))
		}
	}
	lines = append(lines, l.otherFiles(ctx, files, diags, aff, otherUnknown, budget, errDirs, rep)...)
	if len(rep.Held) > 0 {
		var parts []string
		for _, k := range sortedKeys(rep.Held) {
			parts = append(parts, fmt.Sprintf("%s (%d)", k, rep.Held[k]))
		}
		lines = append(lines, "warnings not re-checked while their package has type errors (the server's analyzers run only on code that type-checks; they are neither cleared nor new): "+strings.Join(parts, ", "))
	}
	return lines
}

// noteErrDirs adds the directory of file to dirs when items hold an error.
func noteErrDirs(dirs map[string]bool, file string, items []lsp.Diagnostic) {
	if slices.ContainsFunc(items, func(d lsp.Diagnostic) bool { return d.Severity == "error" }) {
		dirs[pathDir(file)] = true
	}
}

// pathDir is the directory of a workspace key, "." for the root.
func pathDir(key string) string { return filepath.ToSlash(filepath.Dir(key)) }

// baselineAffected takes the baseline of the affected files this run has
// not looked at: the written files are shown to their servers with their
// text from before the write (not on disk: ShowContent), and those files
// diagnosed; after a move there is no such view (the files' baseline is
// what prepareMoves took, else unknown). It returns the files whose
// baseline could not be had, and why.
func (l *lspTools) baselineAffected(ctx context.Context, w *writeCall, written, affected []string) map[string]string {
	var need []string
	for _, f := range affected {
		if !l.seen.Known(l.seenPath(f)) {
			need = append(need, f)
		}
	}
	unknown := map[string]string{}
	if len(need) == 0 {
		return unknown
	}
	if from := w.movedAway(l, written); from != "" {
		// A server resolves imports on disk, where a moved file is only
		// at its new path now: shown the old text (importing the old
		// path), it would check the others against neither layout
		// (tsserver finds no module at the old path, and an interface
		// extending one of its types loses its members), and what it
		// reported would be told cleared. Their baseline is what
		// prepareMoves took before the move, or none.
		for _, n := range need {
			unknown[l.seenPath(n)] = fmt.Sprintf("the state before the move cannot be shown to its server, which resolves imports on disk, where %s no longer exists", from)
		}
		return unknown
	}
	// The view keeps other sessions sharing the servers from seeing the
	// old text, and is released (the old text undone) on return.
	ctx, release, err := l.sup.View(ctx)
	if err != nil {
		for _, n := range need {
			unknown[l.seenPath(n)] = strings.TrimPrefix(err.Error(), "lsp: ")
		}
		return unknown
	}
	defer release()
	for _, f := range written {
		key := l.seenPath(f)
		w.mu.Lock()
		old, had := w.old[key]
		w.mu.Unlock()
		if !had {
			continue // created: the others did not see it before either way
		}
		undo, err := l.sup.ShowContent(ctx, key, old)
		defer undo()
		if err != nil && !errors.Is(err, lsp.ErrNoLanguage) {
			for _, n := range need {
				unknown[l.seenPath(n)] = "showing the server " + key + " as it was failed: " + strings.TrimPrefix(err.Error(), "lsp: ")
			}
			return unknown
		}
	}
	diags, errs := diagnoseAll(need, func(f string) (*lsp.Diagnostics, error) { return l.diagnoseFileNow(ctx, f) })
	for i, f := range need {
		key := l.seenPath(f)
		switch d, err := diags[i], errs[i]; {
		case err != nil:
			unknown[key] = strings.TrimPrefix(err.Error(), "lsp: ")
		default:
			if whole, why := d.Whole(); !whole {
				unknown[key] = "not a whole set: " + why
				continue
			}
			items, _ := errorsAndWarnings(d.Items)
			l.seen.Baseline(key, items)
		}
	}
	return unknown
}

// notChecked says why path's diagnostics could not be looked at, once per
// reason for a server that cannot start; show is false when there is
// nothing to say (no server reads such files, or it was said before). A
// notebook's is said each time: its code has no server of its own, and a
// notebook left unchecked looks like a clean one.
func (l *lspTools) notChecked(path string, err error) (line string, show bool) {
	if inject.IsNotebook(path) {
		return fmt.Sprintf("diagnostics not checked for %s (its code cells were not checked): %s", path, strings.TrimPrefix(strings.TrimPrefix(err.Error(), "tools: "), "lsp: ")), true
	}
	if errors.Is(err, lsp.ErrNoLanguage) {
		return "", false // not a file any server reads
	}
	if errors.Is(err, lsp.ErrNoServer) {
		l.mu.Lock()
		told := l.noted[err.Error()]
		l.noted[err.Error()] = true
		l.mu.Unlock()
		if told {
			return "", false
		}
	}
	return fmt.Sprintf("diagnostics not checked for %s: %s", path, strings.TrimPrefix(err.Error(), "lsp: ")), true
}

// incompleteLine says that path's diagnostics could not be had whole,
// and so none is told new or cleared.
func incompleteLine(path, why string) string {
	return fmt.Sprintf("diagnostics incomplete for %s (%s): none of its diagnostics is listed as new or cleared; ask lsp diagnostics for %s", path, why, path)
}

// sameDiagnostics reports whether a and b hold the same diagnostics, as
// Seen compares them (positions aside, messages by meaning).
func sameDiagnostics(a, b []lsp.Diagnostic) bool {
	if len(a) != len(b) {
		return false
	}
	var s lsp.Seen
	s.Baseline("f", a)
	return s.Cleared("f", b) == 0
}

// nameList is names for a sentence, at most five of them.
func nameList(names []string) string {
	if len(names) > 5 {
		return strings.Join(names[:5], ", ") + fmt.Sprintf(" (and %d more names)", len(names)-5)
	}
	return strings.Join(names, ", ")
}

// sortedKeys returns m's keys, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
