package main

import "bytes"
import "context"
import "encoding/json"
import "errors"
import "fmt"
import "io"
import "io/fs"
import "os"
import "os/exec"
import "path/filepath"
import "regexp"
import "runtime"
import "slices"
import "sort"
import "strings"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/tools"

// harness runs the changes of one project through tether's writers and
// scores each write's report against the checker.
type harness struct {
	p       *project
	sup     *lsp.Supervisor
	release func()
	// parser is the structural engine the binary wires by default: the
	// writers find a change's callers and importers with it.
	parser *engine.Engine
	check  checker
	// sets caches the checker's diagnostics per project state: "" is the
	// pristine project, a change's id the project with it applied.
	sets map[string]Set
	// summaries counts, per file, the summaries of a header's errors the
	// change's apply showed as new, for scoring its revert.
	summaries map[string]int
	at        []pos
	log       io.Writer
	// writeTimeout bounds one write call (its report included).
	writeTimeout time.Duration
}

// errRefused is a write the tool refused (a rename the server declines):
// nothing was written, and the change is replaced by another.
var errRefused = errors.New("the tool refused the write")

// counts is the score of some writes.
type counts struct {
	Writes, FalseNew, MissedNew, FalseCleared, MissedCleared int
	// MissedNamed are the missed new ones in files the report named as
	// not checked or without a baseline; Unknown and NotChecked count such
	// files.
	MissedNamed, Unknown, NotChecked int
	RevertFailed                     int
	Times                            []time.Duration
}

func (c *counts) add(o counts) {
	c.Writes += o.Writes
	c.FalseNew += o.FalseNew
	c.MissedNew += o.MissedNew
	c.FalseCleared += o.FalseCleared
	c.MissedCleared += o.MissedCleared
	c.MissedNamed += o.MissedNamed
	c.Unknown += o.Unknown
	c.NotChecked += o.NotChecked
	c.RevertFailed += o.RevertFailed
	c.Times = append(c.Times, o.Times...)
}

func newHarness(ctx context.Context, p *project, pool *lsp.Pool, log io.Writer) (*harness, error) {
	sup, release, _, err := pool.Get(p.dir, "diagdiff", lsp.WithDiagnosticsTimeout(60*time.Second))
	if err != nil {
		return nil, err
	}
	parser, err := engine.New(ctx, engine.NewConfig())
	if err != nil {
		release()
		return nil, err
	}
	h := &harness{p: p, sup: sup, release: release, parser: parser, check: checkers[p.lang], sets: map[string]Set{}, log: log, writeTimeout: 5 * time.Minute}
	if err := snapshot(p); err != nil {
		release()
		return nil, err
	}
	set, at, err := h.check(ctx, p)
	if err != nil {
		release()
		return nil, err
	}
	h.sets[""], h.at = set, at
	fmt.Fprintf(log, "%s: %d diagnostics before any change\n", p.name, total(set))
	return h, nil
}

func (h *harness) close() {
	h.release()
	h.parser.Close(context.Background())
	os.RemoveAll(h.p.pristine)
}

func total(s Set) int {
	n := 0
	for _, c := range s {
		n += c
	}
	return n
}

// errLines returns "file\x00line" for the lines holding an error from
// before whose text is unique in their file.
func (h *harness) errLines() []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range h.at {
		b, err := os.ReadFile(filepath.Join(h.p.dir, a.file))
		if err != nil {
			continue
		}
		lines := strings.Split(string(b), "\n")
		if a.line >= len(lines) {
			continue
		}
		l := lines[a.line]
		if strings.TrimSpace(l) == "" || strings.Count(string(b), l) != 1 || seen[a.file+l] || strings.Contains(l, "#") || strings.HasSuffix(strings.TrimSpace(l), "\\") {
			continue
		}
		seen[a.file+l] = true
		out = append(out, a.file+"\x00"+l)
	}
	sort.Strings(out)
	return out
}

