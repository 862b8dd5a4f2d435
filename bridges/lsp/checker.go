package lsp

import "context"
import "errors"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "regexp"
import "strconv"
import "strings"
import "sync"
import "unicode"

import "github.com/tetherhq/tether/internal/fsutil"
import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/textcut"

// CheckReport is the answer of a checker run over the whole project: the
// checkers' output parsed into file:line entries.
type CheckReport struct {
	// Items are the parsed entries, at most maxCheckFindings (callers
	// page through them).
	Items []Diagnostic `json:"items"`
	// Total is how many entries were parsed.
	Total int `json:"total"`
	// Ran lists each checker run with the binary that ran and its outcome
	// ("GOROOT/bin/go vet ./... (exit 1)", the path in full; a project's own binary is
	// named relative to the workspace: "node_modules/.bin/tsc --noEmit").
	Ran []string `json:"ran"`
	// Unparsed holds output lines that named no file:line and did not
	// continue a finding's message, at most maxUnparsed, each cut at
	// maxOutputLine bytes.
	Unparsed []string `json:"unparsed,omitempty"`
	// UnparsedCut counts the lines of that kind left out of Unparsed.
	UnparsedCut int `json:"unparsed_cut,omitempty"`
	// Skipped says why a server's checker did not run.
	Skipped []string `json:"skipped,omitempty"`
	// NotTrusted says, for Check, which project checkers it did not run
	// because they are code from the workspace or run it (the project's
	// node_modules/.bin/tsc, cargo check): CheckProject runs them.
	NotTrusted []string `json:"not_trusted,omitempty"`
}

// Check runs, at read tier, the checker of every server whose root marker is
// in the workspace root (go vet, pyright, tsc --noEmit, ...), or, when the
// workspace root is no project, in each project root below it (svc/go.mod;
// at most maxNestedRoots per server, checkerDepth levels down), and parses
// its output. No program from the workspace runs: only a checker binary on
// the trusted PATH (see WithEnv), never the project's own
// (node_modules/.bin/tsc), and never a checker that runs the project's code
// (Server.CheckerRunsCode: cargo check); the report names those in
// NotTrusted.
func (s *Supervisor) Check(ctx context.Context) (*CheckReport, error) {
	return s.check(ctx, false)
}

// CheckProject is Check with the project's own checkers: the binary its
// package manager installed (node_modules/.bin in the root or a directory
// above it up to the workspace, as node resolves packages; the root's
// .venv/bin or venv/bin) before one on PATH, and checkers that run the
// project's code (cargo check). It executes code from the workspace: an
// exec-tier action, to run only with the caller's approval.
func (s *Supervisor) CheckProject(ctx context.Context) (*CheckReport, error) {
	return s.check(ctx, true)
}

func (s *Supervisor) check(ctx context.Context, project bool) (*CheckReport, error) {
	rep := &CheckReport{}
	for _, spec := range s.servers {
		for _, pr := range s.projectRoots(spec) {
			s.runChecker(ctx, rep, spec, pr.dir, pr.marker, project)
		}
	}
	if len(rep.Ran) == 0 {
		why := fmt.Sprintf("no server has a root marker in the workspace root or in its subdirectories (%d levels down)", checkerDepth)
		if reasons := append(append([]string(nil), rep.Skipped...), rep.NotTrusted...); len(reasons) > 0 {
			why = strings.Join(reasons, "; ")
		}
		err := fmt.Errorf("%w: no project checker ran: %s; ask diagnostics for a file instead", ErrNoServer, why)
		if len(rep.NotTrusted) > 0 {
			err = fmt.Errorf("%w: no project checker ran: %s", ErrNotTrusted, why)
		}
		return nil, err
	}
	sortDiagnostics(rep.Items)
	return rep, nil
}

// ErrNotTrusted is wrapped by Check's error when the only checkers it could
// run are code from the workspace or run it; CheckProject runs them.
var ErrNotTrusted = errors.New("lsp: only the project's own checker can check it")

const (
	checkerDepth   = 3  // directory levels below the workspace searched for project roots
	maxNestedRoots = 10 // project roots per server checked below the workspace root
)

type projectRoot struct{ dir, marker string }

