package matcher

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Skips counts the files a search did not look at, by reason.
type Skips struct {
	Ignored    int `json:"ignored,omitempty"`    // matched by .gitignore or .ignore
	Hidden     int `json:"hidden,omitempty"`     // hidden files and directories (skipped whole)
	Binary     int `json:"binary,omitempty"`     // files that look binary
	TooLarge   int `json:"tooLarge,omitempty"`   // files over the size cap
	Unreadable int `json:"unreadable,omitempty"` // files or directories that could not be read
	// OtherLanguage counts files named explicitly whose extension is another
	// grammar's: not parsed with the wrong one.
	OtherLanguage int      `json:"otherLanguage,omitempty"`
	Examples      []string `json:"examples,omitempty"` // a few of the skipped paths with their reason
}

const maxSkipExamples = 5

func (s *Skips) note(path, why string) {
	if len(s.Examples) < maxSkipExamples {
		s.Examples = append(s.Examples, path+" ("+why+")")
	}
}

func (s *Skips) add(o Skips) {
	s.Ignored += o.Ignored
	s.Hidden += o.Hidden
	s.Binary += o.Binary
	s.TooLarge += o.TooLarge
	s.Unreadable += o.Unreadable
	s.OtherLanguage += o.OtherLanguage
	for _, e := range o.Examples {
		if len(s.Examples) < maxSkipExamples {
			s.Examples = append(s.Examples, e)
		}
	}
}

// Total returns the number of files and directories skipped.
func (s Skips) Total() int {
	return s.Ignored + s.Hidden + s.Binary + s.TooLarge + s.Unreadable + s.OtherLanguage
}

// walk lists the files under root (a file or directory) whose language is lang
// (anyLanguage: any shipped grammar's), in lexical order. Ignore files are
// weighed as ast-grep weighs them (see ignoreLevel); those of root's parents
// count too. Symbolic links are not followed.
func walk(root, lang string, skips *Skips) ([]string, error) {
	fi, err := os.Lstat(root)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		if fi.Mode()&fs.ModeSymlink != 0 {
			if fi, err = os.Stat(root); err != nil {
				return nil, err
			}
			if fi.IsDir() {
				skips.Unreadable++
				skips.note(root, "symbolic link to a directory")
				return nil, nil
			}
		}
		if l := langForPath(root); lang != anyLanguage && l != "" && l != lang && !related(l, lang) {
			skips.OtherLanguage++
			skips.note(root, fmt.Sprintf("a %s file: pass language %s", l, l))
			return nil, nil
		}
		return []string{root}, nil
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	var files []string
	var visit func(dir, absDir string, stack []*ignoreLevel)
	visit = func(dir, absDir string, stack []*ignoreLevel) {
		if l := loadLevel(absDir); l != nil {
			stack = append(stack[:len(stack):len(stack)], l)
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			skips.Unreadable++
			skips.note(dir, err.Error())
			return
		}
		for _, e := range ents {
			name := e.Name()
			isDir := e.IsDir()
			if strings.HasPrefix(name, ".") {
				// counted when it would have been searched: a directory,
				// or a file of the language
				if isDir || e.Type().IsRegular() && langForPath(name) != "" && (lang == anyLanguage || langForPath(name) == lang) {
					skips.Hidden++
					if name != ".git" {
						skips.note(filepath.Join(dir, name), "hidden")
					}
				}
				continue
			}
			if e.Type()&fs.ModeSymlink != 0 || !isDir && !e.Type().IsRegular() {
				continue
			}
			if !isDir && (lang == anyLanguage && langForPath(name) == "" || lang != anyLanguage && langForPath(name) != lang) {
				continue
			}
			p, ap := filepath.Join(dir, name), filepath.Join(absDir, name)
			if len(stack) > 0 && levelsIgnore(stack, ap, isDir) {
				skips.Ignored++
				continue
			}
			if isDir {
				visit(p, ap, stack)
				continue
			}
			files = append(files, p)
		}
	}
	visit(root, absRoot, ancestorIgnores(absRoot))
	sort.Strings(files)
	return files, nil
}

// ancestorIgnores loads the ignore files of dir's parents, outermost first,
// up to the file system's root (a parent's .ignore counts everywhere; which
// .gitignore counts is decided by levelsIgnore); dir's own are loaded by the
// walk.
func ancestorIgnores(dir string) []*ignoreLevel {
	var levels []*ignoreLevel
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if l := loadLevel(d); l != nil {
			levels = append(levels, l)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	slices.Reverse(levels)
	return levels
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// related reports whether a file of language a may be searched as b when
// named explicitly: a C header as C++, JavaScript as TypeScript or TSX, and
// back.
func related(a, b string) bool {
	family := func(l string) string {
		switch l {
		case "c", "cpp":
			return "c"
		case "javascript", "typescript", "tsx":
			return "js"
		}
		return l
	}
	return family(a) == family(b)
}
