package search

import "bytes"
import "context"
import "fmt"
import "path/filepath"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/search/store"

// NameUse is an identifier that names a symbol, outside its declaration.
type NameUse struct {
	// Path is relative to the searcher's root.
	Path string `json:"path"`
	Line int    `json:"line"`
}

// NameUses are the identifiers of the workspace's parsed trees that
// spell a declaration's name: what may still use it.
type NameUses struct {
	// Uses are the first max found, in file order; Total counts them all.
	Uses  []NameUse `json:"uses"`
	Total int       `json:"total"`
	// Files counts the files whose trees were looked at (those that hold
	// the name's text); Walked those of the declaration's language family
	// listed; OverCap those left unread past DefaultMapFiles.
	Files   int         `json:"files"`
	Walked  int         `json:"walked"`
	OverCap int         `json:"over_cap,omitempty"`
	Errors  []FileError `json:"errors,omitempty"`
}

// langFamily is the languages whose files can name each other's
// declarations.
func langFamily(id string) string {
	switch id {
	case "typescript", "tsx", "javascript":
		return "javascript"
	case "cpp":
		return "c"
	}
	return id
}

// NameUses looks, in every file of the workspace of d's language family
// (at most DefaultMapFiles), for identifiers spelling d's name outside d
// itself (file is d's file) and other declarations' own names: the
// references a delete would leave, by name only (a same-named other
// symbol counts too). It lists at most max.
func (s *Searcher) NameUses(ctx context.Context, file string, d Declaration, max int) (*NameUses, error) {
	lang := langForPath(file)
	if lang == nil {
		return nil, fmt.Errorf("%w: %s is of no known language", ErrNoOutline, file)
	}
	fsys, err := s.openRoot()
	if err != nil {
		return nil, err
	}
	defer fsys.close()
	var sk Skips
	paths, err := walk(ctx, fsys, s.abs("."), anyLanguage, &sk, nil)
	if err != nil {
		return nil, fmt.Errorf("search: cannot list the workspace's files: %w", err)
	}
	own, _ := filepath.Abs(s.abs(file))
	out := &NameUses{Uses: []NameUse{}}
	name := []byte(d.Name)
	for _, p := range paths {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("search: cancelled: %w", ctx.Err())
		}
		l := langForPath(p)
		if l == nil || langFamily(l.ID) != langFamily(lang.ID) {
			continue
		}
		if out.Walked++; out.Walked > DefaultMapFiles {
			out.OverCap++
			continue
		}
		var u unread
		src, _, ok := s.readText(fsys, p, &u)
		if !ok || !bytes.Contains(src, name) {
			continue
		}
		tree, _, err := s.wholeTree(ctx, l, store.KeyOf(s.partition, l, src), src)
		if err != nil {
			out.Errors = append(out.Errors, FileError{Path: p, Err: err.Error()})
			continue
		}
		out.Files++
		rel := p
		if r, err := fsys.rel(p); err == nil {
			rel = filepath.ToSlash(r)
		}
		skip := [2]int{-1, -1}
		if abs, _ := filepath.Abs(p); abs == own {
			skip = [2]int{d.Start, d.End}
		}
		usesIn(ctx, tree, outlineKinds[l.ID], d.Name, skip, func(line int) {
			if out.Total++; len(out.Uses) < max {
				out.Uses = append(out.Uses, NameUse{Path: rel, Line: line})
			}
		})
	}
	return out, nil
}

// usesIn calls use with the line of each identifier of t spelling name
// that lies outside skip and is no declaration's own name.
func usesIn(ctx context.Context, t *engine.Tree, kinds map[string]defKind, name string, skip [2]int, use func(line int)) {
	names := map[uint32]bool{}
	if kinds != nil {
		for _, d := range declsOf(ctx, t, kinds) {
			if d.Name == name {
				names[uint32(d.NameStart)] = true
			}
		}
	}
	seen := 0
	t.Root().Walk(func(n engine.Node) bool {
		if seen++; seen&4095 == 0 && ctx.Err() != nil {
			return false
		}
		if at := int(n.StartByte()); at >= skip[0] && int(n.EndByte()) <= skip[1] {
			return false
		}
		if refKinds[n.Kind()] && n.IsNamed() {
			if n.Text() == name && !names[n.StartByte()] {
				use(int(n.Range().StartPoint.Row) + 1)
			}
			return false
		}
		return true
	})
}
