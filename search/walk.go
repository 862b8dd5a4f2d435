package search

import "context"
import "fmt"
import "io/fs"
import "os"
import "path/filepath"
import "slices"
import "sort"
import "strings"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/search/inject"

// Skips counts the files a search did not look at, by reason.
type Skips struct {
	Ignored    int `json:"ignored,omitempty"`    // matched by .gitignore or .ignore
	Hidden     int `json:"hidden,omitempty"`     // hidden files and directories (skipped whole)
	Binary     int `json:"binary,omitempty"`     // files that look binary
	TooLarge   int `json:"tooLarge,omitempty"`   // files over the size cap
	Unreadable int `json:"unreadable,omitempty"` // files or directories that could not be read
	// OtherLanguage counts files named explicitly whose extension is another
	// grammar's: not parsed with the wrong one.
	OtherLanguage int `json:"otherLanguage,omitempty"`
	// Notebooks counts the Jupyter notebooks whose cells were not searched
	// (another kernel language, not an nbformat 4 notebook);
	// NotebooksNamed names the first few, each with why.
	Notebooks      int      `json:"notebooks,omitempty"`
	NotebooksNamed []string `json:"notebooksNamed,omitempty"`
	Examples       []string `json:"examples,omitempty"` // a few of the skipped paths with their reason
	// Large names the first few files over the size cap, with their sizes.
	Large []string `json:"large,omitempty"`
	// Missing names the paths given that do not exist, not searched (when
	// another path given does).
	Missing []string `json:"missing,omitempty"`
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
	s.Notebooks += o.Notebooks
	for _, e := range o.NotebooksNamed {
		if len(s.NotebooksNamed) < maxSkipExamples {
			s.NotebooksNamed = append(s.NotebooksNamed, e)
		}
	}
	for _, e := range o.Examples {
		if len(s.Examples) < maxSkipExamples {
			s.Examples = append(s.Examples, e)
		}
	}
	for _, e := range o.Large {
		if len(s.Large) < maxSkipExamples {
			s.Large = append(s.Large, e)
		}
	}
	s.Missing = append(s.Missing, o.Missing...)
}

// Total returns the number of files and directories skipped.
func (s Skips) Total() int {
	return s.Ignored + s.Hidden + s.Binary + s.TooLarge + s.Unreadable + s.OtherLanguage + s.Notebooks + len(s.Missing)
}

// walk lists the files under root (a file or directory) whose language is lang
// (anyLanguage: any shipped grammar's), in lexical order. Ignore files are
// weighed as ast-grep weighs them (see ignoreLevel); those of root's parents
// count too. Hidden directories are skipped, hidden files are not (as in
// ast-grep). gl (nil: none) includes and excludes files and directories
// before any of that; a root that is a file is taken as it is. Symbolic
// links are not followed. Every access goes through f (nil: the plain file
// system). It stops, with the context's error, when ctx is done.
func walk(ctx context.Context, f *files, root, lang string, skips *Skips, gl *globs) ([]string, error) {
	return walkHosts(ctx, f, root, lang, skips, gl, nil, nil)
}

