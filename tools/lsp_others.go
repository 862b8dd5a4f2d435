package tools

import "context"
import "errors"
import "fmt"
import "io/fs"
import "os"
import "slices"
import "sort"
import "strings"

import "github.com/tetherhq/tether/bridges/lsp"

// otherFiles reports what the write did to files it did not touch: the
// affected files (aff: those that mention a changed declaration), diagnosed
// now, and those the server published for after the write (gopls
// diagnoses the whole workspace), a file never looked at before getting
// its last publication from before the write as its baseline. It lists at
// most budget new diagnostics, sorted by file, counts those cleared, lists
// those of files whose baseline is unknown (otherUnknown) apart, and names
// the files not checked.
func (l *lspTools) otherFiles(ctx context.Context, written []string, diags []*lsp.Diagnostics, aff lsp.Affected, otherUnknown map[string]string, budget int, errDirs map[string]bool, rep *WriteDiagnostics) []string {
	o := &others{l: l, rep: rep, budget: budget, unknown: otherUnknown, errDirs: errDirs, skip: map[string]bool{},
		files: map[string]bool{}, clearedIn: map[string]bool{}, unknownFiles: map[string]string{}}
	for _, f := range written {
		o.skip[l.seenPath(f)] = true
	}
	exact, whole := o.published(diags, aff)
	after, errs := diagnoseAll(exact, func(f string) (*lsp.Diagnostics, error) { return l.diagnoseFileNow(ctx, f) })
	for i, f := range exact {
		if after[i] != nil {
			noteErrDirs(errDirs, l.seenPath(f), after[i].Items)
		}
	}
	for i, f := range exact {
		key := l.seenPath(f)
		o.skip[key] = true
		d, err := after[i], errs[i]
		if err != nil {
			why := strings.TrimPrefix(err.Error(), "lsp: ")
			o.failed = append(o.failed, fmt.Sprintf("%s (%s)", key, why))
			rep.Incomplete[key] = why
			continue
		}
		if ok, why := d.Whole(); !ok {
			o.failed = append(o.failed, fmt.Sprintf("%s (%s)", key, why))
			rep.Incomplete[key] = why
			continue
		}
		items, _ := errorsAndWarnings(d.Items)
		o.note(key, items, d.NeedsTypes)
	}
	for _, w := range whole {
		o.note(w.key, w.items, w.needsTypes)
	}
	sort.SliceStable(o.fresh, func(i, j int) bool { return o.fresh[i].Path < o.fresh[j].Path })
	return append(o.found(aff), o.unchecked(aff)...)
}

// others is what otherFiles learns of the files a write did not touch.
type others struct {
	l       *lspTools
	rep     *WriteDiagnostics
	budget  int
	unknown map[string]string // files whose baseline is unknown, and why
	errDirs map[string]bool
	skip    map[string]bool // files already looked at

	fresh, unknownItems             []lsp.Diagnostic
	more, cut, cleared, unknownMore int
	files, clearedIn                map[string]bool
	unknownFiles                    map[string]string
	failed, notCompared             []string
}

// other is a file the server published a whole set for after the write.
type other struct {
	key        string
	items      []lsp.Diagnostic
	needsTypes bool
}

// note takes in the diagnostics of the other file key after the write.
func (o *others) note(key string, items []lsp.Diagnostic, needsTypes bool) {
	hold := needsTypes && o.errDirs[pathDir(key)]
	if why := o.unknown[key]; why != "" {
		shown, m := o.l.seen.FreshNHolding(key, items, max(o.budget-len(o.fresh)-len(o.unknownItems), 0), hold)
		o.unknownItems = append(o.unknownItems, shown...)
		o.unknownMore += m
		o.unknownFiles[key] = why
		o.rep.Unknown[key] = why
		o.rep.Unlisted = append(o.rep.Unlisted, shown...)
		return
	}
	o.rep.Checked = append(o.rep.Checked, key)
	c, held := o.l.seen.ClearedHolding(key, items, hold)
	if c > 0 {
		o.cleared += c
		o.clearedIn[key] = true
		o.rep.Cleared[key] = c
	}
	if held > 0 {
		o.rep.Held[key] = held
	}
	shown, m := o.l.seen.FreshNHolding(key, items, max(o.budget-len(o.fresh)-len(o.unknownItems), 0), hold)
	o.more += m
	o.fresh = append(o.fresh, shown...)
	o.rep.New = append(o.rep.New, shown...)
	o.rep.More += m
	if len(shown)+m > 0 {
		o.files[key] = true
	}
}

