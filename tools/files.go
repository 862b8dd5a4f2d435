package tools

import "bufio"
import "bytes"
import "context"
import "encoding/json"
import "errors"
import "fmt"
import "io"
import "io/fs"
import "os"
import "path/filepath"
import "sort"
import "strings"
import "unicode/utf8"

import "github.com/tetherhq/tether/internal/fsutil"
import "github.com/tetherhq/tether/internal/textcut"

// Limits of the read tool.
const (
	// ReadDefaultLimit is how many lines read returns when no limit is given.
	ReadDefaultLimit = 2000
	// ReadMaxLineBytes is where read cuts one long line.
	ReadMaxLineBytes = 2000
	// ReadMaxBytes is the most text one read returns.
	ReadMaxBytes = 100 << 10
	// ReadMaxImageBytes is the largest image file read returns as an image.
	ReadMaxImageBytes = 5 << 20
	// ReadMaxEntries is the most directory entries read lists.
	ReadMaxEntries = 500
)

// FileChange is one file a write, edit or apply_patch call changed.
type FileChange struct {
	// Path is relative to the working directory, with forward slashes.
	Path string `json:"path"`
	// Action is "created", "updated" or "deleted".
	Action string `json:"action"`
	// MovedFrom is the old path of a file apply_patch moved.
	MovedFrom string `json:"moved_from,omitempty"`
}

// FileChanges is the Structured result of write, edit and apply_patch: the
// files they changed (wrappers such as diagnostics-on-write read it). Its
// JSON lists the paths by action, {"updated": ["a.go", "b.go"], "moved":
// {"new.go": "old.go"}}, so that it stays near the size of the text that
// names them.
type FileChanges struct {
	Changed []FileChange `json:"changed"`
}

// fileChangesJSON is FileChanges' JSON shape.
type fileChangesJSON struct {
	Created []string `json:"created,omitempty"`
	Updated []string `json:"updated,omitempty"`
	Deleted []string `json:"deleted,omitempty"`
	// Moved maps a moved file's new path to its old one.
	Moved map[string]string `json:"moved,omitempty"`
}

