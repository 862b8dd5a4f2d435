package tools

import "context"
import "errors"
import "fmt"
import "io/fs"
import "path/filepath"
import "regexp"
import "sort"
import "strings"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/glob"

// The lsp tool's diagnostics action, in three forms (lspKey): one file,
// several files or globs (files), the whole project ("*").

// needDiagnostics checks the arguments of diagnostics of one file or of
// the whole project.
func needDiagnostics(a lspArgs) error {
	if a.File == "" {
		return errors.New(`lsp: diagnostics needs file: a workspace-relative path, or "*" to run the project's checker`)
	}
	_, err := severityArg(a.Severity)
	return err
}

// needFilesDiagnostics checks the arguments of diagnostics of files.
func needFilesDiagnostics(a lspArgs) error {
	if a.File != "" {
		return errors.New("lsp: diagnostics takes file or files, not both")
	}
	_, err := severityArg(a.Severity)
	return err
}

// diagnoseFile asks for a.File's diagnostics. Every error and warning
// there is now counts as reported, shown on the page or not: the summary
// tells of them, and none of them is what a later write causes.
func diagnoseFile(ctx context.Context, l *lspTools, a lspArgs) (*lsp.Diagnostics, error) {
	d, err := l.diagnoseFileNow(ctx, a.File)
	if err != nil {
		return nil, err
	}
	items, _ := errorsAndWarnings(d.Items)
	l.seen.FreshN(l.seenPath(a.File), items, -1)
	return d, nil
}

// renderFileDiagnostics renders a page of one file's diagnostics.
func renderFileDiagnostics(a lspArgs, d *lsp.Diagnostics) lspAnswer {
	sev, _ := severityArg(a.Severity)
	text, page := formatDiagnostics(a.File, d, sev, a.Start)
	return lspAnswer{text: text, notes: d.Notes, out: LSPResult{Diagnostics: page}}
}

// checkWorkspace runs the trusted checkers over the whole project.
func checkWorkspace(ctx context.Context, l *lspTools, a lspArgs) (*lsp.CheckReport, error) {
	rep, err := l.sup.Check(ctx)
	if errors.Is(err, lsp.ErrNotTrusted) {
		return nil, fmt.Errorf("%w; %s", err, notTrustedHint)
	}
	return rep, err
}

// renderCheck renders a page of the checkers' findings.
func renderCheck(a lspArgs, rep *lsp.CheckReport) lspAnswer {
	sev, _ := severityArg(a.Severity)
	text, page := formatCheck(rep, sev, a.Start)
	return lspAnswer{text: text, out: LSPResult{Check: page}}
}

// filesDiagnosed is the answer of lsp diagnostics over several files: their
// diagnostics merged under label, the notes on what was not checked, or,
// when no file was checked, why (none).
type filesDiagnosed struct {
	label  string
	merged *lsp.Diagnostics
	notes  []string
	none   string
}

// diagnoseFiles is lsp diagnostics over files (paths or globs): each file
// checked (at most maxDiagnoseFiles, the bound applying once), their
// errors and warnings merged to be counted and paged together.
func diagnoseFiles(ctx context.Context, l *lspTools, a lspArgs) (*filesDiagnosed, error) {
	files, notes, err := l.expandFiles(ctx, a.Files)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return &filesDiagnosed{none: "no file to check: " + strings.Join(notes, "; ")}, nil
	}
	total := len(files)
	if total > maxDiagnoseFiles {
		notes = append(notes, fmt.Sprintf("%d files matched; the first %d (in the order given, globs sorted) were checked: narrow the list or the glob for the rest", total, maxDiagnoseFiles))
		files = files[:maxDiagnoseFiles]
	}
	diags, errs := diagnoseAll(files, func(f string) (*lsp.Diagnostics, error) { return l.diagnoseFileNow(ctx, f) })
	merged := &lsp.Diagnostics{Ready: true}
	var unserved, failed []string
	checked := 0
	for i, f := range files {
		switch err := errs[i]; {
		case errors.Is(err, lsp.ErrNoLanguage) || errors.Is(err, lsp.ErrNoServer):
			unserved = append(unserved, f)
			continue
		case err != nil:
			failed = append(failed, fmt.Sprintf("%s (%v)", f, strings.TrimPrefix(err.Error(), "lsp: ")))
			continue
		}
		checked++
		d := diags[i]
		items, _ := errorsAndWarnings(d.Items)
		l.seen.FreshN(l.seenPath(f), items, -1)
		merged.Items = append(merged.Items, d.Items...)
		if !d.Ready {
			merged.Ready = false
			merged.Notes = append(merged.Notes, fmt.Sprintf("%s: no diagnostics received for its current content yet (not a clean bill of health: ask again)", f))
		}
		merged.Notes = append(merged.Notes, d.Notes...)
	}
	if len(unserved) > 0 {
		notes = append(notes, fmt.Sprintf("not checked, no language server serves them: %s", strings.Join(firstN(unserved, renameShown), ", ")))
	}
	if len(failed) > 0 {
		notes = append(notes, "could not check: "+strings.Join(firstN(failed, renameShown), "; "))
	}
	label := fmt.Sprintf("%d file(s)", checked)
	if checked == 1 && len(files) == 1 {
		label = files[0]
	}
	if checked == 0 {
		return &filesDiagnosed{notes: notes, none: "no file was checked"}, nil
	}
	return &filesDiagnosed{label: label, merged: merged, notes: notes}, nil
}