// walkHosts is walk that, given hosts (not nil), also lists the host files
// that may embed lang (package inject), the Jupyter notebooks (recorded as
// notebookHost, or namedNotebook for root itself), and the files of the extra languages
// (a project's injections' hosts), and records each in hosts with its own
// language.
func walkHosts(ctx context.Context, f *files, root, lang string, skips *Skips, gl *globs, hosts map[string]*grammars.Language, extra []string) ([]string, error) {
	fi, err := f.lstat(root)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		if fi.Mode()&fs.ModeSymlink != 0 {
			if fi, err = f.stat(root); err != nil {
				return nil, err
			}
			if fi.IsDir() {
				skips.Unreadable++
				skips.note(root, "symbolic link to a directory")
				return nil, nil
			}
		}
		if hosts != nil && inject.IsNotebook(root) && langForPath(root) == nil {
			// its code cells are searched in its kernel's language
			hosts[root] = namedNotebook
			return []string{root}, nil
		}
		if l := langForPath(root); lang != anyLanguage && l != nil && l.ID != lang && !related(l.ID, lang) {
			if hosts != nil && (inject.Embeds(l.ID, lang) || slices.Contains(extra, l.ID)) {
				hosts[root] = l
				return []string{root}, nil
			}
			skips.OtherLanguage++
			skips.note(root, fmt.Sprintf("a %s file: pass language %s", l.ID, l.ID))
			return nil, nil
		}
		return []string{root}, nil
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	var found []string
	var visit func(dir, absDir string, stack []*ignoreLevel)
	visit = func(dir, absDir string, stack []*ignoreLevel) {
		if ctx.Err() != nil {
			return
		}
		if l := loadLevel(f, absDir); l != nil {
			stack = append(stack[:len(stack):len(stack)], l)
		}
		ents, err := f.readDir(dir)
		if err != nil {
			skips.Unreadable++
			skips.note(dir, err.Error())
			return
		}
		for _, e := range ents {
			name := e.Name()
			isDir := e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 || !isDir && !e.Type().IsRegular() {
				continue
			}
			var host *grammars.Language
			if !isDir {
				switch l := langForPath(name); {
				case lang == anyLanguage && l == nil && hosts != nil && inject.IsNotebook(name):
					host = notebookHost
				case lang == anyLanguage && l == nil:
					continue
				case lang == anyLanguage || l != nil && l.ID == lang:
				case hosts != nil && l != nil && (inject.Embeds(l.ID, lang) || slices.Contains(extra, l.ID)):
					host = l
				case hosts != nil && l == nil && inject.IsNotebook(name):
					// searched when its kernel's language is lang
					host = notebookHost
				default:
					continue
				}
			}
			p, ap := filepath.Join(dir, name), filepath.Join(absDir, name)
			// --globs come first: a glob's exclusion or inclusion beats
			// the ignore files and the hidden rule, as in ast-grep
			skip, keep := gl.decide(ap, isDir)
			if skip {
				skips.Ignored++
				continue
			}
			if !keep && isDir && strings.HasPrefix(name, ".") {
				// a hidden directory is skipped whole; a hidden file is
				// searched, as ast-grep searches it
				skips.Hidden++
				if name != ".git" {
					skips.note(p, "hidden")
				}
				continue
			}
			if !keep && len(stack) > 0 && levelsIgnore(stack, ap, isDir) {
				skips.Ignored++
				continue
			}
			if isDir {
				visit(p, ap, stack)
				continue
			}
			found = append(found, p)
			if host != nil {
				hosts[p] = host
			}
		}
	}
	visit(root, absRoot, ancestorIgnores(f, absRoot))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sort.Strings(found)
	return found, nil
}

// ancestorIgnores loads the ignore files of dir's parents, outermost first,
// up to the file system's root (a parent's .ignore counts everywhere; which
// .gitignore counts is decided by levelsIgnore); dir's own are loaded by the
// walk.
func ancestorIgnores(f *files, dir string) []*ignoreLevel {
	var levels []*ignoreLevel
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if l := loadLevel(f, d); l != nil {
			levels = append(levels, l)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	slices.Reverse(levels)
	return levels
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

// globs are ast-grep's --globs: gitignore-style globs relative to the
// working directory that include files (GLOB) or exclude files and
// directories (!GLOB), the later winning where several match. Given any
// include, a file no include matches is skipped. They beat ignore files and
// the hidden rule.
type globs struct {
	base     string
	rules    []ignoreRule // negate: an include
	includes int
}

// compileGlobs reads --globs values, relative to the working directory;
// nil for none.
func compileGlobs(gs []string) (*globs, error) {
	if len(gs) == 0 {
		return nil, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("search: globs: %w", err)
	}
	return compileGlobsAt(gs, cwd)
}

// compileGlobsAt reads --globs values relative to base.
func compileGlobsAt(gs []string, base string) (*globs, error) {
	g := &globs{base: base}
	for _, s := range gs {
		exclude := strings.HasPrefix(s, "!")
		line := strings.TrimPrefix(s, "!")
		if !exclude {
			line = "!" + line
		}
		rules := parseIgnore([]byte(line))
		if len(rules) != 1 {
			return nil, fmt.Errorf("search: glob %q matches nothing: give a gitignore-style glob such as '*.go', 'src/**' or '!*_test.go'", s)
		}
		if !exclude {
			g.includes++
		}
		g.rules = append(g.rules, rules[0])
	}
	return g, nil
}

// decide says whether the globs exclude (skip) or include (keep) the path
// at ap (a directory when dir); neither when none matches.
func (g *globs) decide(ap string, dir bool) (skip, keep bool) {
	if g == nil {
		return false, false
	}
	rel, err := filepath.Rel(g.base, ap)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = strings.TrimPrefix(ap, string(filepath.Separator))
	}
	rel = filepath.ToSlash(rel)
	matched, include := false, false
	for _, r := range g.rules {
		if r.dirOnly && !dir {
			continue
		}
		if r.re.MatchString(rel) {
			matched, include = true, r.negate
		}
	}
	switch {
	case matched:
		return !include, include
	case g.includes > 0 && !dir:
		return true, false
	}
	return false, false
}