// MarshalJSON writes the paths by action.
func (c FileChanges) MarshalJSON() ([]byte, error) {
	var j fileChangesJSON
	for _, f := range c.Changed {
		switch f.Action {
		case "created":
			j.Created = append(j.Created, f.Path)
		case "deleted":
			j.Deleted = append(j.Deleted, f.Path)
		default:
			j.Updated = append(j.Updated, f.Path)
		}
		if f.MovedFrom != "" {
			if j.Moved == nil {
				j.Moved = map[string]string{}
			}
			j.Moved[f.Path] = f.MovedFrom
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *FileChanges) UnmarshalJSON(b []byte) error {
	var j fileChangesJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	c.Changed = nil
	for _, g := range []struct {
		action string
		paths  []string
	}{{"created", j.Created}, {"updated", j.Updated}, {"deleted", j.Deleted}} {
		for _, p := range g.paths {
			c.Changed = append(c.Changed, FileChange{Path: p, Action: g.action, MovedFrom: j.Moved[p]})
		}
	}
	return nil
}

// ChangedFiles returns the files a write, edit or apply_patch result reports
// as changed (nil for any other result).
func ChangedFiles(r *Result) []FileChange {
	if r == nil {
		return nil
	}
	switch s := r.Structured.(type) {
	case *FileChanges:
		return s.Changed
	case FileChanges:
		return s.Changed
	}
	return nil
}

func init() {
	addFamily(family{
		name: "files",
		register: func(r *Run) (func() error, error) {
			return nil, r.reg.Register(newFileTools(r.root, &r.arts)...)
		},
		tools: func() []Tool { return newFileTools(nil, nil) },
	})
}

// newFileTools returns the harness file tools (read, write, edit, apply_patch)
// confined to root. Every run registers them.
func newFileTools(root *fsutil.Root, arts *artifactStore) []Tool {
	f := &fileTools{root: root, arts: arts}
	return []Tool{
		Typed(Tool{
			Name: "read",
			Tier: TierRead,
			Description: "Read a text file in the working directory, with line numbers (cat -n style). " +
				"Returns up to 2000 lines from offset (1-based); says when the output was cut and how to read on. " +
				"Images (png, jpeg, gif, webp) come back as images; a directory lists its entries (offset and limit count entries there, at most 500). " +
				"A path artifact:NAME opens output a result put in the run's artifacts area (an eval cell's whole stdout); it lasts as long as the run.",
		}, f.read),
		Typed(Tool{
			Name: "write",
			Tier: TierWrite,
			Description: "Create or overwrite a file in the working directory with the given content (atomically; " +
				"missing parent directories are created). Prefer edit or apply_patch to change part of an existing file.",
			Writes:  writesFor(writeArgs.targets),
			Preview: previewFor(f.previewWrite),
		}, f.write),
		Typed(Tool{
			Name: "edit",
			Tier: TierWrite,
			Description: "Replace an exact string in a file. old_string must match the file exactly (whitespace " +
				"included) and only once, unless replace_all is true; otherwise nothing is changed and the error says " +
				"how many matches there were. Include enough surrounding lines to make old_string unique.",
			Writes:  writesFor(editArgs.targets),
			Preview: previewFor(f.previewEdit),
		}, f.edit),
		Typed(Tool{
			Name: "apply_patch",
			Tier: TierWrite,
			Description: "Apply a patch to one or more files, all or nothing. Format:\n" +
				"*** Begin Patch\n*** Add File: path\n+line\n*** Update File: path\n*** Move to: new/path (optional)\n" +
				"@@ a line near the change (optional)\n context line\n-removed line\n+added line\n" +
				"*** Delete File: path\n*** End Patch\n" +
				"Every hunk is checked before anything is written; if one does not apply, no file changes.",
			Writes:  writesFor(patchTargets),
			Preview: previewFor(f.previewPatch),
		}, f.applyPatch),
	}
}

type fileTools struct {
	root *fsutil.Root
	arts *artifactStore // the run's artifacts area: paths with ArtifactPrefix
}

// readArgs are read's arguments.
type readArgs struct {
	Path   string `json:"path" jsonschema:"file path, relative to the working directory, or an artifact:NAME a result named (output too large for it)" bounds:"minLength=1"`
	Offset int    `json:"offset,omitempty" jsonschema:"first line to return (1-based, default 1)" bounds:"minimum=1"`
	Limit  int    `json:"limit,omitempty" jsonschema:"how many lines to return (default 2000)" bounds:"minimum=1"`
}

// writeArgs are write's arguments.
type writeArgs struct {
	Path    string `json:"path" jsonschema:"file path, relative to the working directory" bounds:"minLength=1"`
	Content string `json:"content" jsonschema:"the complete new content of the file"`
}

// editArgs are edit's arguments.
type editArgs struct {
	Path       string `json:"path" jsonschema:"file path, relative to the working directory" bounds:"minLength=1"`
	OldString  string `json:"old_string" jsonschema:"the exact text to replace" bounds:"minLength=1"`
	NewString  string `json:"new_string" jsonschema:"the text to put in its place; must differ from old_string"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence (default false)"`
}

// patchArgs are apply_patch's arguments.
type patchArgs struct {
	Patch string `json:"patch" jsonschema:"the patch, from *** Begin Patch to *** End Patch" bounds:"minLength=1"`
}

// exactText: a path that does not decode exactly names another file, and
// write, edit and apply_patch write the text they are given.
func (readArgs) exactText()  {}
func (writeArgs) exactText() {}
func (editArgs) exactText()  {}
func (patchArgs) exactText() {}

// targets is the file write writes: its path.
func (a writeArgs) targets() []string { return []string{a.Path} }

// targets is the file edit writes: its path.
func (a editArgs) targets() []string { return []string{a.Path} }

// patchTargets are the files apply_patch writes: those its patch adds,
// updates, moves (from and to) or deletes; nil when it does not parse.
func patchTargets(a patchArgs) []string {
	ops, err := parsePatch(a.Patch)
	if err != nil {
		return nil
	}
	var out []string
	for _, op := range ops {
		out = append(out, op.path)
		if op.moveTo != "" {
			out = append(out, op.moveTo)
		}
	}
	return out
}

// pathErr turns a confinement error into a tool error.
func pathErr(tool string, err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "fsutil: ")
	if errors.Is(err, fsutil.ErrOutside) {
		return fmt.Errorf("tools: %s: refused: %s", tool, msg)
	}
	return fmt.Errorf("tools: %s: %s", tool, msg)
}

var imageTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
}