// published sorts the files the server published for after the write: a
// publication that is not a whole set (every server but gopls) is asked
// for again whole (exact, with the affected files), when the run holds a
// whole set of the file from before; otherwise it is not compared (a
// changed publication says so). Whole sets are returned apart.
func (o *others) published(diags []*lsp.Diagnostics, aff lsp.Affected) (exact []string, whole []other) {
	exact = append([]string(nil), aff.Files...)
	for _, d := range diags {
		if d == nil {
			continue
		}
		o.cut = max(o.cut, d.OthersCut)
		for _, p := range d.Others {
			key := o.l.seenPath(p.Path)
			if o.skip[key] || slices.Contains(aff.Files, p.Path) {
				continue
			}
			o.skip[key] = true
			items, _ := errorsAndWarnings(p.Items)
			switch {
			case p.Whole:
				if p.HadBefore {
					before, _ := errorsAndWarnings(p.Before)
					o.l.seen.Baseline(key, before)
				}
				whole = append(whole, other{key, items, d.NeedsTypes})
			case len(items) == 0 && o.gone(key):
				// The server dropping the diagnostics of a file the write
				// moved or deleted: nothing is left to compare.
			case o.l.seen.Known(key):
				exact = append(exact, p.Path)
			default:
				before, _ := errorsAndWarnings(p.Before)
				if !p.HadBefore || !sameDiagnostics(before, items) {
					o.notCompared = append(o.notCompared, key)
					o.rep.Unknown[key] = "no whole set of its diagnostics from before the write"
				}
			}
		}
	}
	return exact, whole
}

// found says what the other files' diagnostics hold: the new ones, those
// cleared, and those of files whose baseline is unknown.
func (o *others) found(aff lsp.Affected) []string {
	var lines []string
	if len(o.fresh)+o.more > 0 {
		head := fmt.Sprintf("%d new diagnostic(s) in %d other file(s):", len(o.fresh)+o.more, len(o.files))
		if o.more > 0 {
			head = fmt.Sprintf("%d new diagnostic(s) in %d other file(s) (%d shown; ask lsp diagnostics for those files for the rest):", len(o.fresh)+o.more, len(o.files), len(o.fresh))
		}
		lines = append(lines, head)
		lines = append(lines, groupedLines(o.fresh, "  ")...)
	}
	if o.cleared > 0 {
		lines = append(lines, fmt.Sprintf("%d diagnostic(s) in %d other file(s) cleared: %s", o.cleared, len(o.clearedIn), strings.Join(sortedKeys(o.clearedIn), ", ")))
	}
	if len(o.unknownFiles) > 0 {
		var names []string
		for _, k := range sortedKeys(o.unknownFiles) {
			names = append(names, fmt.Sprintf("%s (%s)", k, o.unknownFiles[k]))
		}
		head := fmt.Sprintf("baseline unknown for %d other file(s), so their diagnostics cannot be told new or old: %s; all %d are listed", len(o.unknownFiles), strings.Join(names, "; "), len(o.unknownItems)+o.unknownMore)
		if o.unknownMore > 0 {
			head += fmt.Sprintf(" (%d shown; ask lsp diagnostics for those files for the rest)", len(o.unknownItems))
		}
		lines = append(lines, head+":")
		lines = append(lines, groupedLines(o.unknownItems, "  ")...)
	}
	if n := len(aff.Files) - len(o.failed); n > 0 && len(o.fresh)+o.more == 0 {
		lines = append(lines, fmt.Sprintf("%d other file(s) that %s checked: no new diagnostics", n, affectedMention(aff)))
	}
	return lines
}

// unchecked names the other files whose diagnostics were not compared,
// and says how to check them.
func (o *others) unchecked(aff lsp.Affected) []string {
	var unchecked []string
	if len(o.failed) > 0 {
		unchecked = append(unchecked, fmt.Sprintf("diagnostics incomplete for %d other file(s), so nothing of theirs is listed as new or cleared: %s", len(o.failed), strings.Join(o.failed, "; ")))
	}
	if len(o.notCompared) > 0 {
		shown := o.notCompared
		if len(shown) > renameShown {
			shown = append(shown[:renameShown:renameShown], fmt.Sprintf("... %d more", len(o.notCompared)-renameShown))
		}
		unchecked = append(unchecked, fmt.Sprintf("the server published changed diagnostics for %d other file(s) not compared (no whole set of theirs from before the write): %s", len(o.notCompared), strings.Join(shown, ", ")))
	}
	if len(aff.More) > 0 {
		o.rep.NotChecked = append(o.rep.NotChecked, aff.More...)
		shown := aff.More
		if len(shown) > renameShown {
			shown = append(shown[:renameShown:renameShown], fmt.Sprintf("... %d more", len(aff.More)-renameShown))
		}
		unchecked = append(unchecked, fmt.Sprintf("%d more file(s) that %s were not checked (at most %d are): %s", len(aff.More), affectedMention(aff), lsp.MaxAffected, strings.Join(shown, ", ")))
	}
	if aff.Incomplete != "" {
		o.rep.SearchIncomplete = aff.Incomplete
		unchecked = append(unchecked, "the search for files that use the changed declarations is incomplete: "+aff.Incomplete)
	}
	if o.cut > 0 {
		unchecked = append(unchecked, fmt.Sprintf("the server published diagnostics for %d more other file(s), not looked at", o.cut))
	}
	if len(unchecked) > 0 {
		unchecked = append(unchecked, `to check the files not checked: lsp diagnostics for each, or lsp diagnostics "*" for the whole project`)
	}
	return unchecked
}

// gone reports whether the workspace file key no longer exists.
func (o *others) gone(key string) bool {
	if o.l.root == nil {
		return false
	}
	real, _, err := o.l.root.Resolve(key)
	if err != nil {
		return false
	}
	_, err = os.Stat(real)
	return errors.Is(err, fs.ErrNotExist)
}