// runChange applies c and reverts it, each a write through tether's
// writer in one fresh run (the servers shared), busy or not, and scores
// both writes. id names the applied state for the checker's cache.
func (h *harness) runChange(ctx context.Context, id string, c change, busy bool) (apply, undo counts, err error) {
	run, err := tools.NewRun(ctx, tools.Config{WorkDir: h.p.dir, Policy: tools.PolicyOf(tools.Allow), LSP: h.sup, Search: tools.SearchConfig{Parser: h.parser}})
	if err != nil {
		return apply, undo, err
	}
	defer run.Close()
	rep, dt, err := h.write(ctx, run, c.writer, c.apply, busy)
	if err != nil {
		if !h.restore() && !errors.Is(err, errRefused) {
			err = fmt.Errorf("%w: %w", errRefused, err) // nothing was written
		}
		return apply, undo, fmt.Errorf("%s %s: %w", c.kind, c.writer, err)
	}
	after, ok := h.sets[id]
	if !ok {
		after, _, err = h.check(ctx, h.p)
		if err != nil {
			h.restore()
			return apply, undo, err
		}
		h.sets[id] = after
	}
	before := movedSet(h.sets[""], c.writer, c.apply)
	h.summaries = nil
	apply = h.score(before, after, rep)
	h.summaries = includedSummaries(rep)
	defer func() { h.summaries = nil }()
	apply.Times = []time.Duration{dt}
	h.logWrite(id+" apply", c, busy, apply, before, after, rep)
	undoWriter := c.writer
	if c.undoWriter != "" {
		undoWriter = c.undoWriter
	}
	rep, dt, err = h.write(ctx, run, undoWriter, c.undo, busy)
	if err != nil {
		h.restore()
		return apply, undo, fmt.Errorf("%s %s revert: %w", c.kind, c.writer, err)
	}
	if h.restore() {
		undo.RevertFailed = 1
		return apply, undo, nil
	}
	applied := movedSet(after, undoWriter, c.undo)
	undo = h.score(applied, h.sets[""], rep)
	undo.Times = []time.Duration{dt}
	h.logWrite(id+" revert", c, busy, undo, applied, h.sets[""], rep)
	return apply, undo, nil
}

// movedSet returns s as seen after a move by rename_file with args: the
// diagnostics of the file moved (or of the files under a directory
// moved) at its new path. A file moved carries its diagnostics with it;
// what the move changed is what differs from them there, as tether's
// report counts it. Other writers' sets are returned as they are.
func movedSet(s Set, writer string, args map[string]any) Set {
	from, _ := args["from"].(string)
	to, _ := args["to"].(string)
	if writer != "rename_file" || from == "" || to == "" {
		return s
	}
	out := Set{}
	for k, n := range s {
		switch {
		case k.File == from:
			k.File = to
		case strings.HasPrefix(k.File, from+"/"):
			k.File = to + strings.TrimPrefix(k.File, from)
		}
		out[k] += n
	}
	return out
}

// write makes one call, with a CPU-bound process on every core beside it
// when busy, and returns its diagnostics report and how long the call took.
func (h *harness) write(ctx context.Context, run *tools.Run, writer string, args map[string]any, busy bool) (*tools.WriteDiagnostics, time.Duration, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, h.writeTimeout)
	defer cancel()
	if busy {
		stop := hogs(ctx, runtime.NumCPU())
		defer stop()
	}
	t0 := time.Now()
	res, err := run.Call(ctx, writer, b, tools.FromModel)
	if err == nil && !res.IsError && (writer == "ast_edit" || writer == "lsp_apply") {
		// Staged: accepting it with resolve is the write.
		id := editIDRe.FindStringSubmatch(res.AllText())
		if id == nil {
			return nil, time.Since(t0), fmt.Errorf("%w: %s staged nothing: %s", errRefused, writer, res.AllText())
		}
		b, _ = json.Marshal(map[string]any{"edit_id": id[1], "action": "accept"})
		res, err = run.Call(ctx, "resolve", b, tools.FromModel)
	}
	dt := time.Since(t0)
	if err != nil {
		return nil, dt, err
	}
	if res.IsError {
		return nil, dt, fmt.Errorf("%w: %s", errRefused, res.AllText())
	}
	if res.Diagnostics == nil {
		return nil, dt, fmt.Errorf("%s: no diagnostics report in the result: %s", writer, res.AllText())
	}
	return res.Diagnostics, dt, nil
}

// editIDRe finds the edit id a staging tool names.
var editIDRe = regexp.MustCompile(`edit_id "(edit_\d+)"`)

// hogs starts n CPU-bound processes, bounded by ctx, and returns the
// function that stops them.
func hogs(ctx context.Context, n int) func() {
	var cmds []*exec.Cmd
	for range n {
		c := exec.CommandContext(ctx, "sh", "-c", "while :; do :; done")
		if c.Start() == nil {
			cmds = append(cmds, c)
		}
	}
	return func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	}
}