func (f *fileTools) read(ctx context.Context, call *Call, a readArgs) (*Result, noOutput, error) {
	// Open through the root, not by the resolved path: a link swapped in
	// after the check cannot lead the read out of the working directory.
	if strings.HasPrefix(a.Path, ArtifactPrefix) && f.arts != nil {
		fh, err := f.arts.open(a.Path)
		if err != nil {
			return nil, nil, err
		}
		defer fh.Close()
		res, err := f.readOpen(ctx, fh, a.Path, a)
		return res, nil, err
	}
	fh, rel, err := f.root.Open(a.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("tools: read: %s does not exist; check the path (relative to the working directory)", rel)
	}
	if err != nil {
		return nil, nil, pathErr("read", err)
	}
	defer fh.Close()
	res, err := f.readOpen(ctx, fh, rel, a)
	return res, nil, err
}

// readOpen reads the open file fh, named rel in what it says.
func (f *fileTools) readOpen(ctx context.Context, fh *os.File, rel string, a readArgs) (*Result, error) {
	fi, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("tools: read: %s: %v", rel, err)
	}
	if fi.IsDir() {
		return f.listDir(fh, rel, a.Offset, a.Limit)
	}
	if fi.Size() == 0 {
		return Text(fmt.Sprintf("(%s is empty: 0 bytes)", rel)), nil
	}
	br := bufio.NewReaderSize(fh, 64<<10)
	head, _ := br.Peek(8000)
	// An image is recognised by its content: a model sent bytes that are not
	// the image their type says rejects the whole request.
	if mt := sniffImage(head); mt != "" {
		if fi.Size() > ReadMaxImageBytes {
			return nil, fmt.Errorf("tools: read: %s is an image of %d bytes, more than the %d bytes read returns", rel, fi.Size(), ReadMaxImageBytes)
		}
		data, err := io.ReadAll(io.LimitReader(br, ReadMaxImageBytes+1))
		if err != nil {
			return nil, fmt.Errorf("tools: read: %s: %v", rel, err)
		}
		if len(data) > ReadMaxImageBytes {
			return nil, fmt.Errorf("tools: read: %s is an image of more than the %d bytes read returns", rel, ReadMaxImageBytes)
		}
		return &Result{Content: []Content{
			{Type: TextContent, Text: fmt.Sprintf("%s (%s, %d bytes)", rel, mt, len(data))},
			{Type: ImageContent, MIMEType: mt, Data: data},
		}}, nil
	}
	note := ""
	if mt, ok := imageTypes[strings.ToLower(filepath.Ext(rel))]; ok {
		note = fmt.Sprintf("(%s is not a %s image, whatever its name says: read as a file)\n", rel, mt)
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return Text(fmt.Sprintf("%s(%s is a binary file of %d bytes; not shown)", note, rel, fi.Size())), nil
	}
	offset := a.Offset
	if offset == 0 {
		offset = 1
	}
	limit := a.Limit
	if limit == 0 {
		limit = ReadDefaultLimit
	}
	// Stream the file: only the lines shown are kept (each cut at
	// ReadMaxLineBytes), the rest are counted.
	var b strings.Builder
	last, cutLines, total := offset-1, 0, 0
	full := false
	trailingNL := false
	err = eachLine(br, ReadMaxLineBytes, func(n int, line []byte, size int, nl bool) error {
		total, trailingNL = n, nl
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if n < offset || n >= offset+limit || full {
			return nil
		}
		text := strings.TrimSuffix(string(line), "\r")
		if size > ReadMaxLineBytes {
			text = textcut.Prefix(text, ReadMaxLineBytes)
			text += fmt.Sprintf(" ... (line cut: %d of %d bytes shown)", len(text), size)
			cutLines++
		}
		entry := fmt.Sprintf("%6d\t%s\n", n, text)
		if b.Len()+len(entry) > ReadMaxBytes && n > offset {
			full = true
			return nil
		}
		b.WriteString(entry)
		last = n
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tools: read: %s: %w", rel, err)
	}
	if offset > total {
		return nil, fmt.Errorf("tools: read: offset %d is past the end: %s has %s; call read with a smaller offset", offset, rel, plural(total, "line"))
	}
	out := note + b.String()
	switch {
	case last < total:
		out += fmt.Sprintf("... (lines %d-%d of %d shown; call read with offset %d to continue)\n", offset, last, total, last+1)
	case offset > 1:
		out += fmt.Sprintf("(lines %d-%d of %d shown: end of file)\n", offset, last, total)
	}
	if !trailingNL && last == total {
		out += "(no newline at end of file)\n"
	}
	if cutLines > 0 {
		out += fmt.Sprintf("(%d long lines were cut at %d bytes)\n", cutLines, ReadMaxLineBytes)
	}
	return Text(strings.TrimSuffix(out, "\n")), nil
}