// renderFilesDiagnosed renders a page of several files' diagnostics.
func renderFilesDiagnosed(a lspArgs, f *filesDiagnosed) lspAnswer {
	if f.none != "" {
		return lspAnswer{text: f.none, notes: f.notes, out: LSPResult{Diagnostics: &DiagnosticsPage{Groups: []DiagnosticGroup{}}}}
	}
	sev, _ := severityArg(a.Severity)
	text, page := formatDiagnostics(f.label, f.merged, sev, a.Start)
	return lspAnswer{text: text, notes: f.notes, out: LSPResult{Diagnostics: page}}
}

// Bounds of diagnostics over several files.
const (
	// maxDiagnoseFiles is how many files one diagnostics call checks.
	maxDiagnoseFiles = 50
	// maxGlobEntries bounds the workspace entries a glob walks.
	maxGlobEntries = 50000
)

// globRegexp compiles a workspace-relative glob: * and ? within a path
// component, ** across components.
func globRegexp(g string) (*regexp.Regexp, error) {
	return regexp.Compile("^" + glob.Expr(g, glob.Options{}) + "$")
}

// expandFiles turns paths and globs into workspace-relative files, in the
// order given (a glob's matches sorted), each once. A glob walks the
// workspace (not hidden directories, node_modules or vendor; symbolic links
// are not followed), at most maxGlobEntries entries.
func (l *lspTools) expandFiles(ctx context.Context, patterns []string) (files []string, notes []string, err error) {
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	for _, p := range patterns {
		p = filepath.ToSlash(strings.TrimPrefix(strings.TrimSpace(p), "./"))
		if p == "" || p == "*" && len(patterns) > 1 {
			return nil, nil, errors.New(`lsp: files holds an empty entry or "*" among others: pass paths or globs such as src/**/*.ts ("*" alone in file checks the whole project)`)
		}
		if !strings.ContainsAny(p, "*?[") {
			add(p)
			continue
		}
		re, err := globRegexp(p)
		if err != nil {
			return nil, nil, fmt.Errorf("lsp: glob %q does not compile: %w", p, err)
		}
		base := l.run.root.RealDir()
		var matched []string
		entries := 0
		walkErr := filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if entries++; entries > maxGlobEntries {
				return errGlobCut
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			name := d.Name()
			if d.IsDir() {
				if path != base && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor") {
					return filepath.SkipDir
				}
				return nil
			}
			rel, _ := filepath.Rel(base, path)
			if d.Type().IsRegular() && re.MatchString(filepath.ToSlash(rel)) {
				matched = append(matched, filepath.ToSlash(rel))
			}
			return nil
		})
		switch {
		case errors.Is(walkErr, errGlobCut):
			notes = append(notes, fmt.Sprintf("the glob %s stopped after %d workspace entries: its matches may be incomplete; narrow it to a directory", p, maxGlobEntries))
		case walkErr != nil:
			return nil, nil, walkErr
		}
		if len(matched) == 0 {
			notes = append(notes, fmt.Sprintf("the glob %s matches no file (hidden directories, node_modules and vendor are not searched)", p))
		}
		sort.Strings(matched)
		for _, m := range matched {
			add(m)
		}
	}
	return files, notes, nil
}

