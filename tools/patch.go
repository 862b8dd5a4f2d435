package tools

import "errors"
import "fmt"
import "io/fs"
import "os"
import "path/filepath"
import "regexp"
import "strings"
import "sync"

import "github.com/tetherhq/tether/internal/fsutil"

// patchKind is what one file section of a patch does.
type patchKind int

// The kinds of patch sections.
const (
	opAdd patchKind = iota + 1
	opUpdate
	opDelete
)

// patchOp is one file section of an apply_patch patch.
type patchOp struct {
	kind patchKind
	// path is the file as written in the patch.
	path string
	// moveTo is the new path of an updated file ("*** Move to:"), or "".
	moveTo string
	// lines is the content of an added file, one entry per line.
	lines []string
	// hunks are the changes of an updated file, in order.
	hunks []patchHunk
	// line is where the section starts in the patch (1-based), for errors.
	line int
}

// patchHunk is one "@@" hunk of an update: an optional context line to seek to
// first, then the old lines (context and removed) that are replaced by the new
// lines (context and added).
type patchHunk struct {
	// context is the text after "@@ ", or "".
	context string
	old     []string
	new     []string
	// from is, for each new line, the index of the old line it is (a
	// context line), or -1 for a line the hunk adds
	from []int
	// eof is set by "*** End of File": the old lines end the file.
	eof  bool
	line int
}

const (
	patchBegin  = "*** Begin Patch"
	patchEnd    = "*** End Patch"
	patchAdd    = "*** Add File: "
	patchDelete = "*** Delete File: "
	patchUpdate = "*** Update File: "
	patchMove   = "*** Move to: "
	patchEOF    = "*** End of File"
)