// eachLine calls fn for every line of r (1-based n) with at most keep bytes of
// the line (without its newline), the line's full size, and whether it ended
// with a newline. Long lines are never held in memory whole.
func eachLine(r *bufio.Reader, keep int, fn func(n int, line []byte, size int, nl bool) error) error {
	n := 0
	var buf []byte
	size := 0
	for {
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			if room := keep + 4 - len(buf); room > 0 {
				buf = append(buf, chunk[:min(room, len(chunk))]...)
			}
			size += len(chunk)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == nil:
			n++
			line := bytes.TrimSuffix(buf, []byte("\n"))
			if ferr := fn(n, line, size-1, true); ferr != nil {
				return ferr
			}
		case errors.Is(err, io.EOF):
			if size > 0 {
				n++
				return fn(n, buf, size, false)
			}
			return nil
		default:
			return err
		}
		buf, size = buf[:0], 0
	}
}

func (f *fileTools) listDir(dir *os.File, rel string, offset, limit int) (*Result, error) {
	ents, err := dir.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("tools: read: %s: %v", rel, err)
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		} else if e.Type()&fs.ModeSymlink != 0 {
			n += "@"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return Text(fmt.Sprintf("(%s/ is an empty directory)", rel)), nil
	}
	// offset and limit count entries, as they count lines in a file.
	if offset == 0 {
		offset = 1
	}
	if limit == 0 || limit > ReadMaxEntries {
		limit = ReadMaxEntries
	}
	if offset > len(names) {
		return nil, fmt.Errorf("tools: read: offset %d is past the end: %s/ has %s; call read with a smaller offset", offset, rel, plural(len(names), "entry"))
	}
	end := min(offset-1+limit, len(names))
	out := fmt.Sprintf("%s/ is a directory with %s:\n%s", rel, plural(len(names), "entry"), strings.Join(names[offset-1:end], "\n"))
	switch {
	case end < len(names):
		out += fmt.Sprintf("\n... (entries %d-%d of %d shown; call read with offset %d to continue)", offset, end, len(names), end+1)
	case offset > 1:
		out += fmt.Sprintf("\n(entries %d-%d of %d shown: end of directory)", offset, end, len(names))
	}
	return Text(out), nil
}

