package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tetherhq/tether/internal/fsutil"
)

// PatchOpKind is what one file section of a patch does.
type PatchOpKind int

// The kinds of patch sections.
const (
	PatchAdd PatchOpKind = iota + 1
	PatchUpdate
	PatchDelete
)

// PatchOp is one file section of an apply_patch patch.
type PatchOp struct {
	Kind PatchOpKind
	// Path is the file as written in the patch.
	Path string
	// MoveTo is the new path of an updated file ("*** Move to:"), or "".
	MoveTo string
	// Lines is the content of an added file, one entry per line.
	Lines []string
	// Hunks are the changes of an updated file, in order.
	Hunks []PatchHunk
	// line is where the section starts in the patch (1-based), for errors.
	line int
}

// PatchHunk is one "@@" hunk of an update: an optional context line to seek to
// first, then the old lines (context and removed) that are replaced by the new
// lines (context and added).
type PatchHunk struct {
	// Context is the text after "@@ ", or "".
	Context string
	Old     []string
	New     []string
	// EOF is set by "*** End of File": the old lines end the file.
	EOF  bool
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

var heredocStart = regexp.MustCompile(`^(apply_patch\s*)?<<-?\s*['"]?(EOF|PATCH)['"]?$`)

// ParsePatch parses a patch in the "*** Begin Patch" format. It does not touch
// the file system.
func ParsePatch(patch string) ([]PatchOp, error) {
	text := strings.ReplaceAll(patch, "\r\n", "\n")
	lines := strings.Split(strings.TrimRight(strings.TrimLeft(text, "\n \t"), "\n \t"), "\n")
	// Accept the patch wrapped in a shell heredoc, as agents sometimes send it:
	// apply_patch <<'EOF' ... EOF.
	if len(lines) > 2 && heredocStart.MatchString(strings.TrimSpace(lines[0])) {
		lines = lines[1:]
		if last := strings.TrimSpace(lines[len(lines)-1]); last == "EOF" || last == "PATCH" {
			lines = lines[:len(lines)-1]
		}
	}
	bad := func(n int, format string, args ...any) error {
		return fmt.Errorf("tools: apply_patch: line %d: %s; nothing was written", n, fmt.Sprintf(format, args...))
	}
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != patchBegin {
		return nil, errors.New("tools: apply_patch: the patch must start with \"*** Begin Patch\"; nothing was written")
	}
	if strings.TrimSpace(lines[len(lines)-1]) != patchEnd {
		return nil, errors.New("tools: apply_patch: the patch must end with \"*** End Patch\" (was it cut off?); nothing was written")
	}
	lines = lines[1 : len(lines)-1]
	var ops []PatchOp
	i := 0
	for i < len(lines) {
		n := i + 2 // 1-based line number in the patch (after Begin Patch)
		l := lines[i]
		switch {
		case strings.HasPrefix(l, patchAdd):
			op := PatchOp{Kind: PatchAdd, Path: strings.TrimSpace(strings.TrimPrefix(l, patchAdd)), line: n}
			i++
			for i < len(lines) && !strings.HasPrefix(lines[i], "*** ") {
				if strings.TrimSpace(lines[i]) == "" {
					// A blank line between sections separates them; one
					// followed by more '+' lines is an empty line whose '+'
					// was forgotten.
					j := i
					for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
						j++
					}
					if j == len(lines) || strings.HasPrefix(lines[j], "*** ") {
						i = j
						break
					}
					op.Lines = append(op.Lines, "")
					i++
					continue
				}
				if !strings.HasPrefix(lines[i], "+") {
					return nil, bad(i+2, "in \"*** Add File: %s\" every line must start with '+', got %q", op.Path, lines[i])
				}
				op.Lines = append(op.Lines, lines[i][1:])
				i++
			}
			ops = append(ops, op)
		case strings.HasPrefix(l, patchDelete):
			ops = append(ops, PatchOp{Kind: PatchDelete, Path: strings.TrimSpace(strings.TrimPrefix(l, patchDelete)), line: n})
			i++
		case strings.HasPrefix(l, patchUpdate):
			op := PatchOp{Kind: PatchUpdate, Path: strings.TrimSpace(strings.TrimPrefix(l, patchUpdate)), line: n}
			i++
			if i < len(lines) && strings.HasPrefix(lines[i], patchMove) {
				op.MoveTo = strings.TrimSpace(strings.TrimPrefix(lines[i], patchMove))
				i++
			}
			var cur *PatchHunk
			for i < len(lines) {
				l := lines[i]
				if strings.HasPrefix(l, "*** ") && strings.TrimSpace(l) != patchEOF {
					break
				}
				switch {
				case strings.TrimSpace(l) == patchEOF:
					if cur == nil {
						return nil, bad(i+2, "\"*** End of File\" before any hunk in %s", op.Path)
					}
					cur.EOF = true
					cur = nil
				case strings.HasPrefix(l, "@@"):
					op.Hunks = append(op.Hunks, PatchHunk{Context: hunkContext(l), line: i + 2})
					cur = &op.Hunks[len(op.Hunks)-1]
				default:
					if cur == nil {
						if len(op.Hunks) > 0 && op.Hunks[len(op.Hunks)-1].EOF {
							return nil, bad(i+2, "a hunk line after \"*** End of File\" in %s; start a new hunk with @@", op.Path)
						}
						// The first hunk may omit its "@@" line.
						op.Hunks = append(op.Hunks, PatchHunk{line: i + 2})
						cur = &op.Hunks[len(op.Hunks)-1]
					}
					switch {
					case l == "":
						cur.Old = append(cur.Old, "")
						cur.New = append(cur.New, "")
					case l[0] == ' ':
						cur.Old = append(cur.Old, l[1:])
						cur.New = append(cur.New, l[1:])
					case l[0] == '-':
						cur.Old = append(cur.Old, l[1:])
					case l[0] == '+':
						cur.New = append(cur.New, l[1:])
					default:
						return nil, bad(i+2, "in \"*** Update File: %s\" a hunk line must start with ' ', '-' or '+', got %q", op.Path, l)
					}
				}
				i++
			}
			if len(op.Hunks) == 0 && op.MoveTo == "" {
				return nil, bad(n, "\"*** Update File: %s\" has no hunks", op.Path)
			}
			for k, h := range op.Hunks {
				// "@@ class A" directly followed by "@@ def f():" narrows the
				// search step by step: a hunk with only a context line is an
				// anchor for the next one.
				if len(h.Old) == 0 && len(h.New) == 0 && (h.Context == "" || k == len(op.Hunks)-1 || h.EOF) {
					return nil, bad(h.line, "an empty hunk in %s: after an @@ line put the hunk's lines (' ' context, '-' removed, '+' added)", op.Path)
				}
			}
			ops = append(ops, op)
		case strings.TrimSpace(l) == "":
			i++
		default:
			return nil, bad(n, "expected \"*** Add File: \", \"*** Update File: \", \"*** Delete File: \" or \"*** End Patch\", got %q", l)
		}
	}
	if len(ops) == 0 {
		return nil, errors.New("tools: apply_patch: the patch changes no files; nothing was written")
	}
	for _, op := range ops {
		if op.Path == "" {
			return nil, bad(op.line, "a file section without a path")
		}
	}
	return ops, nil
}