var errGlobCut = errors.New("glob walk cut")

// errorsAndWarnings keeps the diagnostics of ds that are errors or warnings
// (what lsp diagnostics reports) and counts the others (info, hint: an unused
// variable TypeScript greys out).
func errorsAndWarnings(ds []lsp.Diagnostic) (keep []lsp.Diagnostic, other int) {
	for _, d := range ds {
		if d.Severity == "error" || d.Severity == "warning" {
			keep = append(keep, d)
		} else {
			other++
		}
	}
	return keep, other
}

// formatDiagnostics renders the page of file's diagnostics d at severity
// sev or above from start.
func formatDiagnostics(file string, d *lsp.Diagnostics, sev string, start int) (string, *DiagnosticsPage) {
	items, other := atLeast(d.Items, sev)
	p := pageDiagnostics(file, sev, items, other, start)
	p.Stale, p.Notes = !d.Ready, d.Notes
	if d.Ready && d.Partial != "" {
		p.Notes = append(p.Notes, "these may be part of the file's diagnostics: "+d.Partial)
	}
	if len(items) == 0 {
		if !d.Ready {
			return fmt.Sprintf("no diagnostics received for %s yet: not a clean bill of health, ask again", file), p
		}
		clean := fmt.Sprintf("%s: no %s", file, strings.Replace(severityWords(sev), " and ", " or ", 1))
		if other > 0 {
			if sev == "warning" {
				return clean + fmt.Sprintf(" (%d info or hint diagnostic(s) not shown: severity hint shows them)", other), p
			}
			return clean + fmt.Sprintf(" (%d less severe diagnostic(s) not shown: severity %s shows them)", other, lessSevere(sev)), p
		}
		return clean, p
	}
	var b strings.Builder
	p.render(&b, file)
	return strings.TrimRight(b.String(), "\n"), p
}

// CheckPage is the Structured result of lsp diagnostics "*" and lsp_check:
// the checkers that ran and a page of their findings.
type CheckPage struct {
	Ran        []string `json:"ran"`
	Skipped    []string `json:"skipped,omitempty"`
	NotTrusted []string `json:"not_trusted,omitempty"`
	DiagnosticsPage
	// Kept is how many findings were kept to page through when the
	// checkers reported more (lsp.MaxCheckFindings).
	Kept        int      `json:"kept,omitempty"`
	Unparsed    []string `json:"unparsed,omitempty"`
	UnparsedCut int      `json:"unparsed_cut,omitempty"`
}

// formatCheck renders the checkers' report: what ran, then the page of its
// findings at severity sev or above from start.
func formatCheck(rep *lsp.CheckReport, sev string, start int) (string, *CheckPage) {
	items, other := atLeast(rep.Items, sev)
	cp := &CheckPage{Ran: rep.Ran, Skipped: rep.Skipped, NotTrusted: rep.NotTrusted,
		DiagnosticsPage: *pageDiagnostics("*", sev, items, other, start), Unparsed: rep.Unparsed, UnparsedCut: rep.UnparsedCut}
	if cp.Ran == nil {
		cp.Ran = []string{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ran: %s\n", strings.Join(rep.Ran, "; "))
	for _, s := range rep.Skipped {
		fmt.Fprintf(&b, "skipped: %s\n", s)
	}
	for _, s := range rep.NotTrusted {
		fmt.Fprintf(&b, "not run: %s\n", s)
	}
	if len(rep.NotTrusted) > 0 {
		b.WriteString(notTrustedHint + "\n")
	}
	if rep.Total == 0 {
		b.WriteString("no file:line findings\n")
	} else {
		cp.render(&b, "findings")
		if rep.Total > len(rep.Items) {
			cp.Kept = len(rep.Items)
			fmt.Fprintf(&b, "(the checkers reported %d findings; the first %d are counted and paged above: run the checker yourself for the rest)\n", rep.Total, len(rep.Items))
		}
	}
	if len(rep.Unparsed) > 0 {
		b.WriteString("other output:\n")
		for _, u := range rep.Unparsed {
			b.WriteString("  " + u + "\n")
		}
		if rep.UnparsedCut > 0 {
			fmt.Fprintf(&b, "  ... %d more line(s) of output not shown\n", rep.UnparsedCut)
		}
	}
	return strings.TrimRight(b.String(), "\n"), cp
}