// sniffImage returns the MIME type of the image format head starts with
// (PNG, JPEG, GIF, WebP: the ones read returns as images), or "".
func sniffImage(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "image/gif"
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// plural renders "1 line" or "3 lines".
func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	if strings.HasSuffix(unit, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(unit, "y"))
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func (f *fileTools) write(ctx context.Context, call *Call, a writeArgs) (*Result, *FileChanges, error) {
	real, rel, err := f.root.Resolve(a.Path)
	if err != nil {
		return nil, nil, pathErr("write", err)
	}
	if fi, err := os.Stat(real); err == nil && fi.IsDir() {
		return nil, nil, fmt.Errorf("tools: write: %s is a directory; give a file path", rel)
	}
	if strings.HasSuffix(filepath.ToSlash(a.Path), "/") {
		return nil, nil, fmt.Errorf("tools: write: %q ends with a slash, so it names a directory; give a file path (write creates missing parent directories)", a.Path)
	}
	applied, err := f.root.Apply([]fsutil.Change{{Path: real, Content: []byte(a.Content)}})
	if err != nil {
		return nil, nil, pathErr("write", err)
	}
	action := "updated"
	if applied[0].Created {
		action = "created"
	}
	res := Text(fmt.Sprintf("wrote %s (%s) to %s (%s)", plural(len(a.Content), "byte"), plural(countLines(a.Content), "line"), rel, action))
	return res, &FileChanges{Changed: []FileChange{{Path: rel, Action: action}}}, nil
}

func (f *fileTools) edit(ctx context.Context, call *Call, a editArgs) (*Result, *FileChanges, error) {
	e, err := f.planEdit(a)
	if err != nil {
		return nil, nil, err
	}
	if _, err := f.root.Apply([]fsutil.Change{{Path: e.real, Content: []byte(e.out), Expected: e.data}}); err != nil {
		return nil, nil, pathErr("edit", err)
	}
	msg := fmt.Sprintf("edited %s: replaced 1 occurrence at line %d", e.rel, e.line)
	if e.n > 1 {
		msg = fmt.Sprintf("edited %s: replaced %d occurrences (first at line %d)", e.rel, e.n, e.line)
	}
	res := Text(msg)
	return res, &FileChanges{Changed: []FileChange{{Path: e.rel, Action: "updated"}}}, nil
}

// plannedEdit is an edit worked out but not written: the file, its content
// now (data) and after (out), how many places changed and the first's line.
type plannedEdit struct {
	real, rel string
	data      []byte
	out       string
	n, line   int
}

// planEdit checks an edit call against its file and computes the new
// content without writing it (the edit itself and its permission preview).
func (f *fileTools) planEdit(a editArgs) (plannedEdit, error) {
	real, rel, err := f.root.Resolve(a.Path)
	if err != nil {
		return plannedEdit{}, pathErr("edit", err)
	}
	data, err := f.root.ReadFile(real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return plannedEdit{}, fmt.Errorf("tools: edit: %s does not exist; use write to create a file", rel)
	case errors.Is(err, fsutil.ErrNotRegular):
		return plannedEdit{}, fmt.Errorf("tools: edit: %s is not a regular file; edit changes files", rel)
	case err != nil:
		return plannedEdit{}, pathErr("edit", err)
	}
	if a.OldString == a.NewString {
		return plannedEdit{}, fmt.Errorf("tools: edit: old_string and new_string are the same; nothing to change in %s", rel)
	}
	text := string(data)
	n := strings.Count(text, a.OldString)
	if n == 0 && strings.Contains(text, "\r\n") && strings.Contains(a.OldString, "\n") && !strings.Contains(a.OldString, "\r") {
		// The file has CRLF line endings and the strings were written with LF.
		crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
		if m := strings.Count(text, crlf(a.OldString)); m > 0 {
			a.OldString, a.NewString, n = crlf(a.OldString), crlf(a.NewString), m
		}
	}
	switch {
	case n == 0:
		hint := "read the file and copy the exact text, whitespace and indentation included"
		if strings.Contains(strings.Join(strings.Fields(text), " "), strings.Join(strings.Fields(a.OldString), " ")) {
			hint = "the text is there with different whitespace or indentation; copy it exactly from read's output (without the line-number prefix)"
		}
		return plannedEdit{}, fmt.Errorf("tools: edit: old_string was not found in %s; %s. Nothing was changed", rel, hint)
	case n > 1 && !a.ReplaceAll:
		return plannedEdit{}, fmt.Errorf("tools: edit: old_string matches %d places in %s (lines %s); add surrounding lines to make it unique, or set replace_all to replace all %d. Nothing was changed",
			n, rel, matchLines(text, a.OldString, 10), n)
	}
	line := strings.Count(text[:strings.Index(text, a.OldString)], "\n") + 1
	var out string
	if a.ReplaceAll {
		out = strings.ReplaceAll(text, a.OldString, a.NewString)
	} else {
		out = strings.Replace(text, a.OldString, a.NewString, 1)
	}
	return plannedEdit{real: real, rel: rel, data: data, out: out, n: n, line: line}, nil
}

// matchLines lists the line numbers where sub starts in text (at most max).
func matchLines(text, sub string, max int) string {
	// One entry per line, with a count when the line holds several matches:
	// "1 (3 times), 5 (2 times), 6".
	var lines, counts []int
	off := 0
	for {
		i := strings.Index(text[off:], sub)
		if i < 0 {
			break
		}
		ln := strings.Count(text[:off+i], "\n") + 1
		if k := len(lines); k > 0 && lines[k-1] == ln {
			counts[k-1]++
		} else {
			lines, counts = append(lines, ln), append(counts, 1)
		}
		off += i + len(sub)
	}
	var parts []string
	for k, ln := range lines {
		if k == max {
			parts = append(parts, "...")
			break
		}
		if counts[k] > 1 {
			parts = append(parts, fmt.Sprintf("%d (%d times)", ln, counts[k]))
		} else {
			parts = append(parts, fmt.Sprint(ln))
		}
	}
	return strings.Join(parts, ", ")
}

func (f *fileTools) applyPatch(ctx context.Context, call *Call, a patchArgs) (*Result, *FileChanges, error) {
	ops, err := parsePatch(a.Patch)
	if err != nil {
		return nil, nil, err
	}
	changes, links, summary, err := planPatch(f.root, ops)
	if err != nil {
		return nil, nil, err
	}
	if err := applyPlan(f.root, changes, links); err != nil {
		return nil, nil, err
	}
	lines := make([]string, len(summary))
	for i, c := range summary {
		switch {
		case c.MovedFrom != "":
			lines[i] = fmt.Sprintf("R %s -> %s", c.MovedFrom, c.Path)
		case c.Action == "created":
			lines[i] = "A " + c.Path
		case c.Action == "deleted":
			lines[i] = "D " + c.Path
		default:
			lines[i] = "M " + c.Path
		}
	}
	res := Text(fmt.Sprintf("applied the patch to %s:\n%s", plural(len(summary), "file"), strings.Join(lines, "\n")))
	return res, &FileChanges{Changed: summary}, nil
}

// checkText refuses arguments whose strings are not exact Unicode text: bytes
// that are not UTF-8, or a \uD800-\uDFFF escape that is not half of a
// surrogate pair. encoding/json turns either into U+FFFD without a word, so
// a file would get bytes the caller never sent. It looks at the raw JSON.
func checkText(tool string, raw json.RawMessage) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil // not an object: the schema check says so
	}
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if what := badText(fields[k]); what != "" {
			return fmt.Errorf("tools: %s: %s holds %s; JSON text must be UTF-8 and a lone surrogate is no character, so it cannot be written exactly (it is not replaced with U+FFFD): send the text as valid Unicode. Nothing was written", tool, k, what)
		}
	}
	return nil
}