var heredocStart = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(apply_patch\s*)?<<-?\s*['"]?(EOF|PATCH)['"]?$`) })

// parsePatch parses a patch in the "*** Begin Patch" format. It does not touch
// the file system.
func parsePatch(patch string) ([]patchOp, error) {
	lines, err := patchBody(patch)
	if err != nil {
		return nil, err
	}
	sc := &patchScanner{lines: lines}
	for sc.i < len(sc.lines) {
		l := sc.lines[sc.i]
		switch {
		case strings.HasPrefix(l, patchAdd):
			err = sc.addFile()
		case strings.HasPrefix(l, patchDelete):
			sc.deleteFile()
		case strings.HasPrefix(l, patchUpdate):
			err = sc.updateFile()
		case strings.TrimSpace(l) == "":
			sc.i++
		default:
			err = sc.bad(sc.i, "expected \"*** Add File: \", \"*** Update File: \", \"*** Delete File: \" or \"*** End Patch\", got %q", l)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(sc.ops) == 0 {
		return nil, errors.New("tools: apply_patch: the patch changes no files; nothing was written")
	}
	for _, op := range sc.ops {
		if op.path == "" {
			return nil, fmt.Errorf("tools: apply_patch: line %d: a file section without a path; nothing was written", op.line)
		}
	}
	return sc.ops, nil
}

// patchBody returns the lines between "*** Begin Patch" and "*** End Patch",
// with CRLF read as LF and a shell heredoc around the patch taken off
// (agents sometimes send apply_patch <<'EOF' ... EOF).
func patchBody(patch string) ([]string, error) {
	text := strings.ReplaceAll(patch, "\r\n", "\n")
	lines := strings.Split(strings.TrimRight(strings.TrimLeft(text, "\n \t"), "\n \t"), "\n")
	if len(lines) > 2 && heredocStart().MatchString(strings.TrimSpace(lines[0])) {
		lines = lines[1:]
		if last := strings.TrimSpace(lines[len(lines)-1]); last == "EOF" || last == "PATCH" {
			lines = lines[:len(lines)-1]
		}
	}
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != patchBegin {
		return nil, errors.New("tools: apply_patch: the patch must start with \"*** Begin Patch\"; nothing was written")
	}
	if strings.TrimSpace(lines[len(lines)-1]) != patchEnd {
		return nil, errors.New("tools: apply_patch: the patch must end with \"*** End Patch\" (was it cut off?); nothing was written")
	}
	return lines[1 : len(lines)-1], nil
}

// patchScanner reads a patch body one file section at a time; each section
// kind has its method, which consumes the section's lines.
type patchScanner struct {
	lines []string
	i     int // the next line to read
	ops   []patchOp
}

// lineNo is the 1-based patch line number of body line i (after Begin Patch).
func lineNo(i int) int { return i + 2 }

// bad is a parse error at body line i.
func (sc *patchScanner) bad(i int, format string, args ...any) error {
	return badLine(lineNo(i), format, args...)
}

func badLine(n int, format string, args ...any) error {
	return fmt.Errorf("tools: apply_patch: line %d: %s; nothing was written", n, fmt.Sprintf(format, args...))
}

// header returns the path of the section header at the current line (after
// prefix) and moves past it.
func (sc *patchScanner) header(prefix string) (path string, line int) {
	path, line = strings.TrimSpace(strings.TrimPrefix(sc.lines[sc.i], prefix)), lineNo(sc.i)
	sc.i++
	return path, line
}

// atSection reports whether body line i starts a section header
// ("*** ..." other than "*** End of File").
func (sc *patchScanner) atSection(i int) bool {
	return strings.HasPrefix(sc.lines[i], "*** ")
}

// addFile reads "*** Add File: path" and its '+' lines.
func (sc *patchScanner) addFile() error {
	op := patchOp{kind: opAdd}
	op.path, op.line = sc.header(patchAdd)
	for sc.i < len(sc.lines) && !sc.atSection(sc.i) {
		l := sc.lines[sc.i]
		if strings.TrimSpace(l) == "" {
			// A blank line between sections separates them; one followed
			// by more '+' lines is an empty line whose '+' was forgotten.
			j := sc.i
			for j < len(sc.lines) && strings.TrimSpace(sc.lines[j]) == "" {
				j++
			}
			if j == len(sc.lines) || sc.atSection(j) {
				sc.i = j
				break
			}
			op.lines = append(op.lines, "")
			sc.i++
			continue
		}
		if !strings.HasPrefix(l, "+") {
			return sc.bad(sc.i, "in \"*** Add File: %s\" every line must start with '+', got %q", op.path, l)
		}
		op.lines = append(op.lines, l[1:])
		sc.i++
	}
	sc.ops = append(sc.ops, op)
	return nil
}

// deleteFile reads "*** Delete File: path".
func (sc *patchScanner) deleteFile() {
	op := patchOp{kind: opDelete}
	op.path, op.line = sc.header(patchDelete)
	sc.ops = append(sc.ops, op)
}

// updateFile reads "*** Update File: path", an optional "*** Move to:", and
// its hunks.
func (sc *patchScanner) updateFile() error {
	op := patchOp{kind: opUpdate}
	op.path, op.line = sc.header(patchUpdate)
	if sc.i < len(sc.lines) && strings.HasPrefix(sc.lines[sc.i], patchMove) {
		op.moveTo, _ = sc.header(patchMove)
	}
	var cur *patchHunk
	for ; sc.i < len(sc.lines); sc.i++ {
		l := sc.lines[sc.i]
		isEOF := strings.TrimSpace(l) == patchEOF
		if sc.atSection(sc.i) && !isEOF {
			break
		}
		switch {
		case isEOF:
			if cur == nil {
				return sc.bad(sc.i, "\"*** End of File\" before any hunk in %s", op.path)
			}
			cur.eof = true
			cur = nil
		case strings.HasPrefix(l, "@@"):
			op.hunks = append(op.hunks, patchHunk{context: hunkContext(l), line: lineNo(sc.i)})
			cur = &op.hunks[len(op.hunks)-1]
		default:
			if cur == nil {
				if len(op.hunks) > 0 && op.hunks[len(op.hunks)-1].eof {
					return sc.bad(sc.i, "a hunk line after \"*** End of File\" in %s; start a new hunk with @@", op.path)
				}
				// The first hunk may omit its "@@" line.
				op.hunks = append(op.hunks, patchHunk{line: lineNo(sc.i)})
				cur = &op.hunks[len(op.hunks)-1]
			}
			if err := cur.add(l); err != nil {
				return sc.bad(sc.i, "in \"*** Update File: %s\" %v", op.path, err)
			}
		}
	}
	if len(op.hunks) == 0 && op.moveTo == "" {
		return badLine(op.line, "\"*** Update File: %s\" has no hunks", op.path)
	}
	for k, h := range op.hunks {
		// "@@ class A" directly followed by "@@ def f():" narrows the
		// search step by step: a hunk with only a context line is an
		// anchor for the next one.
		if len(h.old) == 0 && len(h.new) == 0 && (h.context == "" || k == len(op.hunks)-1 || h.eof) {
			return badLine(h.line, "an empty hunk in %s: after an @@ line put the hunk's lines (' ' context, '-' removed, '+' added)", op.path)
		}
	}
	sc.ops = append(sc.ops, op)
	return nil
}

// add adds one hunk line: ' ' context, '-' removed, '+' added, or an empty
// line (an empty context line whose space was lost).
func (h *patchHunk) add(l string) error {
	switch {
	case l == "":
		h.old = append(h.old, "")
		h.new = append(h.new, "")
		h.from = append(h.from, len(h.old)-1)
	case l[0] == ' ':
		h.old = append(h.old, l[1:])
		h.new = append(h.new, l[1:])
		h.from = append(h.from, len(h.old)-1)
	case l[0] == '-':
		h.old = append(h.old, l[1:])
	case l[0] == '+':
		h.new = append(h.new, l[1:])
		h.from = append(h.from, -1)
	default:
		return fmt.Errorf("a hunk line must start with ' ', '-' or '+', got %q", l)
	}
	return nil
}

// unifiedHeader is the range part of a unified-diff hunk header
// ("@@ -12,7 +12,8 @@"), which agents sometimes write instead of a bare "@@".
var unifiedHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-\d+(,\d+)? \+\d+(,\d+)? @@`) })

// hunkContext is the text to seek to from an "@@" line: what follows "@@",
// without a unified-diff range (its numbers are not trusted; any function
// context git puts after the range is kept).
func hunkContext(l string) string {
	c := strings.TrimSpace(strings.TrimPrefix(l, "@@"))
	if m := unifiedHeader().FindString(c); m != "" {
		c = strings.TrimSpace(c[len(m):])
	}
	return c
}

// punctuation maps typographic characters to the ASCII ones a model tends to
// type in their place, for the loosest matching rung.
var punctuation = strings.NewReplacer(
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	"\u2018", "'", "\u2019", "'", "\u201A", "'", "\u201B", "'",
	"\u201C", "\"", "\u201D", "\"", "\u201E", "\"", "\u201F", "\"",
	"\u00A0", " ", "\u2002", " ", "\u2003", " ", "\u2009", " ", "\u202F", " ",
)

func loose(s string) string { return punctuation.Replace(strings.TrimSpace(s)) }

// fileLines is a text file split into lines, each with its own ending
// ("\r\n" or "\n"; "" for a last line with none), so that a file mixing
// CRLF and LF lines keeps each line's ending where a patch does not change
// the line.
type fileLines struct {
	lines []string
	ends  []string
}

func splitFile(s string) fileLines {
	var f fileLines
	for s != "" {
		line, rest, nl := strings.Cut(s, "\n")
		end := ""
		if nl {
			end = "\n"
			if strings.HasSuffix(line, "\r") {
				line, end = line[:len(line)-1], "\r\n"
			}
		}
		f.lines = append(f.lines, line)
		f.ends = append(f.ends, end)
		s = rest
	}
	return f
}

// usual returns the ending most of the file's lines have ("\n" when as
// many are LF as CRLF, or the file has none).
func (f fileLines) usual() string {
	crlf := 0
	for _, e := range f.ends {
		if e == "\r\n" {
			crlf++
		} else if e == "\n" {
			crlf--
		}
	}
	if crlf > 0 {
		return "\r\n"
	}
	return "\n"
}

func (f fileLines) join() string {
	var b strings.Builder
	for i, l := range f.lines {
		b.WriteString(l)
		b.WriteString(f.ends[i])
	}
	return b.String()
}

// newEnds returns the endings of the lines a hunk puts at f.lines[at:at+n]
// (old's n lines): a context line keeps its own, a line that takes the
// place of a removed one takes that line's, and an added line its
// neighbour's (above in the hunk, else the file's line above, else below).
func (f fileLines) newEnds(h patchHunk, at, n int) []string {
	ctx := make([]bool, n)
	for _, k := range h.from {
		if k >= 0 && k < n {
			ctx[k] = true
		}
	}
	ends := make([]string, len(h.new))
	next := 0 // the next old line a changed line may take the place of
	for i := range h.new {
		k := -1
		if i < len(h.from) {
			k = h.from[i]
		}
		switch {
		case k >= 0 && k < n:
			ends[i], next = f.ends[at+k], k+1
		case next < n && !ctx[next]:
			ends[i] = f.ends[at+next]
			next++
		case i > 0:
			ends[i] = ends[i-1]
		case at > 0:
			ends[i] = f.ends[at-1]
		case at < len(f.lines):
			ends[i] = f.ends[at]
		}
	}
	return ends
}

// seek finds old in lines at or after start: exactly, then ignoring trailing
// whitespace, then ignoring surrounding whitespace. With eof it first tries
// the end of the file.
func seek(lines, old []string, start int, eof bool) int {
	norms := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t\r") },
		strings.TrimSpace,
		loose,
	}
	for _, norm := range norms {
		match := func(at int) bool {
			for k := range old {
				if norm(lines[at+k]) != norm(old[k]) {
					return false
				}
			}
			return true
		}
		if eof {
			if at := len(lines) - len(old); at >= start && at >= 0 && match(at) {
				return at
			}
		}
		for at := start; at+len(old) <= len(lines); at++ {
			if match(at) {
				return at
			}
		}
	}
	return -1
}

// applyHunks applies an update's hunks to content, or says which hunk failed.
func applyHunks(op patchOp, content string) (string, error) {
	f := splitFile(content)
	type repl struct {
		at, n int
		new   []string
		ends  []string
	}
	var repls []repl
	cursor := 0
	for k, h := range op.hunks {
		where := fmt.Sprintf("\"*** Update File: %s\", hunk %d (patch line %d)", op.path, k+1, h.line)
		if h.context != "" {
			at := -1
			for _, norm := range []func(string) string{func(s string) string { return s }, strings.TrimSpace, loose} {
				for j := cursor; j < len(f.lines); j++ {
					if norm(f.lines[j]) == norm(h.context) {
						at = j
						break
					}
				}
				if at >= 0 {
					break
				}
			}
			if at < 0 {
				return "", fmt.Errorf("tools: apply_patch: %s: the @@ line %q is not in the file (after line %d); read the file and rebuild the hunk. Nothing was written", where, h.context, cursor)
			}
			cursor = at + 1
		}
		if len(h.old) == 0 && len(h.new) == 0 {
			continue // an anchor for the next hunk
		}
		if len(h.old) == 0 {
			at := len(f.lines)
			if h.context != "" && !h.eof {
				at = cursor
			}
			repls = append(repls, repl{at: at, n: 0, new: h.new, ends: f.newEnds(h, at, 0)})
			cursor = at
			continue
		}
		at := seek(f.lines, h.old, cursor, h.eof)
		if at < 0 && len(h.old) > 1 && h.old[len(h.old)-1] == "" {
			// A blank line closing the hunk is usually the patch's own
			// separator, not a line of the file: try again without it.
			if at = seek(f.lines, h.old[:len(h.old)-1], cursor, h.eof); at >= 0 {
				h.old = h.old[:len(h.old)-1]
				if n := len(h.new); n > 0 && h.new[n-1] == "" {
					h.new = h.new[:n-1]
					h.from = h.from[:min(n-1, len(h.from))]
				}
			}
		}
		if at < 0 {
			return "", fmt.Errorf("tools: apply_patch: %s: these lines are not in the file (after line %d):\n%s\nread the file and rebuild the hunk from its current text. Nothing was written",
				where, cursor, truncateText(strings.Join(h.old, "\n"), 1000))
		}
		repls = append(repls, repl{at: at, n: len(h.old), new: h.new, ends: f.newEnds(h, at, len(h.old))})
		cursor = at + len(h.old)
	}
	usual := f.usual()
	hadLast := len(f.lines) == 0 || f.ends[len(f.ends)-1] != ""
	out := fileLines{lines: make([]string, 0, len(f.lines)), ends: make([]string, 0, len(f.lines))}
	prev := 0
	for _, r := range repls {
		out.lines = append(append(out.lines, f.lines[prev:r.at]...), r.new...)
		out.ends = append(append(out.ends, f.ends[prev:r.at]...), r.ends...)
		prev = r.at + r.n
	}
	out.lines = append(out.lines, f.lines[prev:]...)
	out.ends = append(out.ends, f.ends[prev:]...)
	// Only the last line may lack an ending, and it does when the file's
	// last line did.
	for i, e := range out.ends {
		if e == "" {
			out.ends[i] = usual
		}
	}
	if n := len(out.ends); n > 0 && !hadLast {
		out.ends[n-1] = ""
	}
	return out.join(), nil
}

// linkRemoval is a symbolic link a patch deletes (or moves away from): the
// link goes, never the file it points to.
type linkRemoval struct {
	rel    string // relative to the root, forward slashes
	target string // what the link held, to put it back
}

// symlinkAt reports whether path names a symbolic link itself (its last
// component; the directories on the way are confined and resolved), and
// returns the link's real path, its path relative to the root and its target.
func symlinkAt(root *fsutil.Root, path string) (real, rel, target string, ok bool, err error) {
	dir, name := filepath.Split(filepath.Clean(filepath.FromSlash(path)))
	if name == "" || name == "." || name == ".." {
		return "", "", "", false, nil
	}
	if dir == "" {
		dir = "."
	}
	rdir, _, err := root.Resolve(dir)
	if err != nil {
		return "", "", "", false, err
	}
	real = filepath.Join(rdir, name)
	fi, err := os.Lstat(real)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return "", "", "", false, nil
	}
	if target, err = os.Readlink(real); err != nil {
		return "", "", "", false, err
	}
	r, err := filepath.Rel(root.RealDir(), real)
	if err != nil {
		return "", "", "", false, err
	}
	return real, filepath.ToSlash(r), target, true, nil
}

// applyPlan removes the plan's links, then applies its changes all at once;
// when the changes fail the links are put back, so the patch applies to
// every file or to none.
func applyPlan(root *fsutil.Root, changes []fsutil.Change, links []linkRemoval) error {
	if len(links) > 0 {
		r, err := os.OpenRoot(root.RealDir())
		if err != nil {
			return fmt.Errorf("tools: apply_patch: working directory: %w", err)
		}
		defer r.Close()
		var removed []linkRemoval
		restore := func() {
			for _, l := range removed {
				r.Symlink(l.target, filepath.FromSlash(l.rel))
			}
		}
		for _, l := range links {
			p := filepath.FromSlash(l.rel)
			fi, err := r.Lstat(p)
			if err == nil && fi.Mode()&fs.ModeSymlink == 0 {
				err = errors.New("it is no longer a symbolic link")
			}
			if err == nil {
				var t string
				if t, err = r.Readlink(p); err == nil && t != l.target {
					err = errors.New("the link was changed since the patch was checked")
				}
			}
			if err == nil {
				err = r.Remove(p)
			}
			if err != nil {
				restore()
				return fmt.Errorf("tools: apply_patch: deleting the link %s: %v. Nothing was written", l.rel, err)
			}
			removed = append(removed, l)
		}
		if len(changes) == 0 {
			return nil
		}
		if _, err := root.Apply(changes); err != nil {
			restore()
			return fmt.Errorf("tools: apply_patch: %s", strings.TrimPrefix(err.Error(), "fsutil: "))
		}
		return nil
	}
	if _, err := root.Apply(changes); err != nil {
		return fmt.Errorf("tools: apply_patch: %s", strings.TrimPrefix(err.Error(), "fsutil: "))
	}
	return nil
}

// planPatch checks every section of a patch against the files and returns the
// changes to apply all at once (with the content each file must still have)
// and the symbolic links to delete, or the first problem. Nothing is written.
func planPatch(root *fsutil.Root, ops []patchOp) ([]fsutil.Change, []linkRemoval, []FileChange, error) {
	pl := &patchPlan{root: root, touched: map[string]string{}}
	for _, op := range ops {
		if err := pl.add(op); err != nil {
			return nil, nil, nil, err
		}
	}
	return pl.changes, pl.links, pl.summary, nil
}

// patchPlan is what planPatch has gathered so far: the changes, the links
// to delete, the summary, and which section claimed each file.
type patchPlan struct {
	root    *fsutil.Root
	changes []fsutil.Change
	links   []linkRemoval
	summary []FileChange
	touched map[string]string // real path -> the section that names it
}

// claim records that the section what changes real, refusing a file two
// sections name.
func (pl *patchPlan) claim(real, rel, what string) error {
	if prev, ok := pl.touched[real]; ok {
		return fmt.Errorf("tools: apply_patch: %s appears twice in the patch (%s and %s); put all its changes in one section. Nothing was written", rel, prev, what)
	}
	pl.touched[real] = what
	return nil
}

// read returns the content of the file the section what changes.
func (pl *patchPlan) read(real, rel, what string) ([]byte, error) {
	data, err := pl.root.ReadFile(real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("tools: apply_patch: %s: %s does not exist. Nothing was written", what, rel)
	case errors.Is(err, fsutil.ErrNotRegular):
		return nil, fmt.Errorf("tools: apply_patch: %s: %s is not a regular file. Nothing was written", what, rel)
	case err != nil:
		return nil, fmt.Errorf("tools: apply_patch: %s: %s. Nothing was written", what, strings.TrimPrefix(err.Error(), "fsutil: "))
	}
	return data, nil
}

// add plans one section of the patch.
func (pl *patchPlan) add(op patchOp) error {
	real, rel, err := pl.root.Resolve(op.path)
	if err != nil {
		return pathErr("apply_patch", err)
	}
	if op.kind == opDelete {
		// Delete a link itself, never the file it points to (a link
		// that leads out is refused above, as every path that does).
		lreal, lrel, target, isLink, err := symlinkAt(pl.root, op.path)
		if err != nil {
			return pathErr("apply_patch", err)
		}
		if isLink {
			if err := pl.claim(lreal, lrel, "\"*** Delete File: "+op.path+"\""); err != nil {
				return err
			}
			pl.links = append(pl.links, linkRemoval{rel: lrel, target: target})
			pl.summary = append(pl.summary, FileChange{Path: lrel, Action: "deleted"})
			return nil
		}
	}
	switch op.kind {
	case opAdd:
		return pl.addFile(op, real, rel)
	case opDelete:
		what := "\"*** Delete File: " + op.path + "\""
		if err := pl.claim(real, rel, what); err != nil {
			return err
		}
		data, err := pl.read(real, rel, what)
		if err != nil {
			return err
		}
		pl.changes = append(pl.changes, fsutil.Change{Path: real, Delete: true, Expected: data})
		pl.summary = append(pl.summary, FileChange{Path: rel, Action: "deleted"})
	case opUpdate:
		return pl.updateFile(op, real, rel)
	}
	return nil
}

// addFile plans an "*** Add File:" section.
func (pl *patchPlan) addFile(op patchOp, real, rel string) error {
	what := "\"*** Add File: " + op.path + "\""
	if err := pl.claim(real, rel, what); err != nil {
		return err
	}
	if _, err := os.Lstat(real); err == nil {
		return fmt.Errorf("tools: apply_patch: %s: %s already exists; use \"*** Update File:\" to change it. Nothing was written", what, rel)
	}
	content := ""
	if len(op.lines) > 0 {
		content = strings.Join(op.lines, "\n") + "\n"
	}
	pl.changes = append(pl.changes, fsutil.Change{Path: real, Content: []byte(content), MustNotExist: true})
	pl.summary = append(pl.summary, FileChange{Path: rel, Action: "created"})
	return nil
}

// updateFile plans an "*** Update File:" section, with its "*** Move to:".
func (pl *patchPlan) updateFile(op patchOp, real, rel string) error {
	what := "\"*** Update File: " + op.path + "\""
	if err := pl.claim(real, rel, what); err != nil {
		return err
	}
	data, err := pl.read(real, rel, what)
	if err != nil {
		return err
	}
	out, err := applyHunks(op, string(data))
	if err != nil {
		return err
	}
	dreal, drel := real, rel
	if op.moveTo != "" {
		if dreal, drel, err = pl.root.Resolve(op.moveTo); err != nil {
			return pathErr("apply_patch", err)
		}
	}
	if dreal == real {
		pl.changes = append(pl.changes, fsutil.Change{Path: real, Content: []byte(out), Expected: data})
		pl.summary = append(pl.summary, FileChange{Path: rel, Action: "updated"})
		return nil
	}
	if err := pl.claim(dreal, drel, "\"*** Move to: "+op.moveTo+"\""); err != nil {
		return err
	}
	if _, err := os.Lstat(dreal); err == nil {
		return fmt.Errorf("tools: apply_patch: %s: cannot move to %s: it already exists. Nothing was written", what, drel)
	}
	// The moved file keeps its read and write permissions but no
	// execute bit: the patch format cannot say "executable", so a
	// write-tier call must not plant a program (an executable moved
	// to node_modules/.bin/tsc) that something else then runs.
	mode := fs.FileMode(0)
	if fi, err := os.Stat(real); err == nil {
		mode = fi.Mode().Perm() &^ 0o111
	}
	pl.changes = append(pl.changes, fsutil.Change{Path: dreal, Content: []byte(out), MustNotExist: true, Mode: mode})
	if _, lrel, target, isLink, err := symlinkAt(pl.root, op.path); err == nil && isLink {
		// Moving a link moves the content; the link goes, its
		// target stays.
		pl.links = append(pl.links, linkRemoval{rel: lrel, target: target})
		pl.summary = append(pl.summary, FileChange{Path: drel, Action: "created", MovedFrom: lrel})
		return nil
	}
	pl.changes = append(pl.changes, fsutil.Change{Path: real, Delete: true, Expected: data})
	pl.summary = append(pl.summary, FileChange{Path: drel, Action: "created", MovedFrom: rel})
	return nil
}