// projectRoots returns the workspace root when it has one of spec's markers.
// When the workspace root is no project at all (no server's marker is there:
// a directory of projects) it returns the directories below it that have one
// (not inside another found root).
func (s *Supervisor) projectRoots(spec Server) []projectRoot {
	if m := spec.markerIn(s.workdir); m != "" {
		return []projectRoot{{s.workdir, m}}
	}
	for _, other := range s.servers {
		if !other.Linter && other.markerIn(s.workdir) != "" {
			return nil // a project of another language, with its fixtures below
		}
	}
	var out []projectRoot
	errStop := errors.New("stop")
	_ = filepath.WalkDir(s.workdir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == s.workdir {
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || name == "target" || name == "build" || name == "__pycache__" {
			return filepath.SkipDir
		}
		if m := spec.markerIn(p); m != "" {
			out = append(out, projectRoot{p, m})
			if len(out) >= maxNestedRoots {
				return errStop
			}
			return filepath.SkipDir
		}
		if rel, _ := filepath.Rel(s.workdir, p); strings.Count(filepath.ToSlash(rel), "/")+1 >= checkerDepth {
			return filepath.SkipDir
		}
		return nil
	})
	return out
}

// runChecker runs spec's checker in dir and adds its outcome to rep; with
// project, the project's own binary and checkers that run its code too.
// checkedByOther reports whether another row with a checker has a root
// marker in dir (a row sharing gopls's go.mod, say): that checker
// checks the project, and spec having none is no news.
func (s *Supervisor) checkedByOther(spec Server, dir string) bool {
	for _, o := range s.servers {
		if o.Name != spec.Name && !o.Linter && len(o.Checker) > 0 && o.markerIn(dir) != "" {
			return true
		}
	}
	return false
}

func (s *Supervisor) runChecker(ctx context.Context, rep *CheckReport, spec Server, dir, marker string, project bool) {
	where := ""
	if dir != s.workdir {
		where = " in " + s.rel(dir)
		marker = s.rel(filepath.Join(dir, marker))
	}
	if len(spec.Checker) == 0 {
		if !s.checkedByOther(spec, dir) {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: no project checker configured for %s", marker, spec.Language))
		}
		return
	}
	if len(spec.CheckerNeeds) > 0 {
		found := false
		for _, f := range spec.CheckerNeeds {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				found = true
			}
		}
		if !found {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s found, but no %s%s: %s has no project to check; create one",
				marker, strings.Join(spec.CheckerNeeds, " or "), where, spec.Checker[0]))
			return
		}
	}
	if _, special, _ := scanDir(dir, spec); len(special) > 0 {
		rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s found: %s%s was not run: %s", marker, strings.Join(spec.Checker, " "), where, reason(s.specialErr(spec, special))))
		return
	}
	if spec.CheckerRunsCode && !project {
		rep.NotTrusted = append(rep.NotTrusted, fmt.Sprintf("%s found: %s%s was not run, it runs code from the project (%s)",
			marker, strings.Join(spec.Checker, " "), where, checkerRunsWhat(spec.Checker[0])))
		return
	}
	local := s.projectChecker(spec.Checker[0], dir)
	var bin, shown string
	env := s.env
	switch {
	case project && local != "":
		bin, shown, env = local, s.rel(local), s.projectEnv
	case project:
		bin, env = lookPath(spec.Checker[0], s.projectEnv), s.projectEnv
		shown = bin
	case strings.ContainsRune(spec.Checker[0], os.PathSeparator) && !filepath.IsAbs(spec.Checker[0]):
		rep.NotTrusted = append(rep.NotTrusted, fmt.Sprintf("%s%s was not run: a path relative to the project is code from the workspace", spec.Checker[0], where))
		return
	default:
		if _, bin = (&Server{Binaries: spec.Checker[:1]}).binary(s.env, s.workdir); bin != "" {
			shown = bin
		}
		if local != "" {
			rep.NotTrusted = append(rep.NotTrusted, fmt.Sprintf("the project's own %s%s was not run: it is code from the workspace", s.rel(local), where))
		}
	}
	if bin == "" {
		if local == "" || project {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s found, checker %s not on PATH%s nor in the project's node_modules/.bin, .venv/bin or venv/bin", marker, spec.Checker[0], s.pathNote()))
		}
		return
	}
	args := spec.Checker[1:]
	if spec.PythonInterpreter && spec.Checker[0] == "pyright" && !project {
		// The interpreter the server is given, so that both resolve the
		// same imports (a venv's site-packages cannot be passed this way);
		// the project's own run (lsp_check) is left as the project has it.
		if c := s.pythonFor(dir); c.path != "" && len(c.extra) == 0 {
			args = append(append([]string(nil), args...), "--pythonpath", c.path)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, s.checkerTimeout)
	cmd := exec.CommandContext(cctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	out := &textcut.Head{Max: maxCheckerOutput}
	cmd.Stdout, cmd.Stderr = out, out
	cleanup, err := sandboxed(cmd, spec, bin, s.workdir)
	if err == nil {
		err = proc.Run(cmd)
		cleanup()
	}
	cancel()
	name := strings.Join(append([]string{shown}, args...), " ") + where
	if n := out.Dropped(); n > 0 {
		name += fmt.Sprintf(" (only its first %d bytes of output read, %d more dropped)", out.Max, n)
	}
	switch {
	case cctx.Err() == context.DeadlineExceeded:
		rep.Ran = append(rep.Ran, fmt.Sprintf("%s (killed after %s: output so far below)", name, s.checkerTimeout))
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			rep.Ran = append(rep.Ran, fmt.Sprintf("%s (exit %d)", name, ee.ExitCode()))
		} else {
			rep.Ran = append(rep.Ran, fmt.Sprintf("%s (could not run: %v)", name, err))
		}
	default:
		rep.Ran = append(rep.Ran, fmt.Sprintf("%s (exit 0)", name))
	}
	s.parseCheckerOutput(rep, out.String(), dir)
}

