package search

import "fmt"
import "strings"

import "github.com/tetherhq/tether/search/inject"

// Summary says in one line what was found and where it was looked for:
// "50 of 213 matches shown, in 4 of 120 files searched", "no matches in 120
// files", plus skipped files and errors.
func (r *Result) Summary() string {
	files := map[string]bool{}
	for _, m := range r.Matches {
		files[m.Path] = true
	}
	shown, nfiles := len(r.Matches)+r.Handed, len(files)+r.handedFiles
	var s string
	switch {
	case r.Total == 0 && r.Searched == 0:
		lang := "source"
		if r.Pattern != nil {
			lang = r.Pattern.Language()
		}
		if len(r.Errors) > 0 || r.Skipped.Binary+r.Skipped.TooLarge+r.Skipped.Unreadable+r.Skipped.OtherLanguage+r.Skipped.Notebooks+len(r.Skipped.Missing) > 0 {
			s = fmt.Sprintf("not searched: no %s file could be searched", lang)
		} else {
			s = fmt.Sprintf("not searched: no %s file found (hidden directories, ignored files and other languages' files are not searched; pass a path that holds some, or another language)", lang)
		}
	case r.Total == 0:
		s = fmt.Sprintf("no matches in %d %s", r.Searched, plural(r.Searched, "file", "files"))
		if r.NoMatch != nil {
			s += " (" + r.NoMatch.String() + ")"
		}
	case shown < r.Total:
		s = fmt.Sprintf("%d of %d matches shown (raise max_results or narrow the path for more), %d %s searched", shown, r.Total, r.Searched, plural(r.Searched, "file", "files"))
	default:
		s = fmt.Sprintf("%d %s in %d of %d %s searched", r.Total, plural(r.Total, "match", "matches"), nfiles, r.Searched, plural(r.Searched, "file", "files"))
	}
	if n := r.Skipped.Total(); n > 0 {
		s += fmt.Sprintf("; skipped %d (%s)", n, skipReasons(r.Skipped))
		if r.Searched == 0 && len(r.Skipped.Examples) > 0 {
			s += fmt.Sprintf(" such as %s", r.Skipped.Examples[0])
		}
	}
	if n := r.Skipped.TooLarge; n > 0 && len(r.Skipped.Large) > 0 {
		s += fmt.Sprintf("; not searched, over the %s size cap: %s", humanSize(r.SizeCap), strings.Join(r.Skipped.Large, ", "))
		if more := n - len(r.Skipped.Large); more > 0 {
			s += fmt.Sprintf(" and %d more", more)
		}
	}
	if r.Total == 0 && r.inferred && r.Pattern != nil {
		if hint := inject.Hint(r.Pattern.Language()); hint != "" {
			s += "; " + hint
		}
	}
	if note := r.brokenNote(); note != "" {
		s += "; " + note
	}
	if r.RegionsCutCount > 0 && len(r.RegionsCut) > 0 {
		c := r.RegionsCut[0]
		s += fmt.Sprintf("; %d %s more than %d regions of the language, only the first %d of each searched (%s: %d of %d; split such a file to search the rest)",
			r.RegionsCutCount, plural(r.RegionsCutCount, "file embeds", "files embed"), inject.MaxRegionsPerFile, inject.MaxRegionsPerFile, c.Path, c.Searched, c.Regions)
	}
	if len(r.Errors) > 0 {
		s += fmt.Sprintf("; %d %s could not be searched (first: %s: %s)", len(r.Errors), plural(len(r.Errors), "file", "files"), r.Errors[0].Path, r.Errors[0].Err)
	}
	return s
}

func skipReasons(s Skips) string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(s.Ignored, "ignored")
	add(s.Hidden, "hidden")
	add(s.Binary, "binary")
	add(s.TooLarge, "over the size cap")
	add(s.Unreadable, "unreadable")
	add(s.OtherLanguage, "of another language")
	if s.Notebooks > 0 {
		names := strings.Join(s.NotebooksNamed, ", ")
		if more := s.Notebooks - len(s.NotebooksNamed); more > 0 {
			names += fmt.Sprintf(" and %d more", more)
		}
		parts = append(parts, fmt.Sprintf("%d %s: %s", s.Notebooks, plural(s.Notebooks, "notebook", "notebooks"), names))
	}
	if len(s.Missing) > 0 {
		names := strings.Join(s.Missing[:min(len(s.Missing), maxSkipExamples)], ", ")
		if more := len(s.Missing) - maxSkipExamples; more > 0 {
			names += fmt.Sprintf(" and %d more", more)
		}
		parts = append(parts, fmt.Sprintf("%d not found: %s", len(s.Missing), names))
	}
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += ", "
		}
		out += p
	}
	return out
}

// humanSize renders a byte count as 1000 B, 3.0 KiB or 9.1 MiB.
func humanSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