// badText describes the first byte sequence of a raw JSON value that is not
// UTF-8 or the first lone surrogate escape in it, or returns "".
func badText(raw []byte) string {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				return fmt.Sprintf("invalid UTF-8 (byte 0x%02x at offset %d of its JSON value)", c, i)
			}
			i += size
			continue
		}
		if c != '\\' || i+1 >= len(raw) {
			i++
			continue
		}
		if raw[i+1] != 'u' {
			i += 2
			continue
		}
		u, ok := hex4(raw[i+2:])
		switch {
		case !ok:
			i += 2
		case u >= 0xD800 && u <= 0xDBFF:
			if len(raw) >= i+12 && raw[i+6] == '\\' && raw[i+7] == 'u' {
				if l, ok := hex4(raw[i+8:]); ok && l >= 0xDC00 && l <= 0xDFFF {
					i += 12
					continue
				}
			}
			return fmt.Sprintf("a lone surrogate (%s at offset %d of its JSON value, not followed by a low surrogate)", raw[i:i+6], i)
		case u >= 0xDC00 && u <= 0xDFFF:
			return fmt.Sprintf("a lone surrogate (%s at offset %d of its JSON value, not preceded by a high surrogate)", raw[i:i+6], i)
		default:
			i += 6
		}
	}
	return ""
}

// hex4 parses the four hex digits b starts with.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
