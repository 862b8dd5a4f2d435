package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/tetherhq/tether/bridges/lsp"
)

// maxWriteDiagnostics bounds the new diagnostics a write (or a rename) adds
// to its result, over all its files.
const maxWriteDiagnostics = 50

// beforeWriteKey carries, in a write tool's context, the function a tool
// whose targets only it knows (resolve: the staged files) calls with them
// before it writes.
type beforeWriteKey struct{}

// beforeWrite tells the diagnostics-on-write wrapper which workspace-relative
// files the call is about to write, so that it can take their baseline; a
// no-op when no wrapper is listening.
func beforeWrite(ctx context.Context, paths []string) {
	if f, ok := ctx.Value(beforeWriteKey{}).(func([]string)); ok {
		f(paths)
	}
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

// writeTargets names the existing files call will write, from its arguments
// (write and edit: path; apply_patch: the files it updates or deletes).
func writeTargets(call *Call) []string {
	var a struct {
		Path  string `json:"path"`
		Patch string `json:"patch"`
	}
	if json.Unmarshal(call.Args, &a) != nil {
		return nil
	}
	switch call.Name {
	case "write", "edit":
		if a.Path != "" {
			return []string{a.Path}
		}
	case "apply_patch":
		ops, err := parsePatch(a.Patch)
		if err != nil {
			return nil
		}
		var out []string
		for _, op := range ops {
			if op.kind != opAdd {
				out = append(out, op.path)
			}
		}
		return out
	}
	return nil
}

// baseline records, for each of paths not looked at before in this run, the
// server's diagnostics for the file as it is now, before the write: what was
// wrong before is not what the write caused (issue 13). A file no server
// reads, or that does not exist yet, has none.
func (l *lspTools) baseline(ctx context.Context, paths []string) {
	var wg sync.WaitGroup
	for _, p := range paths {
		key := l.seenPath(p)
		if l.seen.Known(key) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := l.sup.Diagnostics(ctx, key)
			if err != nil || !d.Ready {
				return
			}
			items, _ := errorsAndWarnings(d.Items)
			l.seen.Baseline(key, items)
		}()
	}
	wg.Wait()
}

// diagnosticsOnWrite is the middleware on write, edit, apply_patch and
// resolve: before the write it takes the baseline of the files about to
// change; after a successful write it syncs and saves each changed file
// through its server, waits (bounded) for that version's diagnostics and
// appends only those not reported before in this run, for the written
// files and for every other file the server published for since (the
// callers a changed signature broke).
func (l *lspTools) diagnosticsOnWrite(next Handler) Handler {
	return func(ctx context.Context, call *Call) (*Result, error) {
		l.baseline(ctx, writeTargets(call))
		var once sync.Once
		ctx = context.WithValue(ctx, beforeWriteKey{}, func(paths []string) {
			once.Do(func() { l.baseline(ctx, paths) })
		})
		res, err := next(ctx, call)
		if err != nil || res == nil || res.IsError {
			return res, err
		}
		var files []string
		for _, c := range ChangedFiles(res) {
			if c.Action != "deleted" {
				files = append(files, c.Path)
			}
		}
		// Wait for every file's diagnostics at once: the bound applies once.
		diags := make([]*lsp.Diagnostics, len(files))
		errs := make([]error, len(files))
		var wg sync.WaitGroup
		for i, f := range files {
			wg.Add(1)
			go func() {
				defer wg.Done()
				diags[i], errs[i] = l.sup.AfterWrite(ctx, f)
			}()
		}
		wg.Wait()
		var lines []string
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
			items, _ := errorsAndWarnings(d.Items)
			fresh, more := l.seen.FreshN(l.seenPath(path), items, budget)
			budget -= len(fresh)
			switch {
			case len(fresh) > 0 || more > 0:
				if more > 0 {
					lines = append(lines, fmt.Sprintf("new diagnostics in %s (%d of %d shown; ask lsp diagnostics for %s for the rest):", path, len(fresh), len(fresh)+more, path))
				} else {
					lines = append(lines, fmt.Sprintf("new diagnostics in %s:", path))
				}
				for _, x := range fresh {
					lines = append(lines, "  "+x.String())
				}
			case d.Ready && len(items) == 0:
				lines = append(lines, fmt.Sprintf("%s: no errors or warnings", path))
			case d.Ready:
				lines = append(lines, fmt.Sprintf("%s: no new diagnostics (%d already reported)", path, len(items)))
			}
		}
		lines = append(lines, l.otherFiles(files, diags, budget)...)
		if len(lines) > 0 {
			res.Content = append(res.Content, Content{Type: TextContent, Text: "lsp: " + strings.Join(lines, "\nlsp: ")})
		}
		return res, nil
	}
}

// notChecked says why path's diagnostics could not be looked at, once per
// reason for a server that cannot start; show is false when there is
// nothing to say (no server reads such files, or it was said before).
func (l *lspTools) notChecked(path string, err error) (line string, show bool) {
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

// otherFiles reports the new diagnostics of files the write did not touch
// but the server published for after it, at most budget of them, sorted by
// file. A file never looked at before gets its last publication from before
// the write as its baseline.
func (l *lspTools) otherFiles(written []string, diags []*lsp.Diagnostics, budget int) []string {
	skip := map[string]bool{}
	for _, f := range written {
		skip[l.seenPath(f)] = true
	}
	var fresh []lsp.Diagnostic
	more, cut := 0, 0
	files := map[string]bool{}
	for _, d := range diags {
		if d == nil {
			continue
		}
		cut = max(cut, d.OthersCut)
		for _, o := range d.Others {
			key := l.seenPath(o.Path)
			if skip[key] {
				continue
			}
			skip[key] = true
			if o.HadBefore {
				before, _ := errorsAndWarnings(o.Before)
				l.seen.Baseline(key, before)
			}
			items, _ := errorsAndWarnings(o.Items)
			shown, m := l.seen.FreshN(key, items, max(budget-len(fresh), 0))
			more += m
			fresh = append(fresh, shown...)
			if len(shown)+m > 0 {
				files[key] = true
			}
		}
	}
	sort.SliceStable(fresh, func(i, j int) bool { return fresh[i].Path < fresh[j].Path })
	var lines []string
	if len(fresh)+more > 0 {
		head := fmt.Sprintf("%d new diagnostic(s) in %d other file(s):", len(fresh)+more, len(files))
		if more > 0 {
			head = fmt.Sprintf("%d new diagnostic(s) in %d other file(s) (%d shown; ask lsp diagnostics for those files for the rest):", len(fresh)+more, len(files), len(fresh))
		}
		lines = append(lines, head)
		for _, x := range fresh {
			lines = append(lines, "  "+x.String())
		}
	}
	if cut > 0 {
		lines = append(lines, fmt.Sprintf("the server published diagnostics for %d more other file(s), not looked at: run lsp diagnostics \"*\" for the whole project", cut))
	}
	return lines
}

// freshIn returns the new errors and warnings of ds, the diagnostics of
// files (a file with none is clean now), at most max in all.
func (l *lspTools) freshIn(files []string, ds []lsp.Diagnostic, max int) (fresh []lsp.Diagnostic, more int) {
	by := map[string][]lsp.Diagnostic{}
	for _, d := range ds {
		by[l.seenPath(d.Path)] = append(by[l.seenPath(d.Path)], d)
	}
	for _, f := range files {
		items, _ := errorsAndWarnings(by[l.seenPath(f)])
		shown, m := l.seen.FreshN(l.seenPath(f), items, max-len(fresh))
		fresh = append(fresh, shown...)
		more += m
	}
	return fresh, more
}