// unifiedHeader is the range part of a unified-diff hunk header
// ("@@ -12,7 +12,8 @@"), which agents sometimes write instead of a bare "@@".
var unifiedHeader = regexp.MustCompile(`^-\d+(,\d+)? \+\d+(,\d+)? @@`)

// hunkContext is the text to seek to from an "@@" line: what follows "@@",
// without a unified-diff range (its numbers are not trusted; any function
// context git puts after the range is kept).
func hunkContext(l string) string {
	c := strings.TrimSpace(strings.TrimPrefix(l, "@@"))
	if m := unifiedHeader.FindString(c); m != "" {
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

// fileLines is a text file split into lines, remembering its line ending and
// whether it ended with one.
type fileLines struct {
	lines    []string
	crlf     bool
	trailing bool
	wasEmpty bool
}

func splitFile(s string) fileLines {
	if s == "" {
		return fileLines{wasEmpty: true, trailing: true}
	}
	f := fileLines{trailing: strings.HasSuffix(s, "\n")}
	f.crlf = strings.Count(s, "\r\n") > 0 && strings.Count(s, "\r\n") == strings.Count(s, "\n")
	if f.crlf {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	f.lines = strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return f
}

func (f fileLines) join() string {
	if len(f.lines) == 0 {
		return ""
	}
	s := strings.Join(f.lines, "\n")
	if f.trailing {
		s += "\n"
	}
	if f.crlf {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
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
func applyHunks(op PatchOp, content string) (string, error) {
	f := splitFile(content)
	type repl struct {
		at, n int
		new   []string
	}
	var repls []repl
	cursor := 0
	for k, h := range op.Hunks {
		where := fmt.Sprintf("\"*** Update File: %s\", hunk %d (patch line %d)", op.Path, k+1, h.line)
		if h.Context != "" {
			at := -1
			for _, norm := range []func(string) string{func(s string) string { return s }, strings.TrimSpace, loose} {
				for j := cursor; j < len(f.lines); j++ {
					if norm(f.lines[j]) == norm(h.Context) {
						at = j
						break
					}
				}
				if at >= 0 {
					break
				}
			}
			if at < 0 {
				return "", fmt.Errorf("tools: apply_patch: %s: the @@ line %q is not in the file (after line %d); read the file and rebuild the hunk. Nothing was written", where, h.Context, cursor)
			}
			cursor = at + 1
		}
		if len(h.Old) == 0 && len(h.New) == 0 {
			continue // an anchor for the next hunk
		}
		if len(h.Old) == 0 {
			at := len(f.lines)
			if h.Context != "" && !h.EOF {
				at = cursor
			}
			repls = append(repls, repl{at: at, n: 0, new: h.New})
			cursor = at
			continue
		}
		at := seek(f.lines, h.Old, cursor, h.EOF)
		if at < 0 && len(h.Old) > 1 && h.Old[len(h.Old)-1] == "" {
			// A blank line closing the hunk is usually the patch's own
			// separator, not a line of the file: try again without it.
			if at = seek(f.lines, h.Old[:len(h.Old)-1], cursor, h.EOF); at >= 0 {
				h.Old = h.Old[:len(h.Old)-1]
				if n := len(h.New); n > 0 && h.New[n-1] == "" {
					h.New = h.New[:n-1]
				}
			}
		}
		if at < 0 {
			return "", fmt.Errorf("tools: apply_patch: %s: these lines are not in the file (after line %d):\n%s\nread the file and rebuild the hunk from its current text. Nothing was written",
				where, cursor, TruncateText(strings.Join(h.Old, "\n"), 1000))
		}
		repls = append(repls, repl{at: at, n: len(h.Old), new: h.New})
		cursor = at + len(h.Old)
	}
	out := make([]string, 0, len(f.lines))
	prev := 0
	for _, r := range repls {
		out = append(out, f.lines[prev:r.at]...)
		out = append(out, r.new...)
		prev = r.at + r.n
	}
	out = append(out, f.lines[prev:]...)
	f.lines = out
	return f.join(), nil
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
func planPatch(root *fsutil.Root, ops []PatchOp) ([]fsutil.Change, []linkRemoval, []FileChange, error) {
	var changes []fsutil.Change
	var links []linkRemoval
	var summary []FileChange
	touched := map[string]string{}
	claim := func(real, rel, what string) error {
		if prev, ok := touched[real]; ok {
			return fmt.Errorf("tools: apply_patch: %s appears twice in the patch (%s and %s); put all its changes in one section. Nothing was written", rel, prev, what)
		}
		touched[real] = what
		return nil
	}
	read := func(real, rel, what string) ([]byte, error) {
		data, err := root.ReadFile(real)
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
	for _, op := range ops {
		real, rel, err := root.Resolve(op.Path)
		if err != nil {
			return nil, nil, nil, pathErr("apply_patch", err)
		}
		if op.Kind == PatchDelete {
			// Delete a link itself, never the file it points to (a link
			// that leads out is refused above, as every path that does).
			lreal, lrel, target, isLink, err := symlinkAt(root, op.Path)
			if err != nil {
				return nil, nil, nil, pathErr("apply_patch", err)
			}
			if isLink {
				if err := claim(lreal, lrel, "\"*** Delete File: "+op.Path+"\""); err != nil {
					return nil, nil, nil, err
				}
				links = append(links, linkRemoval{rel: lrel, target: target})
				summary = append(summary, FileChange{Path: lrel, Action: "deleted"})
				continue
			}
		}
		switch op.Kind {
		case PatchAdd:
			what := "\"*** Add File: " + op.Path + "\""
			if err := claim(real, rel, what); err != nil {
				return nil, nil, nil, err
			}
			if _, err := os.Lstat(real); err == nil {
				return nil, nil, nil, fmt.Errorf("tools: apply_patch: %s: %s already exists; use \"*** Update File:\" to change it. Nothing was written", what, rel)
			}
			content := ""
			if len(op.Lines) > 0 {
				content = strings.Join(op.Lines, "\n") + "\n"
			}
			changes = append(changes, fsutil.Change{Path: real, Content: []byte(content), MustNotExist: true})
			summary = append(summary, FileChange{Path: rel, Action: "created"})
		case PatchDelete:
			what := "\"*** Delete File: " + op.Path + "\""
			if err := claim(real, rel, what); err != nil {
				return nil, nil, nil, err
			}
			data, err := read(real, rel, what)
			if err != nil {
				return nil, nil, nil, err
			}
			changes = append(changes, fsutil.Change{Path: real, Delete: true, Expected: data})
			summary = append(summary, FileChange{Path: rel, Action: "deleted"})
		case PatchUpdate:
			what := "\"*** Update File: " + op.Path + "\""
			if err := claim(real, rel, what); err != nil {
				return nil, nil, nil, err
			}
			data, err := read(real, rel, what)
			if err != nil {
				return nil, nil, nil, err
			}
			out, err := applyHunks(op, string(data))
			if err != nil {
				return nil, nil, nil, err
			}
			if op.MoveTo == "" {
				changes = append(changes, fsutil.Change{Path: real, Content: []byte(out), Expected: data})
				summary = append(summary, FileChange{Path: rel, Action: "updated"})
				continue
			}
			dreal, drel, err := root.Resolve(op.MoveTo)
			if err != nil {
				return nil, nil, nil, pathErr("apply_patch", err)
			}
			if dreal == real {
				changes = append(changes, fsutil.Change{Path: real, Content: []byte(out), Expected: data})
				summary = append(summary, FileChange{Path: rel, Action: "updated"})
				continue
			}
			if err := claim(dreal, drel, "\"*** Move to: "+op.MoveTo+"\""); err != nil {
				return nil, nil, nil, err
			}
			if _, err := os.Lstat(dreal); err == nil {
				return nil, nil, nil, fmt.Errorf("tools: apply_patch: %s: cannot move to %s: it already exists. Nothing was written", what, drel)
			}
			// The moved file keeps its read and write permissions but no
			// execute bit: the patch format cannot say "executable", so a
			// write-tier call must not plant a program (an executable moved
			// to node_modules/.bin/tsc) that something else then runs.
			mode := fs.FileMode(0)
			if fi, err := os.Stat(real); err == nil {
				mode = fi.Mode().Perm() &^ 0o111
			}
			changes = append(changes, fsutil.Change{Path: dreal, Content: []byte(out), MustNotExist: true, Mode: mode})
			if _, lrel, target, isLink, err := symlinkAt(root, op.Path); err == nil && isLink {
				// Moving a link moves the content; the link goes, its
				// target stays.
				links = append(links, linkRemoval{rel: lrel, target: target})
				summary = append(summary, FileChange{Path: drel, Action: "created", MovedFrom: lrel})
				continue
			}
			changes = append(changes, fsutil.Change{Path: real, Delete: true, Expected: data})
			summary = append(summary, FileChange{Path: drel, Action: "created", MovedFrom: rel})
		}
	}
	return changes, links, summary, nil
}