// restore puts back every file that differs from the pristine copy and
// removes those it lacks, reporting whether any had to be.
func (h *harness) restore() bool {
	changed := false
	defer func() {
		if changed {
			fmt.Fprintf(h.log, "%s: restored from the pristine copy\n", h.p.name)
		}
	}()
	filepath.WalkDir(h.p.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return skipHidden(path, h.p.dir, d)
		}
		rel, _ := filepath.Rel(h.p.dir, path)
		want, err := os.ReadFile(filepath.Join(h.p.pristine, rel))
		if err != nil {
			changed = true
			os.Remove(path)
			return nil
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
			changed = true
			fmt.Fprintf(h.log, "%s: %s differs from before the change (%d bytes, was %d)\n", h.p.name, rel, len(got), len(want))
			os.WriteFile(path, want, 0o644)
		}
		return nil
	})
	filepath.WalkDir(h.p.pristine, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return skipHidden(path, h.p.pristine, d)
		}
		rel, _ := filepath.Rel(h.p.pristine, path)
		if _, err := os.Stat(filepath.Join(h.p.dir, rel)); err != nil {
			changed = true
			os.MkdirAll(filepath.Dir(filepath.Join(h.p.dir, rel)), 0o755)
			b, _ := os.ReadFile(path)
			os.WriteFile(filepath.Join(h.p.dir, rel), b, 0o644)
		}
		return nil
	})
	return changed
}

// skipHidden skips a hidden directory below root (a server's cache, such
// as clangd's .cache), which the changes never touch.
func skipHidden(path, root string, d fs.DirEntry) error {
	if d != nil && d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
		return filepath.SkipDir
	}
	return nil
}

// byFile splits a set by file.
func byFile(s Set) map[string]Set {
	out := map[string]Set{}
	for k, n := range s {
		if out[k.File] == nil {
			out[k.File] = Set{}
		}
		out[k.File][k] += n
	}
	return out
}

// score compares a write's report with the checker's delta from before to
// after. The report's New holds at most its bound (More counts the rest,
// over all files); a file it names as incomplete, without a baseline or
// not checked (past the bound of files diagnosed) is not scored, and the checker's new ones there are counted as missed in
// named files.
func (h *harness) score(before, after Set, rep *tools.WriteDiagnostics) counts {
	fresh, cleared := delta(before, after)
	if h.p.lang == "c" {
		fresh, cleared = movedFromHeaders(fresh, cleared, rep, h.summaries)
	}
	freshBy, clearedBy := byFile(fresh), byFile(cleared)
	c := counts{Writes: 1, Unknown: len(rep.Unknown), NotChecked: len(rep.Incomplete) + len(rep.NotChecked) + len(rep.Unseen)}
	if rep.SearchIncomplete != "" {
		c.NotChecked++ // the files it did not reach are not named one by one
	}
	named := func(f string) bool {
		return rep.Unknown[f] != "" || rep.Incomplete[f] != "" || rep.Unseen[f] != "" || slices.Contains(rep.NotChecked, f)
	}
	want := Set{}
	for k, n := range fresh {
		if !named(k.File) {
			want[k] = n
		}
	}
	matched := 0
	for _, d := range rep.New {
		if h.p.lang == "go" && d.Severity != "error" {
			continue
		}
		if named(d.Path) {
			continue
		}
		k := key(h.p.lang, d.Path, d.Severity, d.Code, d.Message)
		if want[k] > 0 {
			want[k]--
			matched++
		} else {
			c.FalseNew++
		}
	}
	// The ones a cut list left out (More) may lie in any file, named ones
	// included: they take the room the delta leaves, first in the files
	// scored, then in the named ones; beyond that they are false.
	rest := total(want) // the delta's new ones not matched by a shown one
	namedFresh := 0
	for file, s := range freshBy {
		if named(file) {
			namedFresh += total(s)
		}
	}
	c.FalseNew += max(0, rep.More-rest-namedFresh)
	c.MissedNew = rest - min(rep.More, rest)
	c.MissedNamed = namedFresh - min(namedFresh, max(0, rep.More-rest))
	c.MissedNew += c.MissedNamed
	for _, f := range rep.Checked {
		cc := total(clearedBy[f])
		c.FalseCleared += max(0, rep.Cleared[f]-cc)
		if !named(f) { // else the report says what of it was not checked
			c.MissedCleared += max(0, cc-rep.Cleared[f])
		}
	}
	for f, n := range rep.Cleared {
		if !slices.Contains(rep.Checked, f) {
			c.FalseCleared += max(0, n-total(clearedBy[f]))
		}
	}
	for file, s := range clearedBy {
		if !slices.Contains(rep.Checked, file) && rep.Cleared[file] == 0 && !named(file) {
			c.MissedCleared += total(s)
		}
	}
	return c
}