// checkerRunsWhat says what code of the project a checker runs.
func checkerRunsWhat(name string) string {
	switch name {
	case "cargo":
		return "build.rs scripts and proc macros"
	case "dart":
		return "analyzer plugins"
	}
	return "its own code"
}

// maxCheckerOutput bounds the checker output kept for parsing.
const maxCheckerOutput = 1 << 20

// projectChecker returns the project's own binary for the checker command
// name in dir, or "": node_modules/.bin in dir or a directory above it up to
// the workspace (as node resolves packages), then dir's .venv/bin or
// venv/bin.
func (s *Supervisor) projectChecker(name, dir string) string {
	if strings.ContainsRune(name, os.PathSeparator) {
		return ""
	}
	var cands []string
	for d := dir; ; d = filepath.Dir(d) {
		cands = append(cands, filepath.Join(d, "node_modules", ".bin", name))
		if d == s.workdir || !strings.HasPrefix(d, s.workdir) || filepath.Dir(d) == d {
			break
		}
	}
	cands = append(cands, filepath.Join(dir, ".venv", "bin", name), filepath.Join(dir, "venv", "bin", name))
	for _, c := range cands {
		if p := lookPath(c, nil); p != "" {
			return p
		}
	}
	return ""
}

// checkerLine matches "file:line:col: message", "file:line: message",
// "file(line,col): message" and pyright's "file:line:col - error: message".
var checkerLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:vet: )?([^\s:()]+?\.[A-Za-z0-9]+)(?::(\d+)(?::(\d+))?|\((\d+),(\d+)\))\s*(?::|-)?\s*(.*)$`)
})

var checkerSeverity = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?i)(error|warning|info|information|note|hint)\b\s*(?:(TS\d+)\s*|\[([A-Za-z0-9_-]+)\])?:?\s*`)
})

