package tools

import "fmt"
import "strings"

import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/stage"

// StagedDiff is the Structured result of ast_edit and of resolve's show
// action: every file of a staged edit with its counts, and which lines of
// the diff (of the whole edit, or of File) the text shows.
type StagedDiff struct {
	EditID       string       `json:"edit_id"`
	Replacements int          `json:"replacements"`
	Files        []StagedFile `json:"files"`
	// File is the file whose diff is shown ("" for the whole edit).
	File string `json:"file,omitempty"`
	// Lines counts the diff's lines; Start of them were skipped and Shown
	// are in the text. Next is the start of the next page (0 when none).
	Lines int `json:"lines"`
	Start int `json:"start,omitempty"`
	Shown int `json:"shown"`
	Next  int `json:"next,omitempty"`

	whole string // the whole diff, when the text shows a page of it
}

// attachWhole hands the whole diff to a host along with out's text, which
// shows a page of it (Content.Full), when d has more than a page.
func (d *StagedDiff) attachWhole(out *Result) {
	if d.whole != "" && len(out.Content) > 0 {
		out.Content[0].Full = d.whole
	}
}

// stagedResult is the answer of a tool that stages or shows an edit: text
// (what was staged and how to resolve it) followed by the page of plan's
// diff stagedDiff renders from start (of file's diff when file is set),
// which is also its Structured content.
func stagedResult(text, id string, plan *search.Plan, file string, start int) (*Result, *StagedDiff, error) {
	diff, st, err := stagedDiff(id, plan, file, start)
	if err != nil {
		return nil, nil, err
	}
	out := Text(text + diff)
	st.attachWhole(out)
	return out, st, nil
}

// droppedNote is the note line naming the staged edits that staging a new
// one dropped unresolved, "" when it dropped none.
func droppedNote(dropped []string) string {
	if len(dropped) == 0 {
		return ""
	}
	return fmt.Sprintf("note: %s was dropped unresolved: at most %d staged edits (%d MiB of files) are kept; resolve edits before staging more\n",
		strings.Join(dropped, ", "), AstEditMaxStaged, stage.MaxBytes>>20)
}

// Change is the structured output of a tool that writes a change or
// stages one (lsp_rename, rename_file, resolve): *FileChanges when files
// were written, *StagedDiff when the change was staged for resolve.
type Change interface{ change() }

func (*FileChanges) change() {}
func (*StagedDiff) change()  {}

// StagedFile is one file of a staged edit.
type StagedFile struct {
	Path         string `json:"path"`
	Replacements int    `json:"replacements"`
	Added        int    `json:"added"`
	Removed      int    `json:"removed"`
	// Deleted says accepting the edit deletes the file.
	Deleted bool `json:"deleted,omitempty"`
}

// stagedDiff renders the page of plan's diff (of file's when file is set)
// from start, astEditDiffLines lines at most, after the list of every file
// with its counts.
func stagedDiff(id string, plan *search.Plan, file string, start int) (string, *StagedDiff, error) {
	d := &StagedDiff{EditID: id, Replacements: plan.Replacements, Files: []StagedFile{}, File: file, Start: start}
	var lines []string
	var starts []int // the line each file's diff starts at
	found := false
	for _, c := range plan.Changes {
		name := c.Display
		if name == "" {
			name = c.Path
		}
		fl := strings.Split(strings.TrimSuffix((&search.Plan{Changes: []search.FileChange{c}}).Diff(0), "\n"), "\n")
		f := StagedFile{Path: name, Replacements: c.Replacements, Deleted: c.Delete}
		for i, l := range fl {
			switch {
			case i < 2: // the "--- a/" and "+++ b/" lines
			case strings.HasPrefix(l, "+"):
				f.Added++
			case strings.HasPrefix(l, "-"):
				f.Removed++
			}
		}
		d.Files = append(d.Files, f)
		if file == "" || file == name {
			found = found || file == name
			starts = append(starts, len(lines))
			lines = append(lines, fl...)
		}
	}
	if file != "" && !found {
		return "", nil, fmt.Errorf("tools: resolve: %s has no file %q: pass one of the files it lists, or no file for the whole diff", id, file)
	}
	d.Lines = len(lines)
	if start >= len(lines) && len(lines) > 0 {
		return "", nil, fmt.Errorf("tools: resolve: start %d is past the diff's %d lines: pass 0 to %d", start, len(lines), len(lines)-1)
	}
	page := lines[start:min(len(lines), start+astEditDiffLines)]
	size := 0
	for k, l := range page {
		if size += len(l) + 1; k > 0 && size > astEditDiffBytes {
			page = page[:k]
			break
		}
	}
	d.Shown = len(page)
	if start+len(page) < len(lines) {
		d.Next = start + len(page)
	}
	if len(page) < len(lines) {
		d.whole = strings.Join(lines, "\n") + "\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:", plural(len(d.Files), "file"))
	for i, f := range d.Files {
		if i > 0 {
			b.WriteString(",")
		}
		if i == stagedFilesListed {
			fmt.Fprintf(&b, " and %d more (each in the diff; resolve show with file gives one file's)", len(d.Files)-i)
			break
		}
		fmt.Fprintf(&b, " %s %d (+%d -%d)", f.Path, f.Replacements, f.Added, f.Removed)
		if f.Deleted {
			b.WriteString(" deleted")
		}
	}
	b.WriteString("\n")
	what := "diff"
	if file != "" {
		what = "diff of " + file
	}
	if d.Shown < d.Lines {
		// the files the page covers, from the one its first line is in
		first, last := "", ""
		for i, at := range starts {
			name := d.Files[i].Path
			if file != "" {
				name = file
			}
			if at <= start {
				first = name
			}
			if at < start+len(page) {
				last = name
			}
		}
		span := first
		if last != first {
			span += " to " + last
		}
		fmt.Fprintf(&b, "%s: lines %d-%d of %d (%s)", what, start+1, start+len(page), d.Lines, span)
		if d.Next > 0 {
			fmt.Fprintf(&b, "; resolve with edit_id %q, action \"show\" and start %d shows the next page", id, d.Next)
			if file == "" {
				b.WriteString(", with file one file's diff")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	for _, l := range page {
		b.WriteString(l + "\n")
	}
	return b.String(), d, nil
}