// movedFromHeaders moves, in the checker's delta, the diagnostics clang
// gives in a header to the file clangd reports them in: clangd shows a
// header's diagnostic in the file it analyses when a note of it lies there
// (a definition conflicting with a header's declaration is reported at
// the definition), where clang reports it in the header. A new one the
// report shows in a file whose delta lacks it, and that the delta holds
// in a header with the same severity and message, moves to that file; so
// do the cleared ones the report counts in a file beyond its delta, taken
// from the headers' cleared ones. clangd's summary of an included header's
// errors ("In included file: ...") moves the same way.
func movedFromHeaders(fresh, cleared Set, rep *tools.WriteDiagnostics, summaries map[string]int) (Set, Set) {
	isHeader := func(f string) bool { return strings.HasSuffix(f, ".h") || strings.HasSuffix(f, ".hpp") }
	for _, d := range rep.New {
		k := key("c", d.Path, d.Severity, d.Code, d.Message)
		if fresh[k] > 0 || isHeader(k.File) {
			continue
		}
		// clangd sums up a header's errors at the #include of the file it
		// analyses: "In included file: <the header's first error>". The
		// header's error is there too (in its own check): the summary is
		// true of the includer when the delta holds the error in a header,
		// which it leaves in place.
		if msg, ok := strings.CutPrefix(k.Message, "in included file: "); ok {
			for hk, n := range fresh {
				if n > 0 && isHeader(hk.File) && hk.Severity == k.Severity && hk.Message == msg {
					fresh[k]++
					break
				}
			}
			continue
		}
		for hk, n := range fresh {
			if n > 0 && isHeader(hk.File) && hk.Severity == k.Severity && hk.Message == k.Message {
				fresh[hk]--
				if fresh[hk] == 0 {
					delete(fresh, hk)
				}
				fresh[k]++
				break
			}
		}
	}
	by := byFile(cleared)
	for f, n := range rep.Cleared {
		excess := n - total(by[f])
		// The summaries the write before showed in f, gone now with the
		// header's errors they summed up.
		for ; excess > 0 && summaries[f] > 0 && !isHeader(f); excess-- {
			summaries[f]--
			cleared[Diag{File: f, Severity: "error", Message: "in included file"}]++
		}
		for ; excess > 0 && !isHeader(f); excess-- {
			moved := false
			for hk, m := range cleared {
				if m > 0 && isHeader(hk.File) {
					cleared[hk]--
					if cleared[hk] == 0 {
						delete(cleared, hk)
					}
					cleared[Diag{File: f, Severity: hk.Severity, Message: hk.Message}]++
					moved = true
					break
				}
			}
			if !moved {
				break
			}
		}
	}
	return fresh, cleared
}

// includedSummaries counts, per file, the summaries of a header's errors
// ("In included file: ...") that rep shows as new.
func includedSummaries(rep *tools.WriteDiagnostics) map[string]int {
	out := map[string]int{}
	for _, d := range rep.New {
		if strings.HasPrefix(key("c", d.Path, d.Severity, d.Code, d.Message).Message, "in included file: ") {
			out[d.Path]++
		}
	}
	return out
}

// logWrite logs one write's score and, when it is off, the two sides.
func (h *harness) logWrite(id string, c change, busy bool, sc counts, before, after Set, rep *tools.WriteDiagnostics) {
	fresh, cleared := delta(before, after)
	fmt.Fprintf(h.log, "%s %s %s busy=%v %s %q: %v; checker +%d -%d; false new %d, missed new %d, false cleared %d, missed cleared %d, unknown %d, not checked %d\n",
		h.p.name, id, c.writer, busy, c.kind, c.what, sc.Times, total(fresh), total(cleared), sc.FalseNew, sc.MissedNew, sc.FalseCleared, sc.MissedCleared, sc.Unknown, sc.NotChecked)
	if sc.Unknown+sc.NotChecked > 0 {
		fmt.Fprintf(h.log, "   named: unknown %v, incomplete %v, unseen %v, not checked %v, search %q\n", rep.Unknown, rep.Incomplete, rep.Unseen, rep.NotChecked, rep.SearchIncomplete)
	}
	if sc.FalseNew+sc.MissedNew+sc.FalseCleared+sc.MissedCleared == 0 {
		return
	}
	fmt.Fprintf(h.log, "   tether: %d new shown (+%d), cleared %v, checked %v, unknown %v, incomplete %v\n", len(rep.New), rep.More, rep.Cleared, rep.Checked, rep.Unknown, rep.Incomplete)
	for i, d := range rep.New {
		if i == 6 {
			break
		}
		fmt.Fprintf(h.log, "     %s\n", d)
	}
	n := 0
	for k, v := range fresh {
		if n++; n > 6 {
			break
		}
		fmt.Fprintf(h.log, "   checker new %dx %s: %s %s %s\n", v, k.File, k.Severity, k.Code, k.Message)
	}
	n = 0
	for k, v := range cleared {
		if n++; n > 6 {
			break
		}
		fmt.Fprintf(h.log, "   checker cleared %dx %s: %s %s %s\n", v, k.File, k.Severity, k.Code, k.Message)
	}
}