// dartLine matches dart analyze's "  error - lib/a.dart:3:7 - message - code".
var dartLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(error|warning|info) - (\S+?\.dart):(\d+):(\d+) - (.*?)(?: - ([a-z0-9_]+))?\s*$`)
})

// maxCheckFindings bounds the findings a CheckReport keeps (Total counts
// them all): enough to page through a large project's errors, bounded in
// memory.
const maxCheckFindings = 5000

const (
	maxUnparsed     = 40   // output lines kept that are no finding
	maxOutputLine   = 400  // bytes kept of one such line
	maxContinuation = 10   // lines appended to one finding's message
	maxMessage      = 2000 // bytes of one finding's message
)

// parseCheckerOutput parses out, the output of a checker run in dir. A line
// indented deeper than the finding before it continues that finding's
// message (go's "\thave (int)", tsc's and pyright's second lines).
func (s *Supervisor) parseCheckerOutput(rep *CheckReport, out, dir string) {
	var last *Diagnostic // the finding the previous line belonged to
	lastIndent, cont := 0, 0
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		indent := len(line) - len(strings.TrimLeftFunc(line, unicode.IsSpace))
		m := checkerLine().FindStringSubmatch(line)
		dm := dartLine().FindStringSubmatch(line)
		if dm != nil { // as "file:line:col: severity[code]: message"
			m = []string{line, dm[2], dm[3], dm[4], "", "", dm[1] + "[" + dm[6] + "]: " + dm[5]}
			if dm[6] == "" {
				m[6] = dm[1] + ": " + dm[5]
			}
		}
		if m == nil {
			text := strings.TrimSpace(line)
			switch {
			case last != nil && indent > lastIndent:
				if cont < maxContinuation && len(last.Message) < maxMessage {
					last.Message = cutLine(last.Message+"\n  "+text, maxMessage)
				}
				cont++
			case !strings.ContainsAny(text, " \t") && isFile(text, dir):
				// A heading naming the file whose findings follow (pyright).
			case len(rep.Unparsed) < maxUnparsed:
				rep.Unparsed = append(rep.Unparsed, cutLine(line, maxOutputLine))
				last = nil
			default:
				rep.UnparsedCut++
				last = nil
			}
			continue
		}
		file, ln, col := m[1], m[2], m[3]
		if ln == "" {
			ln, col = m[4], m[5]
		}
		d := Diagnostic{Path: file, Severity: "error", Message: cutLine(strings.TrimSpace(m[6]), maxMessage)}
		d.Line, _ = strconv.Atoi(ln)
		d.Col, _ = strconv.Atoi(col)
		if sm := checkerSeverity().FindStringSubmatch(d.Message); sm != nil {
			sev := strings.ToLower(sm[1])
			if sev == "information" || sev == "note" {
				sev = "info"
			}
			d.Severity, d.Code = sev, sm[2]+sm[3]
			d.Message = strings.TrimSpace(d.Message[len(sm[0]):])
		}
		if !filepath.IsAbs(d.Path) {
			d.Path = filepath.Join(dir, d.Path)
		}
		if s.leadsOut(d.Path) {
			// A finding in a file elsewhere (a dependency outside the
			// workspace) may quote that file: its path alone is shown.
			d.Outside, d.Message = true, ""
		}
		d.Path = s.rel(filepath.Clean(d.Path))
		rep.Total++
		last, lastIndent, cont = nil, indent, 0
		if len(rep.Items) < maxCheckFindings {
			rep.Items = append(rep.Items, d)
			last = &rep.Items[len(rep.Items)-1]
			if d.Outside {
				last = &Diagnostic{} // its continuation lines are not shown either
			}
		} else {
			last = &Diagnostic{} // continuation lines of a finding not shown
		}
	}
	for i := range rep.Items {
		takeCode(&rep.Items[i])
	}
}

// pyrightCode matches the rule pyright's command line appends to a
// finding's last line: " (reportAttributeAccessIssue)".
var pyrightCode = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s+\((report[A-Z][A-Za-z]+)\)$`) })

// takeCode moves a trailing pyright rule name out of d's message into its
// code, as the language server reports it, so findings count by code.
func takeCode(d *Diagnostic) {
	if d.Code != "" {
		return
	}
	if m := pyrightCode().FindStringSubmatchIndex(d.Message); m != nil {
		d.Code = d.Message[m[2]:m[3]]
		d.Message = d.Message[:m[0]]
	}
}

// leadsOut reports whether path, absolute, lies outside the workspace or
// leads out of it through a symbolic link. A Supervisor without a root (a
// parser's unit test) checks the path as written.
func (s *Supervisor) leadsOut(path string) bool {
	if filepath.IsAbs(s.rel(filepath.Clean(path))) {
		return true
	}
	if s.root == nil {
		return false
	}
	_, _, err := s.root.Resolve(path)
	return errors.Is(err, fsutil.ErrOutside)
}

// cutLine bounds line at max bytes on a character boundary and says so.
func cutLine(line string, max int) string {
	if len(line) <= max {
		return line
	}
	cut := textcut.Prefix(line, max)
	return cut + fmt.Sprintf("... (%d more bytes)", len(line)-len(cut))
}

// isFile reports whether name (absolute, or relative to dir) is a file.
func isFile(name, dir string) bool {
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	fi, err := os.Stat(name)
	return err == nil && !fi.IsDir()
}
